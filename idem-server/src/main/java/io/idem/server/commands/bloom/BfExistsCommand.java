package io.idem.server.commands.bloom;

import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * BF.EXISTS key item — 1 if the item may be present, 0 if certainly absent or the key is free. A
 * key of another type is WRONGTYPE (RedisBloom answers 0).
 */
public final class BfExistsCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .read(call.arg(1), e -> Blooms.bool(call, Blooms.mayContain(e, call.arg(2))));
  }
}
