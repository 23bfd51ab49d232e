package io.idem.server.commands.bloom;

import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * BF.ADD key item — 1 if the item was certainly new, 0 if it may have been present. Creates the
 * filter with the defaults if the key is free.
 */
public final class BfAddCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .write(call.arg(1), tx -> Blooms.addToKey(call, tx, Blooms.Params.DEFAULTS, 2).getFirst());
  }
}
