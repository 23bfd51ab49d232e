package io.idem.server.commands.cuckoo;

import io.idem.core.filter.CuckooFilter;
import io.idem.core.filter.RedisBloomCuckoo;
import io.idem.core.hash.Hash128;
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
    Hash128 h = new Hash128().hash(call.arg(2));
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              RedisBloomCuckoo moved = RedisCuckoos.of(e);
              if (moved != null) {
                return Reply.integer(moved.count(RedisBloomCuckoo.hash(call.arg(2))));
              }
              CuckooFilter f = Cuckoos.filter(e);
              return Reply.integer(f == null ? 0 : f.count(h.h1(), h.h2()));
            });
  }
}
