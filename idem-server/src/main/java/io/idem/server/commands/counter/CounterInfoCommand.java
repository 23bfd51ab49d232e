package io.idem.server.commands.counter;

import io.idem.core.window.CounterRow;
import io.idem.core.window.WindowedCounters;
import io.idem.server.command.Call;
import io.idem.server.command.CommandException;
import io.idem.server.command.Handler;
import io.idem.server.commands.window.Windows;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;

/**
 * COUNTER.INFO key — the table's resolutions (bucket and retention, in milliseconds), the buckets
 * in one row, the row format, and its memory and disk. Shaped as BF.INFO: label, value pairs.
 */
public final class CounterInfoCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              WindowedCounters t = Counters.tableOrNull(e);
              if (t == null) {
                throw new CommandException(Windows.NOT_FOUND);
              }
              List<Reply> r = new ArrayList<>();
              add(r, "Resolutions", Windows.resolutionsReply(t));
              add(r, "Buckets per row", Reply.integer(WindowedCounters.SLOTS));
              add(r, "Row format", Reply.integer(CounterRow.FORMAT));
              add(r, "Memory bytes", Reply.integer(CounterCodec.INSTANCE.memoryUsage(t)));
              add(r, "Disk bytes", Reply.integer(call.engine().rows().approximateBytes(e.id())));
              return Reply.map(r);
            });
  }

  private static void add(List<Reply> r, String label, Reply value) {
    r.add(Reply.simple(label));
    r.add(value);
  }
}
