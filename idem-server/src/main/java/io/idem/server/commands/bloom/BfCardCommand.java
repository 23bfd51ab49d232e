package io.idem.server.commands.bloom;

import io.idem.core.filter.ScalableBloom;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/** BF.CARD key — the items added (those that were certainly new); 0 if the key is free. */
public final class BfCardCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              ScalableBloom f = Blooms.bloom(e);
              return Reply.integer(f == null ? 0 : f.itemCount());
            });
  }
}
