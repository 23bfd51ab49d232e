package io.idem.server.commands.counter;

import io.idem.core.window.Resolution;
import io.idem.core.window.WindowedCounters;
import io.idem.server.command.Call;
import io.idem.server.command.CommandException;
import io.idem.server.commands.generic.Parse;
import io.idem.server.engine.Entry;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** What the COUNTER.* handlers share: arguments, limits, error texts and the table at a key. */
final class Counters {

  static final int MAX_NAME_BYTES = 1024;

  /**
   * Rows each table caches in front of the store (see RowCache): a 4 MiB slot array from the first
   * row read or written, and each cached row's key and bytes with 56 bytes more (about 100 bytes
   * for a 30-byte name).
   */
  static final int CACHE_SLOTS = 1 << 20;

  /** A new table: its rows cached, and none dropped yet (a new table has none). */
  static WindowedCounters newTable(List<Resolution> resolutions, long now) {
    WindowedCounters t = new WindowedCounters(resolutions, CACHE_SLOTS);
    t.startAt(now - CounterCodec.DROP_MARGIN_MILLIS);
    return t;
  }

  /** Minute buckets for windows of up to two hours, hour buckets for up to eight days. */
  static final List<Resolution> DEFAULT =
      List.of(new Resolution(60_000, 2 * 3_600_000), new Resolution(3_600_000, 8 * 86_400_000L));

  static final String NOT_FOUND = "ERR not found";
  static final String EXISTS = "ERR item exists";
  static final String BAD_TIME =
      "ERR time must be * or a Unix time in milliseconds, from 0 to the end of year 9999";
  static final String TOO_OLD = "ERR the event is older than the retention of every resolution";
  static final String TOO_NEW =
      "ERR the event is further ahead of the server's clock than the longest retention";
  static final String OVERFLOW = "ERR increment or decrement would overflow";
  static final String SUM_OVERFLOW = "ERR a window's sum overflows a signed 64-bit integer";
  static final String BAD_WINDOW =
      "ERR a window must be seconds or a duration such as 90s, 15m, 24h or 7d";
  static final String NAME_TOO_LONG = "ERR name longer than " + MAX_NAME_BYTES + " bytes";
  static final String TOO_MANY_RESOLUTIONS =
      "ERR a table has at most " + WindowedCounters.MAX_RESOLUTIONS + " resolutions";
  static final String SAME_BUCKET = "ERR two resolutions with the same bucket";
  static final String CORRUPT = "ERR the counter table's rows in the store are corrupt";

  private Counters() {}

  /** The table at the entry, null if the key is free; WRONGTYPE if it holds another type. */
  static @Nullable WindowedCounters tableOrNull(@Nullable Entry e) {
    return Entry.valueOrNull(e, CounterCodec.INSTANCE);
  }

  /** A time argument: {@code *} for the server's clock, else Unix milliseconds. */
  static long time(Call call, int i, long now) {
    if (call.is(i, "*")) {
      return now;
    }
    Long t = Parse.longOrNull(call.arg(i));
    if (t == null || t < 0 || t > WindowedCounters.MAX_TIME) {
      throw new CommandException(BAD_TIME);
    }
    return t;
  }

  static long window(byte[] arg) {
    Long millis = Parse.durationMillisOrNull(arg);
    if (millis == null) {
      throw new CommandException(BAD_WINDOW);
    }
    return millis;
  }

  static byte[] name(Call call, int i) {
    byte[] name = call.arg(i);
    if (name.length > MAX_NAME_BYTES) {
      throw new CommandException(NAME_TOO_LONG);
    }
    return name;
  }

  /** A duration as a user would write it: 90s, 15m, 2h, 8d, or milliseconds. */
  static String show(long millis) {
    for (long[] u :
        new long[][] {{86_400_000, 'd'}, {3_600_000, 'h'}, {60_000, 'm'}, {1000, 's'}}) {
      if (millis % u[0] == 0) {
        return millis / u[0] + String.valueOf((char) u[1]);
      }
    }
    return millis + "ms";
  }
}
