package io.idem.server.commands.distinct;

import io.idem.core.window.WindowedDistinct;
import io.idem.server.commands.window.Windows;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * DISTINCT.COUNT key time window [window ...] NAMES name [name ...] — for each name, the estimated
 * distinct members in each window ending at {@code time} ({@code *}: the server's clock): an array
 * per name, with one integer per window. Windows are read as COUNTER.QUERY reads them; a window's
 * estimate is the union of its buckets' sketches. A free key counts zero everywhere.
 */
public final class DistinctCountCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    Windows.Query query = Windows.Query.parse(call);
    Windows.Found<WindowedDistinct> found = Windows.find(call, DistinctCodec.INSTANCE);
    long now = call.engine().now();
    long end = Windows.time(call, 2, now);
    if (found == null) {
      return query.zeros();
    }
    WindowedDistinct table = found.table();
    int[] resolution = query.resolve(table, end, now);
    double[][] estimates;
    try {
      estimates =
          table.estimates(
              Windows.rowSource(call.engine().rows(), found.id()),
              query.names(),
              query.windows(),
              resolution,
              end);
    } catch (IOException e) {
      throw new CommandException(Distincts.CORRUPT);
    }
    List<Reply> out = new ArrayList<>(estimates.length);
    for (double[] nameEstimates : estimates) {
      List<Reply> perWindow = new ArrayList<>(nameEstimates.length);
      for (double e : nameEstimates) {
        perWindow.add(Reply.integer(Math.round(e)));
      }
      out.add(Reply.array(perWindow));
    }
    return Reply.array(out);
  }
}
