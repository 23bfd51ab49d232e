package io.idem.server.commands.dedup;

import io.idem.core.dedup.DedupTable;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * DEDUP.RELEASE key id owner — forgets the claim if the owner still holds it (its processing
 * failed, so a redelivery must be new again). 1 if released, 0 if the id is not held by that owner.
 */
public final class DedupReleaseCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    byte[] id = DedupArgs.id(call, 2);
    byte[] owner = DedupArgs.owner(call, 3);
    long now = call.engine().now();
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              DedupTable t = Dedups.table(tx.entry());
              if (!t.releases()) {
                throw new CommandException(DedupArgs.NO_RELEASE);
              }
              boolean released =
                  Dedups.refusing(
                      () -> t.release(Dedups.store(tx, call.engine().rows()), id, owner, now));
              return Reply.integer(released ? 1 : 0);
            });
  }
}
