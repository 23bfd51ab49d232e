package io.idem.server.commands.cuckoo;

import io.idem.core.filter.ScalableCuckoo;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * CF.COUNT key item — the copies of the item's fingerprint in its two buckets of every sub-table
 * (an integer, under RESP3 too); 0 if the key is free. An upper bound: other items may share the
 * fingerprint. When both buckets are the same bucket its copies count once (RedisBloom counts them
 * twice).
 */
public final class CfCountCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              ScalableCuckoo f = Cuckoos.filter(e);
              if (f == null) {
                return Reply.ZERO;
              }
              long[] pair = new long[2];
              f.hash(call.arg(2), pair);
              return Reply.integer(f.count(pair[0], pair[1]));
            });
  }
}
