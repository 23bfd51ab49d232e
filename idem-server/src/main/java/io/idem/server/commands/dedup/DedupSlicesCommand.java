package io.idem.server.commands.dedup;

import io.idem.core.dedup.DedupTable;
import io.idem.core.dedup.TimeSlices;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * DEDUP.SLICES key — the table's live slices holding claims, oldest first, each a map of its start,
 * end, age (since its start), items, resident bytes (EXACT and FILTER: its filter) and the
 * duplicates found in it since the table was loaded. Each map is shaped as DEDUP.INFO's.
 */
public final class DedupSlicesCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    long now = call.engine().now();
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              DedupTable t = Dedups.table(e);
              TimeSlices time = t.slices();
              // RECENT's slots hold every slice's claims: a slice has no bytes of its own there.
              boolean bytes = t.params().mode() != DedupTable.Mode.RECENT;
              List<Reply> out = new ArrayList<>();
              for (Map.Entry<Long, TimeSlices.Slice> en : t.liveSlices(now).entrySet()) {
                TimeSlices.Slice s = en.getValue();
                long start = time.startOf(en.getKey());
                List<Reply> r = new ArrayList<>(12);
                add(r, "start", Reply.integer(start));
                add(r, "end", Reply.integer(start + time.sliceMillis()));
                // A clock set back may leave a slice starting after now.
                add(r, "age", Reply.integer(Math.max(0, now - start)));
                add(r, "items", Reply.integer(s.items()));
                if (bytes) {
                  add(r, "bytes", Reply.integer(s.memoryBytes()));
                }
                add(r, "duplicates", Reply.integer(s.duplicates()));
                out.add(Reply.map(r));
              }
              return Reply.array(out);
            });
  }

  private static void add(List<Reply> r, String label, Reply value) {
    r.add(Reply.simple(label));
    r.add(value);
  }
}
