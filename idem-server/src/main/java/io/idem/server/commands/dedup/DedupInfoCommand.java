package io.idem.server.commands.dedup;

import io.idem.core.dedup.DedupSizing;
import io.idem.core.dedup.DedupTable;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;

/**
 * DEDUP.INFO key — the table's mode, window, slices, live claims, memory, disk, by mode its
 * capacity and error rate (FILTER) or slots (RECENT), then the duplicates caught since the table
 * was loaded. Shaped as BF.INFO: label, value pairs; new fields go at the end.
 */
public final class DedupInfoCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              DedupTable t = Dedups.table(e);
              DedupTable.Params p = t.params();
              List<Reply> r = new ArrayList<>();
              add(r, "Mode", Reply.simple(Dedups.modeName(p.mode())));
              add(r, "Window milliseconds", Reply.integer(p.windowMillis()));
              add(r, "Slices", Reply.integer(p.slices()));
              add(r, "Slices holding claims", Reply.integer(t.slices().live().size()));
              add(r, "Items", Reply.integer(t.items()));
              add(r, "Memory bytes", Reply.integer(t.memoryBytes()));
              add(r, "Disk bytes", Reply.integer(call.engine().rows().approximateBytes(e.id())));
              switch (p.mode()) {
                case EXACT -> add(r, "Capacity", Reply.integer(p.capacity()));
                case FILTER -> {
                  add(r, "Capacity", Reply.integer(p.capacity()));
                  add(r, "Error rate", new Reply.Double(p.errorRate()));
                  add(r, "Slice filter", Reply.simple(DedupSizing.sliceFilter(p)));
                  add(
                      r,
                      "Estimated false positive rate",
                      new Reply.Double(t.estimatedFalsePositiveRate()));
                }
                case RECENT -> add(r, "Slots", Reply.integer(p.slots()));
              }
              add(r, "Duplicates caught", Reply.integer(t.duplicatesCaught()));
              return Reply.map(r);
            });
  }

  private static void add(List<Reply> r, String label, Reply value) {
    r.add(Reply.simple(label));
    r.add(value);
  }
}
