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

  /** The table at the key, or a new one with the default resolutions if the key is free. */
  static WindowedCounters tableToWrite(io.idem.server.engine.KeyTx tx, long now) {
    WindowedCounters table = tableOrNull(tx.entry());
    return table != null ? table : newTable(Windows.DEFAULT, now);
  }

  /**
   * Counts {@code deltas[i]} for {@code names[i]} at {@code time} in {@code table} ({@link
   * #tableToWrite}'s), making it the key's value first if the key is free, and writes the rows: all
   * or nothing, an overflow or a corrupt row is an error that changes nothing.
   */
  static void count(
      io.idem.server.engine.KeyTx tx,
      io.idem.server.engine.Rows rows,
      WindowedCounters table,
      long now,
      long time,
      byte[][] names,
      long[] deltas) {
    boolean create = tx.entry() == null;
    WindowedCounters.Increments inc =
        table.increments(Windows.rowSource(rows, create ? -1 : tx.entry().id()), now);
    try {
      for (int i = 0; i < names.length; i++) {
        inc.add(names[i], time, deltas[i]);
      }
    } catch (ArithmeticException e) {
      throw new io.idem.server.dispatch.CommandException(OVERFLOW);
    } catch (java.io.IOException e) {
      throw new io.idem.server.dispatch.CommandException(CORRUPT);
    }
    if (create) {
      tx.create(CounterCodec.INSTANCE, table, CounterCodec.recipe(Windows.DEFAULT));
    }
    inc.writeTo(Windows.rowSink(tx)); // readers see the rows from here on
  }
}
