package io.idem.server.commands.dedup;

import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * DEDUP.EXISTS key id — 1 if the id is claimed within the window (a FILTER table: may be), else 0.
 * Claims nothing; a free key is 0, as BF.EXISTS.
 */
public final class DedupExistsCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    byte[] id = DedupArgs.id(call, 2);
    long now = call.engine().now();
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              boolean found =
                  e != null
                      && Dedups.refusing(
                          () ->
                              Dedups.table(e)
                                  .contains(Dedups.reading(call.engine().rows(), e.id()), id, now));
              // As BF.EXISTS: a boolean under RESP3, 1 or 0 under RESP2.
              return call.session().protocol() == 3
                  ? new Reply.Bool(found)
                  : Reply.integer(found ? 1 : 0);
            });
  }
}
