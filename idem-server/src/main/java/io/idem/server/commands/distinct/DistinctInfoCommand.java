package io.idem.server.commands.distinct;

import io.idem.core.window.WindowedDistinct;
import io.idem.server.command.Call;
import io.idem.server.command.CommandException;
import io.idem.server.command.Handler;
import io.idem.server.commands.window.Windows;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;

/**
 * DISTINCT.INFO key — the table's resolutions (bucket and retention, in milliseconds), its
 * precision and the relative standard error that gives, the row format, and its memory and disk.
 * Shaped as BF.INFO: label, value pairs.
 */
public final class DistinctInfoCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              WindowedDistinct t = Distincts.tableOrNull(e);
              if (t == null) {
                throw new CommandException(Windows.NOT_FOUND);
              }
              List<Reply> r = new ArrayList<>();
              r.add(Reply.simple("Resolutions"));
              r.add(Windows.resolutionsReply(t));
              r.add(Reply.simple("Precision"));
              r.add(Reply.integer(t.precision()));
              r.add(Reply.simple("Relative standard error"));
              r.add(new Reply.Double(t.relativeStandardError()));
              r.add(Reply.simple("Row format"));
              r.add(Reply.integer(DistinctCodec.ROW_FORMAT));
              r.add(Reply.simple("Memory bytes"));
              r.add(Reply.integer(DistinctCodec.INSTANCE.memoryUsage(t)));
              r.add(Reply.simple("Disk bytes"));
              r.add(Reply.integer(call.engine().rows().approximateBytes(e.id())));
              return Reply.map(r);
            });
  }
}
