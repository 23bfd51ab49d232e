package io.idem.server.commands.cuckoo;

import io.idem.core.filter.ScalableCuckoo;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * CF.EXISTS key item — 1 if the item may be present, 0 if certainly absent or the key is free. A
 * key of another type is WRONGTYPE (RedisBloom answers 0).
 */
public final class CfExistsCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              ScalableCuckoo f = Cuckoos.filter(e);
              return Cuckoos.bool(call, f != null && f.mightContainItem(call.arg(2)));
            });
  }
}
