package io.idem.server.commands.dedup;

import io.idem.core.dedup.DedupTable;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * DEDUP.MCLAIM key [AT unix-ms] [DUPLICATES] ITEMS id owner [id owner ...] — claims each pair in
 * order, each as DEDUP.CLAIM would; one command, one log record. Replies one [status, owner] per
 * pair, or with DUPLICATES only [id, owner] for each duplicate (Tapjoy's script returned only the
 * duplicates: the common case then costs an empty array).
 */
public final class DedupMclaimCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    int argc = call.argc();
    long now = call.engine().now();
    long at = now;
    boolean onlyDuplicates = false;
    int i = 2;
    boolean atGiven = false;
    while (i < argc && !call.is(i, "ITEMS")) {
      if (call.is(i, "AT") && !atGiven && i + 1 < argc) {
        at = DedupArgs.at(call.arg(i + 1));
        atGiven = true;
        i += 2;
      } else if (call.is(i, "DUPLICATES") && !onlyDuplicates) {
        onlyDuplicates = true;
        i++;
      } else {
        throw new CommandException(Errors.SYNTAX);
      }
    }
    i++; // ITEMS
    int pairs = argc - i;
    if (pairs <= 0 || pairs % 2 != 0) {
      throw new CommandException(Errors.wrongArity("dedup.mclaim"));
    }
    int n = pairs / 2;
    byte[][] ids = new byte[n][];
    byte[][] owners = new byte[n][];
    long[] times = new long[n];
    Arrays.fill(times, at);
    for (int k = 0; k < n; k++) {
      ids[k] = DedupArgs.id(call, i + 2 * k);
      owners[k] = DedupArgs.owner(call, i + 2 * k + 1);
    }
    boolean dupsOnly = onlyDuplicates;
    DedupTable.Ids hashed = DedupTable.Ids.of(ids); // outside the key's lock
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              DedupTable t = Dedups.table(tx.entry());
              List<DedupTable.Claimed> claimed =
                  Dedups.refusing(
                      () ->
                          t.claim(
                              Dedups.store(tx, call.engine().rows()),
                              hashed,
                              owners,
                              times,
                              now,
                              call.engine()::memoryFits));
              List<Reply> out = new ArrayList<>(dupsOnly ? 4 : n);
              for (int k = 0; k < n; k++) {
                DedupTable.Claimed c = claimed.get(k);
                if (!dupsOnly) {
                  out.add(Dedups.reply(c));
                } else if (c.outcome() == DedupTable.Outcome.DUPLICATE) {
                  out.add(
                      Reply.array(
                          Reply.bulk(ids[k]),
                          c.owner() == null ? Reply.NULL : Reply.bulk(c.owner())));
                }
              }
              return Reply.array(out);
            });
  }
}
