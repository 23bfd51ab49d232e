package io.idem.server.commands.dedup;

import io.idem.core.dedup.ExactTable;
import io.idem.core.store.RowChange;
import io.idem.server.engine.Engine;
import io.idem.server.engine.Entry;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The steps of a dedup table's background write, one at a time, so a test can run commands between
 * them: what the background thread does in one go.
 */
public final class BackgroundSteps {

  private BackgroundSteps() {}

  /** Step 1: hands the pending claims over; null if none (or a write is under way). */
  public static @Nullable List<RowChange> start(Engine engine, String key) {
    Entry e = engine.peek(key.getBytes(java.nio.charset.StandardCharsets.UTF_8), x -> x);
    ExactTable t = (ExactTable) e.value();
    return engine.writeEntry(e, tx -> t.startFlush(engine.now(), true));
  }

  /** Steps 2 and 3: writes the rows, then logs what undoes the races. */
  public static void finish(Engine engine, String key, List<RowChange> puts) {
    Entry e = engine.peek(key.getBytes(java.nio.charset.StandardCharsets.UTF_8), x -> x);
    ExactTable t = (ExactTable) e.value();
    engine.rows().writeNow(e.id(), puts);
    DedupCodec.finishWrite(engine, e, t);
  }

  /** Claims pending in memory (not yet rows), including those being written. */
  public static int pending(Engine engine, String key) {
    Entry e = engine.peek(key.getBytes(java.nio.charset.StandardCharsets.UTF_8), x -> x);
    ExactTable t = (ExactTable) e.value();
    return t.unwrittenClaims();
  }
}
