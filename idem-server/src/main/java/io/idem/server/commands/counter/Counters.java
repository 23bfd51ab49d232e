package io.idem.server.commands.counter;

import io.idem.core.window.Resolution;
import io.idem.core.window.WindowedCounters;
import io.idem.server.commands.window.Windows;
import io.idem.server.engine.Entry;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** What the COUNTER.* handlers share beyond {@link Windows}: error texts and the table at a key. */
final class Counters {

  /**
   * Rows each table caches in front of the store (see RowCache): 6 MiB of arrays from the first row
   * a query reads, and each cached row's key and bytes with 56 bytes more (about 100 bytes for a
   * 30-byte name).
   */
  static final int CACHE_SLOTS = 1 << 20;

  /** A new table: its rows cached, and none dropped yet (a new table has none). */
  static WindowedCounters newTable(List<Resolution> resolutions, long now) {
    WindowedCounters t = new WindowedCounters(resolutions, CACHE_SLOTS);
    t.startAt(now - Windows.DROP_MARGIN_MILLIS);
    return t;
  }

  static final String OVERFLOW = "ERR increment or decrement would overflow";
  static final String SUM_OVERFLOW = "ERR a window's sum overflows a signed 64-bit integer";
  static final String CORRUPT = "ERR the counter table's rows in the store are corrupt";

  private Counters() {}

  /** The table at the entry, null if the key is free; WRONGTYPE if it holds another type. */
  static @Nullable WindowedCounters tableOrNull(@Nullable Entry e) {
    return Entry.valueOrNull(e, CounterCodec.INSTANCE);
  }
}
