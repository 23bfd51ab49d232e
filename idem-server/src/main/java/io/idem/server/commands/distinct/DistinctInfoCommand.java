package io.idem.server.commands.distinct;

import io.idem.server.commands.window.Windows;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.util.List;

/**
 * DISTINCT.INFO key — the table's resolutions (bucket and retention, in milliseconds), its
 * precision and the relative standard error that gives, the row format, and its memory and disk.
 * Shaped as BF.INFO: label, value pairs.
 */
public final class DistinctInfoCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return Windows.info(
        call,
        DistinctCodec.INSTANCE,
        t ->
            List.of(
                Reply.simple("Precision"),
                Reply.integer(t.precision()),
                Reply.simple("Relative standard error"),
                new Reply.Double(t.relativeStandardError()),
                Reply.simple("Row format"),
                Reply.integer(DistinctCodec.ROW_FORMAT)));
  }
}
