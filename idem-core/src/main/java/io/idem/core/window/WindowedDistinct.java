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

  /** Rows a query reads from the store in one call. */
  static final int READ_BATCH = 1024;

  /**
   * The most rows one set of additions may touch (each may hold a dense sketch of up to 48 KiB,
   * decoded and re-encoded until written).
   */
  public static final int MAX_ROWS_TOUCHED = 4096;

  private final int precision;

  /**
   * @param resolutions finest bucket first, each bucket at least {@link #MIN_BUCKET_MILLIS}
   * @param precision each bucket's sketch has 2^precision registers
   * @param cacheSlots rows the table keeps cached in front of its store (a power of two, at least
   *     4: one set of the cache's four ways), or 0
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
     * @throws IllegalArgumentException if these additions would touch more than {@link
     *     #MAX_ROWS_TOUCHED} rows
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
          if (read.size() == MAX_ROWS_TOUCHED) {
            throw new IllegalArgumentException(
                "a command may touch at most " + MAX_ROWS_TOUCHED + " rows of a distinct table");
          }
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
   * resolution[i]} up to and including the one that holds {@code end}. Name by name and resolution
   * by resolution, one running union goes from the newest bucket back, its windows shortest first,
   * and each window's estimate is taken when the union reaches the window's first bucket: each row
   * is read and merged once. Rows are read {@value #READ_BATCH} at a time.
   *
   * @throws IOException if a stored row is not a sketch of the table's precision
   */
  public double[][] estimates(
      RowSource source, byte[][] names, long[] millis, int[] resolution, long end)
      throws IOException {
    long[][] spans = spans(millis, resolution, end);
    long[] first = spans[0];
    long[] last = spans[1];
    double[][] estimates = new double[names.length][millis.length];
    for (int n = 0; n < names.length; n++) {
      for (int r = 0; r < resolutions.length; r++) {
        if (first[r] == Long.MAX_VALUE) {
          continue;
        }
        int at = r;
        int[] order =
            java.util.stream.IntStream.range(0, millis.length)
                .filter(w -> resolution[w] == at)
                .boxed()
                .sorted(java.util.Comparator.comparingLong(w -> millis[w]))
                .mapToInt(Integer::intValue)
                .toArray();
        long bucket = resolutions[r].bucketMillis();
        HyperLogLog union = HyperLogLog.create(precision);
        int next = 0;
        long lowest = Math.max(0, first[r]);
        for (long top = last[r]; top >= lowest && next < order.length; top -= READ_BATCH) {
          List<byte[]> keys = new ArrayList<>();
          for (long b = top; b >= Math.max(lowest, top - READ_BATCH + 1); b--) {
            keys.add(rowKey(r, b, names[n]));
          }
          List<byte @Nullable []> rows = read(source, keys);
          for (int i = 0; i < rows.size(); i++) {
            byte[] row = rows.get(i);
            if (row != null) {
              union.merge(decode(row));
            }
            while (next < order.length && top - i == last[r] - millis[order[next]] / bucket + 1) {
              estimates[n][order[next++]] = union.estimate();
            }
          }
        }
        while (next < order.length) { // windows that reach back before the epoch
          estimates[n][order[next++]] = union.estimate();
        }
      }
    }
    return estimates;
  }

  @Override
  public String toString() {
    return "WindowedDistinct{p=" + precision + ", " + resolutions().toString() + "}";
  }
}
