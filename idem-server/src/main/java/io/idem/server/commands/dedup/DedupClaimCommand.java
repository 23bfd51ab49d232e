package io.idem.server.commands.dedup;

import io.idem.core.dedup.DedupTable;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.util.List;

/**
 * DEDUP.CLAIM key id owner [AT unix-ms] — claims the id for the owner at the event time (default
 * now). Replies [new | retry | duplicate, the owner now holding the id or nil].
 */
public final class DedupClaimCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    int argc = call.argc();
    if (argc != 4 && !(argc == 6 && call.is(4, "AT"))) {
      throw new CommandException(
          argc == 6 || argc == 5 ? Errors.SYNTAX : Errors.wrongArity("dedup.claim"));
    }
    byte[] id = DedupArgs.id(call, 2);
    byte[] owner = DedupArgs.owner(call, 3);
    long now = call.engine().now();
    long at = argc == 6 ? DedupArgs.at(call.arg(5)) : now;
    DedupTable.Ids hashed = DedupTable.Ids.of(new byte[][] {id});
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              DedupTable t = Dedups.table(tx.entry());
              List<DedupTable.Claimed> c =
                  Dedups.refusing(
                      () ->
                          t.claim(
                              Dedups.store(tx, call.engine().rows()),
                              hashed,
                              new byte[][] {owner},
                              new long[] {at},
                              now,
                              call.engine()::memoryFits));
              return Dedups.reply(c.getFirst());
            });
  }
}
