package io.idem.server.commands.counter;

import io.idem.core.window.WindowedCounters;
import io.idem.server.commands.window.Windows;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Handler;
import io.idem.server.dispatch.Parse;
import io.idem.server.engine.Rows;
import io.idem.server.reply.Reply;

/**
 * COUNTER.INCRBY key time name increment [name increment ...] — adds each increment (negative to
 * decrement) to its name's bucket of {@code time} ({@code *}: the server's clock) at every
 * resolution that still keeps that bucket, and replies how many resolutions counted the event. A
 * free key becomes a table with the default resolutions. All of the command's increments are
 * counted, or none: an event older than every retention, or an increment that would overflow a
 * bucket, is an error that changes nothing.
 */
public final class CounterIncrByCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    int argc = call.argc();
    int n = (argc - 3) / 2;
    byte[][] names = new byte[n][];
    long[] increments = new long[n];
    for (int i = 0; i < n; i++) {
      names[i] = Windows.name(call, 3 + 2 * i);
      Long v = Parse.longOrNull(call.arg(4 + 2 * i));
      if (v == null) {
        throw new CommandException(Errors.NOT_INTEGER);
      }
      increments[i] = v;
    }
    Rows rows = call.engine().rows();
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              long now = call.engine().now();
              long time = Windows.time(call, 2, now);
              WindowedCounters table = Counters.tableToWrite(tx, now);
              Windows.checkTime(table, time, now);
              int keeping = table.keeping(time, now);
              Counters.count(tx, rows, table, now, time, names, increments);
              return Reply.integer(keeping);
            });
  }
}
