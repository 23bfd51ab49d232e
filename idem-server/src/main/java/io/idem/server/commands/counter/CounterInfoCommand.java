package io.idem.server.commands.counter;

import io.idem.core.window.CounterRow;
import io.idem.core.window.WindowedCounters;
import io.idem.server.commands.window.Windows;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.util.List;

/**
 * COUNTER.INFO key — the table's resolutions (bucket and retention, in milliseconds), the buckets
 * in one row, the row format, and its memory and disk. Shaped as BF.INFO: label, value pairs.
 */
public final class CounterInfoCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return Windows.info(
        call,
        CounterCodec.INSTANCE,
        t ->
            List.of(
                Reply.simple("Buckets per row"),
                Reply.integer(WindowedCounters.SLOTS),
                Reply.simple("Row format"),
                Reply.integer(CounterRow.FORMAT)));
  }
}
