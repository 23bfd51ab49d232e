package io.idem.server.commands.bloom;

import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * BF.MADD key item [item ...] — BF.ADD's answer for each item, in an array that ends early, with
 * the error, if a non-scaling filter fills up.
 */
public final class BfMaddCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .write(
            call.arg(1), tx -> Reply.array(Blooms.addToKey(call, tx, Blooms.Params.DEFAULTS, 2)));
  }
}
