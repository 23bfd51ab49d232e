package io.idem.server.commands.distinct;

import io.idem.core.hash.Hash128;
import io.idem.core.window.WindowedDistinct;
import io.idem.server.commands.window.Windows;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.io.IOException;

/**
 * DISTINCT.ADD key time name member [name member ...] — adds each member to its name's bucket of
 * {@code time} ({@code *}: the server's clock) at every resolution that still keeps that bucket,
 * and replies how many of the pairs raised a register somewhere (0: every member was, as far as the
 * sketches tell, counted already). A free key becomes a table with the defaults. All of the pairs
 * are added, or none: an event older than every retention, or further ahead than the longest, is an
 * error that changes nothing.
 */
public final class DistinctAddCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    int argc = call.argc();
    int n = (argc - 3) / 2;
    byte[][] names = new byte[n][];
    long[] hashes = new long[n];
    Hash128 h = new Hash128();
    for (int i = 0; i < n; i++) { // outside the key's lock
      names[i] = Windows.name(call, 3 + 2 * i);
      hashes[i] = h.hash(call.arg(4 + 2 * i)).h1();
    }
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              long now = call.engine().now();
              long time = Windows.time(call, 2, now);
              WindowedDistinct table = Distincts.tableOrNull(tx.entry());
              boolean create = table == null;
              if (create) {
                table = Distincts.newTable(Distincts.DEFAULT_PRECISION, Windows.DEFAULT, now);
              }
              Windows.checkTime(table, time, now);
              long id = create ? -1 : tx.entry().id();
              WindowedDistinct.Additions additions =
                  table.additions(Windows.rowSource(call.engine().rows(), id), now);
              int rose = 0;
              try {
                for (int i = 0; i < n; i++) {
                  rose += additions.add(names[i], time, hashes[i]) ? 1 : 0;
                }
              } catch (IOException e) {
                throw new CommandException(Distincts.CORRUPT);
              } catch (IllegalArgumentException e) {
                throw new CommandException("ERR " + e.getMessage());
              }
              if (create) {
                tx.create(
                    DistinctCodec.INSTANCE,
                    table,
                    DistinctCodec.recipe(Distincts.DEFAULT_PRECISION, Windows.DEFAULT));
              }
              if (additions.changedAny()) {
                additions.writeTo(Windows.rowSink(tx)); // readers see the rows from here on
              }
              return Reply.integer(rose);
            });
  }
}
