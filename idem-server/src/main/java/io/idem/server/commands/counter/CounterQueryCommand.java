package io.idem.server.commands.counter;

import io.idem.core.window.WindowedCounters;
import io.idem.server.commands.window.Windows;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.io.IOException;

/**
 * COUNTER.QUERY key time window [window ...] NAMES name [name ...] — for each name, its count in
 * each window ending at {@code time} ({@code *}: the server's clock): an array per name, with one
 * integer per window. A window is summed at the finest resolution whose bucket divides it and that
 * still keeps all of it: the window's buckets end with the one that holds {@code time}. A free key
 * counts zero everywhere.
 */
public final class CounterQueryCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    Windows.Query query = Windows.Query.parse(call);
    Windows.Found<WindowedCounters> found = Windows.find(call, CounterCodec.INSTANCE);
    long now = call.engine().now();
    long end = Windows.time(call, 2, now);
    if (found == null) {
      return query.zeros();
    }
    WindowedCounters table = found.table();
    int[] resolution = query.resolve(table, end, now);
    long[] sums;
    try {
      sums =
          table.sums(
              Windows.rowSource(call.engine().rows(), found.id()),
              query.names(),
              query.windows(),
              resolution,
              end);
    } catch (ArithmeticException e) {
      throw new CommandException(Counters.SUM_OVERFLOW);
    } catch (IOException e) {
      throw new CommandException(Counters.CORRUPT);
    }
    return new Reply.IntRows(sums, query.windows().length);
  }
}
