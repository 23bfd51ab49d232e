package io.idem.server.commands.cuckoo;

import io.idem.core.filter.CuckooFilter;
import io.idem.core.filter.RedisBloomCuckoo;
import io.idem.core.hash.Hash128;
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
    Hash128 h = new Hash128().hash(call.arg(2));
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              RedisBloomCuckoo moved = RedisCuckoos.of(e);
              if (moved != null) {
                return Cuckoos.bool(call, RedisCuckoos.contains(moved, call.arg(2)));
              }
              CuckooFilter f = Cuckoos.filter(e);
              return Cuckoos.bool(call, f != null && f.mightContain(h.h1(), h.h2()));
            });
  }
}
