package io.idem.server.commands.bloom;

import io.idem.core.filter.RedisBloomChain;
import io.idem.core.filter.ScalableBloomFilter;
import io.idem.core.hash.Hash128;
import io.idem.server.command.Call;
import io.idem.server.command.Handler;
import io.idem.server.reply.Reply;

/**
 * BF.EXISTS key item — 1 if the item may be present, 0 if certainly absent or the key is free. A
 * key of another type is WRONGTYPE (RedisBloom answers 0).
 */
public final class BfExistsCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              RedisBloomChain c = Blooms.chain(e);
              if (c != null) {
                return Blooms.bool(call, c.mightContain(call.arg(2)));
              }
              ScalableBloomFilter f = Blooms.filter(e);
              if (f == null) {
                return Blooms.bool(call, false);
              }
              Hash128 h = new Hash128().hash(call.arg(2));
              return Blooms.bool(call, f.mightContain(h.h1(), h.h2()));
            });
  }
}
