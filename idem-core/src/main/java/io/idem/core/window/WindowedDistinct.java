package io.idem.core.window;

import io.idem.core.sketch.HyperLogLog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Windowed distinct counts: for any number of names, the distinct members added to each in time
 * buckets at one or more resolutions, estimated over any window that a resolution divides and still
 * keeps as the union of its buckets' HyperLogLogs. A union of sketches is the sketch of the union,
 * so a window's estimate has the error of one sketch of the table's precision (1.04 / √2^p),
 * however many buckets it spans.
 *
 * <p>A row holds one bucket of one name and resolution, the sketch in {@link HyperLogLog#toBytes}'s
 * encoding, keyed and expired as {@link WindowedTable} says with the bucket as the row index: a
 * u32, so buckets are at least {@link #MIN_BUCKET_MILLIS} (which reaches past year 9999). The
 * caller holds the table's lock for additions and drops; estimates only read rows.
 */
public final class WindowedDistinct extends WindowedTable {

  /** The finest bucket: a bucket's number must fit the row key's 32 bits. */
  public static final long MIN_BUCKET_MILLIS = 60_000;

  private final int precision;

  /**
   * @param resolutions finest bucket first, each bucket at least {@link #MIN_BUCKET_MILLIS}
   * @param precision each bucket's sketch has 2^precision registers
   * @param cacheSlots rows the table keeps cached in front of its store (a power of two), or 0
   */
  public WindowedDistinct(List<Resolution> resolutions, int precision, int cacheSlots) {
    super(resolutions, 1, cacheSlots);
    for (Resolution r : resolutions) {
      String bad = problem(r);
      if (bad != null) {
        throw new IllegalArgumentException(bad);
      }
    }
    if (precision < HyperLogLog.MIN_PRECISION || precision > HyperLogLog.MAX_PRECISION) {
      throw new IllegalArgumentException("precision " + precision + " out of range");
    }
    this.precision = precision;
  }

  /**
   * What keeps this resolution from a distinct table (beyond {@link Resolution}'s rules), or null.
   */
  public static @Nullable String problem(Resolution r) {
    return r.bucketMillis() < MIN_BUCKET_MILLIS
        ? "a distinct table's bucket must be at least 1m"
        : null;
  }

  public int precision() {
    return precision;
  }

  /** The relative standard error of every estimate: 1.04 / √2^p. */
  public double relativeStandardError() {
    return 1.04 / Math.sqrt(1 << precision);
  }

  /** A new set of additions, to be written together or not at all. */
  public Additions additions(RowSource source, long now) {
    return new Additions(source, now);
  }

  /** Additions made against a row source, on the decoded rows they touch, until written. */
  public final class Additions {
    private final RowSource source;
    private final long now;
    private final Map<ByteBuffer, HyperLogLog> read = new LinkedHashMap<>();
    private final Map<ByteBuffer, HyperLogLog> changed = new LinkedHashMap<>();

    private Additions(RowSource source, long now) {
      this.source = source;
      this.now = now;
    }

    /**
     * Adds a member, by its 64-bit hash, to the name's bucket of {@code time} at every resolution
     * that keeps it (see {@link #keeping}).
     *
     * @return whether a register rose at any of them: false means the member was, as far as the
     *     sketches tell, counted there already
     * @throws IOException if a stored row is not a sketch of the table's precision
     */
    public boolean add(byte[] name, long time, long hash) throws IOException {
      boolean rose = false;
      for (int r = 0; r < resolutions.length; r++) {
        if (!keeps(r, time, now)) {
          continue;
        }
        ByteBuffer key = ByteBuffer.wrap(rowKey(r, resolutions[r].bucket(time), name));
        HyperLogLog sketch = read.get(key);
        if (sketch == null) {
          sketch = decode(cachedOrStored(source, key.array()));
          read.put(key, sketch);
        }
        if (sketch.add(hash)) {
          changed.put(key, sketch);
          rose = true;
        }
      }
      return rose;
    }

    /** Whether any register rose: if not, there is nothing to write. */
    public boolean changedAny() {
      return !changed.isEmpty();
    }

    /**
     * Hands every row whose sketch rose to {@code sink} in one call, through the row cache (see
     * {@link WindowedTable#write}).
     */
    public void writeTo(RowSink sink) {
      List<byte[]> keys = new ArrayList<>(changed.size());
      List<byte @Nullable []> rows = new ArrayList<>(changed.size());
      for (Map.Entry<ByteBuffer, HyperLogLog> e : changed.entrySet()) {
        keys.add(e.getKey().array());
        rows.add(e.getValue().toBytes());
      }
      write(keys, rows, sink);
    }
  }

  private HyperLogLog decode(byte @Nullable [] row) throws IOException {
    if (row == null) {
      return HyperLogLog.create(precision);
    }
    HyperLogLog h = HyperLogLog.fromBytes(row);
    if (h.precision() != precision) {
      throw new IOException(
          "a row's sketch has precision " + h.precision() + ", the table's is " + precision);
    }
    return h;
  }

  /**
   * The names' estimated distinct members over windows that all end at {@code end}: the window of
   * {@code millis[i]} is the union of the {@code millis[i] / bucket} buckets of resolution {@code
   * resolution[i]} up to and including the one that holds {@code end}. Rows are read in one call.
   *
   * @throws IOException if a stored row is not a sketch of the table's precision
   */
  public double[][] estimates(
      RowSource source, byte[][] names, long[] millis, int[] resolution, long end)
      throws IOException {
    long[][] spans = spans(millis, resolution, end);
    long[] first = spans[0];
    long[] last = spans[1];
    List<byte[]> keys = new ArrayList<>();
    for (byte[] name : names) {
      for (int r = 0; r < resolutions.length; r++) {
        for (long b = Math.max(0, first[r]); b <= last[r] && first[r] != Long.MAX_VALUE; b++) {
          keys.add(rowKey(r, b, name));
        }
      }
    }
    List<byte @Nullable []> stored = read(source, keys);
    double[][] estimates = new double[names.length][millis.length];
    int k = 0;
    for (double[] nameEstimates : estimates) {
      HyperLogLog[] unions = new HyperLogLog[millis.length];
      for (int w = 0; w < millis.length; w++) {
        unions[w] = HyperLogLog.create(precision);
      }
      for (int r = 0; r < resolutions.length; r++) {
        for (long b = Math.max(0, first[r]); b <= last[r] && first[r] != Long.MAX_VALUE; b++) {
          byte[] row = stored.get(k++);
          if (row == null) {
            continue;
          }
          HyperLogLog sketch = decode(row);
          for (int w = 0; w < millis.length; w++) {
            if (resolution[w] == r && b > last[r] - millis[w] / resolutions[r].bucketMillis()) {
              unions[w].merge(sketch);
            }
          }
        }
      }
      for (int w = 0; w < millis.length; w++) {
        nameEstimates[w] = unions[w].estimate();
      }
    }
    return estimates;
  }

  @Override
  public String toString() {
    return "WindowedDistinct{p=" + precision + ", " + resolutions().toString() + "}";
  }
}
