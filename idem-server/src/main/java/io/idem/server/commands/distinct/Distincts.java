package io.idem.server.commands.distinct;

import io.idem.core.window.Resolution;
import io.idem.core.window.WindowedDistinct;
import io.idem.server.commands.window.Windows;
import io.idem.server.engine.Entry;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the DISTINCT.* handlers share beyond {@link Windows}: limits, errors, the table at a key.
 */
final class Distincts {

  static final int MIN_PRECISION = 4;
  static final int MAX_PRECISION = 16;

  /** Redis's PF* precision: 0.81 % standard error, rows of at most 12 KiB. */
  static final int DEFAULT_PRECISION = 14;

  /**
   * Rows each table caches in front of the store: far fewer than a counter table's, as a row here
   * may be a dense sketch of up to 48 KiB (12 KiB at the default precision): at most 96 MiB (24
   * MiB).
   */
  static final int CACHE_SLOTS = 1 << 11;

  static final String BAD_PRECISION =
      "ERR precision must be an integer from " + MIN_PRECISION + " to " + MAX_PRECISION;
  static final String CORRUPT = "ERR the distinct table's rows in the store are corrupt";

  private Distincts() {}

  /** A new table: its rows cached, and none dropped yet (a new table has none). */
  static WindowedDistinct newTable(int precision, List<Resolution> resolutions, long now) {
    WindowedDistinct t = new WindowedDistinct(resolutions, precision, CACHE_SLOTS);
    t.startAt(now - Windows.DROP_MARGIN_MILLIS);
    return t;
  }

  /** The table at the entry, null if the key is free; WRONGTYPE if it holds another type. */
  static @Nullable WindowedDistinct tableOrNull(@Nullable Entry e) {
    return Entry.valueOrNull(e, DistinctCodec.INSTANCE);
  }
}
