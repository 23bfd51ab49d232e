package io.idem.core.window;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Exact windowed counters: for any number of names, signed 64-bit counts in time buckets at one or
 * more resolutions (say minutes kept 2 hours and hours kept 8 days), summed over any window that a
 * resolution divides and still keeps.
 *
 * <p>Counts live in rows of a store the caller provides (the server's RocksDB rows, or a Kafka
 * Streams state store), {@link #SLOTS} buckets of one name and resolution to a row, keyed and
 * expired as {@link WindowedTable} says. The caller holds the table's lock for increments and
 * drops; sums only read rows, so they may run without it.
 */
public final class WindowedCounters extends WindowedTable {

  /** Buckets of one name and resolution in one row. */
  public static final int SLOTS = 64;

  /** A table without a row cache: every read goes to the store. */
  public WindowedCounters(List<Resolution> resolutions) {
    this(resolutions, 0);
  }

  /**
   * @param resolutions finest bucket first, buckets strictly increasing, 1 to {@link
   *     #MAX_RESOLUTIONS} of them
   * @param cacheSlots rows the table keeps cached in front of its store (a power of two, at least
   *     4: one set of the cache's four ways), or 0; with a cache, the rows last incremented are
   *     kept for the next increments too
   */
  public WindowedCounters(List<Resolution> resolutions, int cacheSlots) {
    super(
        resolutions,
        SLOTS,
        cacheSlots,
        cacheSlots == 0 ? 0 : Math.min(cacheSlots, WRITTEN_SLOTS),
        WRITTEN_BYTES);
  }

  /**
   * With a row cache, the rows last incremented that the next increments read without the store
   * (see WrittenRows): enough slots for a loading table's hot names at two resolutions, and a byte
   * bound so that rows of many counts cannot grow the table's memory without limit.
   */
  static final int WRITTEN_SLOTS = 1 << 15;

  static final long WRITTEN_BYTES = 8L << 20;

  /** A new set of increments, to be applied together or not at all. */
  public Increments increments(RowSource source, long now) {
    return new Increments(source, now);
  }

  /**
   * Increments made against a row source: each changes the decoded rows it touches here, so the
   * caller can check every one (an overflow throws) before it writes any.
   */
  public final class Increments {
    private final RowSource source;
    private final long now;
    private final Map<ByteBuffer, long[]> changed = new LinkedHashMap<>();

    private Increments(RowSource source, long now) {
      this.source = source;
      this.now = now;
    }

    /**
     * Adds {@code delta} to the name's bucket of {@code time} at every resolution that keeps it
     * (see {@link #keeping}).
     *
     * @throws ArithmeticException if a bucket's count would overflow 64 bits
     * @throws IOException if a stored row is not a row
     */
    public void add(byte[] name, long time, long delta) throws IOException {
      for (int r = 0; r < resolutions.length; r++) {
        if (!keeps(r, time, now)) {
          continue;
        }
        long b = resolutions[r].bucket(time);
        long[] counts = row(rowKey(r, Math.floorDiv(b, SLOTS), name));
        int slot = (int) Math.floorMod(b, SLOTS);
        counts[slot] = Math.addExact(counts[slot], delta);
      }
    }

    private long[] row(byte[] key) throws IOException {
      ByteBuffer k = ByteBuffer.wrap(key);
      long[] counts = changed.get(k);
      if (counts == null) {
        counts = new long[SLOTS];
        byte[] stored = cachedOrStored(source, key);
        if (stored != null) {
          CounterRow.decode(stored, counts);
        }
        changed.put(k, counts);
      }
      return counts;
    }

    /**
     * Hands every row these increments touched to {@code sink} in one call, in the order first
     * touched, through the row cache (see {@link WindowedTable#write}).
     */
    public void writeTo(RowSink sink) {
      List<byte[]> keys = new java.util.ArrayList<>(changed.size());
      List<byte @Nullable []> rows = new java.util.ArrayList<>(changed.size());
      for (Map.Entry<ByteBuffer, long[]> e : changed.entrySet()) {
        keys.add(e.getKey().array());
        rows.add(CounterRow.encode(e.getValue()));
      }
      write(keys, rows, sink);
    }
  }

  /**
   * The name's sums over windows that all end at {@code end}: the window of {@code millis[i]}
   * covers the {@code millis[i] / bucket} buckets of resolution {@code resolution[i]} up to and
   * including the one that holds {@code end}.
   *
   * @throws ArithmeticException if a sum overflows 64 bits
   * @throws IOException if a stored row is not a row
   */
  public long[] sums(RowSource source, byte[] name, long[] millis, int[] resolution, long end)
      throws IOException {
    return sums(source, new byte[][] {name}, millis, resolution, end);
  }

  /**
   * As {@link #sums(RowSource, byte[], long[], int[], long)} for many names, in one read: name
   * {@code n}'s sum over window {@code w} at {@code [n * millis.length + w]}.
   */
  public long[] sums(RowSource source, byte[][] names, long[] millis, int[] resolution, long end)
      throws IOException {
    // The rows every name needs, each once however many windows it serves: read together.
    long[][] spans = spans(millis, resolution, end);
    long[] first = spans[0];
    long[] last = spans[1];
    long rowsPerName = 0; // sized up front: growing the references would cost a query more
    for (int r = 0; r < resolutions.length; r++) {
      if (first[r] != Long.MAX_VALUE) {
        rowsPerName += Math.floorDiv(last[r], SLOTS) - Math.floorDiv(first[r], SLOTS) + 1;
      }
    }
    RowRefs refs = new RowRefs(names, (int) Math.min(names.length * rowsPerName, 1 << 16));
    for (int n = 0; n < names.length; n++) {
      for (int r = 0; r < resolutions.length; r++) {
        if (first[r] == Long.MAX_VALUE) {
          continue;
        }
        for (long e = Math.floorDiv(first[r], SLOTS); e <= Math.floorDiv(last[r], SLOTS); e++) {
          if (e >= 0) {
            refs.add(r, e, n);
          }
        }
      }
    }
    byte[][] stored = read(source, refs);
    long[] sums = new long[names.length * millis.length];
    int k = 0;
    for (int at = 0; at < sums.length; at += millis.length) {
      for (int r = 0; r < resolutions.length; r++) {
        if (first[r] == Long.MAX_VALUE) {
          continue;
        }
        long bucket = resolutions[r].bucketMillis();
        for (long e = Math.floorDiv(first[r], SLOTS); e <= Math.floorDiv(last[r], SLOTS); e++) {
          byte[] row = e < 0 ? null : stored[k++];
          if (row == null) {
            continue;
          }
          long base = e * SLOTS;
          boolean summed = false;
          for (int w = 0; w < millis.length; w++) {
            if (resolution[w] != r) {
              continue;
            }
            long from = Math.max(base, last[r] - millis[w] / bucket + 1);
            long to = Math.min(base + SLOTS - 1, last[r]);
            if (from <= to) {
              sums[at + w] =
                  CounterRow.sum(row, (int) (from - base), (int) (to - base), sums[at + w]);
              summed = true;
            }
          }
          if (!summed) {
            CounterRow.sum(row, 0, -1, 0); // a row read is checked, whether or not a window adds it
          }
        }
      }
    }
    return sums;
  }

  @Override
  public String toString() {
    return "WindowedCounters" + Arrays.toString(resolutions);
  }
}
