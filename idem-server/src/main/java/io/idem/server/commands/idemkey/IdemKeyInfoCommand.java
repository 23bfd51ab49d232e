package io.idem.server.commands.idemkey;

import io.idem.core.dedup.IdempotencyTable;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;

/**
 * IDEMKEY.INFO key — the table's settings, its keys done and in progress, its memory and disk.
 * Shaped as DEDUP.INFO: label, value pairs.
 */
public final class IdemKeyInfoCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              IdempotencyTable t = IdemKeys.table(e);
              IdempotencyTable.Settings s = t.settings();
              List<Reply> r = new ArrayList<>();
              add(r, "Retention milliseconds", s.retentionMillis());
              add(r, "Slices", s.slices());
              add(r, "Capacity", s.capacity());
              add(r, "Max result bytes", s.maxResultBytes());
              add(r, "Max pending", s.maxPending());
              add(r, "Lease milliseconds", s.leaseMillis());
              add(r, "Done", t.doneCount());
              add(r, "In progress", t.inProgressCount(call.engine().now()));
              add(r, "Memory bytes", t.memoryBytes());
              add(r, "Disk bytes", call.engine().rows().approximateBytes(e.id()));
              return Reply.map(r);
            });
  }

  private static void add(List<Reply> r, String label, long value) {
    r.add(Reply.simple(label));
    r.add(Reply.integer(value));
  }
}
