package io.idem.server.commands.tdigest;

import io.idem.core.sketch.TDigest;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/** TDIGEST.RESET key — forgets every observation; the compression stays. */
public final class TdigestResetCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              TDigest digest = Tdigest.digest(tx.entry());
              tx.log(TdigestCodec.OP_RESET, new byte[0]);
              digest.reset();
              return Reply.OK;
            });
  }
}
