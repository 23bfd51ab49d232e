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
 * Streams state store), {@link #SLOTS} buckets of one name and resolution to a row, keyed
 *
 * <pre>
 * u8   resolution   its index in the table, finest first
 * u32  epoch        bucket / 64, unsigned, big-endian: rows of one time sort together
 * ...  name         the name's bytes
 * </pre>
 *
 * so every row of a resolution older than some epoch is one key range, and expiry deletes that
 * range: nothing is scanned. This object holds only the resolutions and how far rows have been
 * dropped; it expects its caller to hold the table's lock for increments and drops. Sums only read
 * rows, so they may run without it.
 */
public final class WindowedCounters {

  /** Buckets of one name and resolution in one row. */
  public static final int SLOTS = 64;

  /** The last millisecond of year 9999: the latest event time. */
  public static final long MAX_TIME = 253_402_300_799_999L;

  public static final int MAX_RESOLUTIONS = 8;

  /** Returned by {@link #resolve} when no resolution divides the window and keeps that long. */
  public static final int NO_RESOLUTION = -1;

  /** Returned by {@link #resolve} when the window reaches before what is kept. */
  public static final int NOT_KEPT = -2;

  /** Reads rows; null for a key with none. */
  @FunctionalInterface
  public interface RowSource {
    byte @Nullable [] row(byte[] key);

    /** Many rows at once, in the keys' order: a store may read them in one call. */
    default List<byte @Nullable []> rows(List<byte[]> keys) {
      List<byte @Nullable []> out = new java.util.ArrayList<>(keys.size());
      for (byte[] k : keys) {
        out.add(row(k));
      }
      return out;
    }
  }

  /** Receives changed rows together: each one's new bytes, or null when it is to be deleted. */
  @FunctionalInterface
  public interface RowSink {
    void accept(List<byte[]> keys, List<byte @Nullable []> rows);
  }

  private final Resolution[] resolutions;

  /** Per resolution, the epoch below which rows have been dropped (or are being dropped). */
  private final long[] droppedBelow;

  private final long longestRetention;

  private final @Nullable RowCache cache;

  /** A table without a row cache: every read goes to the store. */
  public WindowedCounters(List<Resolution> resolutions) {
    this(resolutions, 0);
  }

  /**
   * @param resolutions finest bucket first, buckets strictly increasing, 1 to {@link
   *     #MAX_RESOLUTIONS} of them
   * @param cacheSlots rows the table keeps cached in front of its store (a power of two), or 0
   */
  public WindowedCounters(List<Resolution> resolutions, int cacheSlots) {
    if (resolutions.isEmpty() || resolutions.size() > MAX_RESOLUTIONS) {
      throw new IllegalArgumentException("from 1 to " + MAX_RESOLUTIONS + " resolutions");
    }
    this.resolutions = resolutions.toArray(new Resolution[0]);
    long longest = 0;
    for (int i = 0; i < this.resolutions.length; i++) {
      if (i > 0 && this.resolutions[i].bucketMillis() <= this.resolutions[i - 1].bucketMillis()) {
        throw new IllegalArgumentException("resolutions must go from finest to coarsest bucket");
      }
      longest = Math.max(longest, this.resolutions[i].retentionMillis());
    }
    this.longestRetention = longest;
    this.droppedBelow = new long[this.resolutions.length];
    this.cache = cacheSlots == 0 ? null : new RowCache(cacheSlots);
  }

  /** The rows that may be cached in front of the store, or 0. */
  public int cacheSlots() {
    return cache == null ? 0 : cache.slots();
  }

  /** The rows cached now. */
  public int cachedRows() {
    return cache == null ? 0 : cache.filled();
  }

  /** Bytes of memory the row cache holds now. */
  public long cacheBytes() {
    return cache == null ? 0 : cache.bytes();
  }

  public List<Resolution> resolutions() {
    return List.of(resolutions);
  }

  /** The latest event time accepted at {@code now}: one longest retention ahead. */
  public long latestTime(long now) {
    return Math.min(MAX_TIME, now + longestRetention);
  }

  /** A row's key. */
  public static byte[] rowKey(int resolution, long epoch, byte[] name) {
    return ByteBuffer.allocate(5 + name.length)
        .put((byte) resolution)
        .putInt((int) epoch)
        .put(name)
        .array();
  }

  /**
   * How many resolutions still keep a bucket for an event at {@code time}: the ones it will be
   * counted in. Zero means the event is older than every retention.
   */
  public int keeping(long time, long now) {
    int n = 0;
    for (int r = 0; r < resolutions.length; r++) {
      if (keeps(r, time, now)) {
        n++;
      }
    }
    return n;
  }

  private boolean keeps(int r, long time, long now) {
    long b = resolutions[r].bucket(time);
    return b >= resolutions[r].firstKept(now) && Math.floorDiv(b, SLOTS) >= droppedBelow[r];
  }

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
     * touched, and puts them in the row cache. The sink must make them what the store reads from
     * then on before it returns: readers that miss the cache fill it from the store once the write
     * is over, so a row the store had not taken yet would be cached old.
     */
    public void writeTo(RowSink sink) {
      List<byte[]> keys = new java.util.ArrayList<>(changed.size());
      List<byte @Nullable []> rows = new java.util.ArrayList<>(changed.size());
      for (Map.Entry<ByteBuffer, long[]> e : changed.entrySet()) {
        keys.add(e.getKey().array());
        rows.add(CounterRow.encode(e.getValue()));
      }
      if (cache == null) {
        sink.accept(keys, rows);
        return;
      }
      cache.beginWrite();
      try {
        // The cache first: a reader must never find it behind the store.
        for (int i = 0; i < keys.size(); i++) {
          cache.put(keys.get(i), rows.get(i));
        }
        sink.accept(keys, rows);
      } finally {
        cache.endWrite();
      }
    }
  }

  /**
   * The resolution a window of {@code millis} ending at {@code end} is summed at: the finest whose
   * bucket divides it and that keeps every bucket it covers at {@code now}.
   *
   * @return the resolution's index, {@link #NO_RESOLUTION} if none divides the window and keeps
   *     that long, or {@link #NOT_KEPT} if some does but the window reaches before what it keeps
   */
  public int resolve(long millis, long end, long now) {
    int found = NO_RESOLUTION;
    for (int r = 0; r < resolutions.length; r++) {
      Resolution res = resolutions[r];
      if (millis % res.bucketMillis() != 0 || millis > res.retentionMillis()) {
        continue;
      }
      found = NOT_KEPT;
      long first = res.bucket(end) - millis / res.bucketMillis() + 1;
      if (first >= res.firstKept(now)) {
        return r;
      }
    }
    return found;
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
    return sums(source, new byte[][] {name}, millis, resolution, end)[0];
  }

  /** As {@link #sums(RowSource, byte[], long[], int[], long)} for many names, in one read. */
  public long[][] sums(RowSource source, byte[][] names, long[] millis, int[] resolution, long end)
      throws IOException {
    // The rows every name needs, each once however many windows it serves: read together.
    long[] first = new long[resolutions.length];
    long[] last = new long[resolutions.length];
    Arrays.fill(first, Long.MAX_VALUE);
    for (int w = 0; w < millis.length; w++) {
      Resolution res = resolutions[resolution[w]];
      last[resolution[w]] = res.bucket(end);
      first[resolution[w]] =
          Math.min(first[resolution[w]], res.bucket(end) - millis[w] / res.bucketMillis() + 1);
    }
    List<byte[]> keys = new java.util.ArrayList<>();
    for (byte[] name : names) {
      for (int r = 0; r < resolutions.length; r++) {
        if (first[r] == Long.MAX_VALUE) {
          continue;
        }
        for (long e = Math.floorDiv(first[r], SLOTS); e <= Math.floorDiv(last[r], SLOTS); e++) {
          if (e >= 0) {
            keys.add(rowKey(r, e, name));
          }
        }
      }
    }
    List<byte @Nullable []> stored = read(source, keys);
    long[][] sums = new long[names.length][millis.length];
    long[] counts = new long[SLOTS];
    int k = 0;
    for (long[] nameSums : sums) {
      for (int r = 0; r < resolutions.length; r++) {
        if (first[r] == Long.MAX_VALUE) {
          continue;
        }
        long bucket = resolutions[r].bucketMillis();
        for (long e = Math.floorDiv(first[r], SLOTS); e <= Math.floorDiv(last[r], SLOTS); e++) {
          byte[] row = e < 0 ? null : stored.get(k++);
          if (row == null) {
            continue;
          }
          CounterRow.decode(row, counts);
          long base = e * SLOTS;
          for (int w = 0; w < millis.length; w++) {
            if (resolution[w] != r) {
              continue;
            }
            long from = Math.max(base, last[r] - millis[w] / bucket + 1);
            long to = Math.min(base + SLOTS - 1, last[r]);
            for (long b = from; b <= to; b++) {
              nameSums[w] = Math.addExact(nameSums[w], counts[(int) (b - base)]);
            }
          }
        }
      }
    }
    return sums;
  }

  /** A row through the cache (the caller holds the table's lock: nothing writes meanwhile). */
  private byte @Nullable [] cachedOrStored(RowSource source, byte[] key) {
    if (cache != null) {
      Object hit = cache.get(key);
      if (hit != RowCache.MISS) {
        return (byte[]) hit;
      }
    }
    return source.row(key);
  }

  /** Rows through the cache: what it lacks is read from the store in one call, then cached. */
  private List<byte @Nullable []> read(RowSource source, List<byte[]> keys) {
    if (cache == null) {
      return source.rows(keys);
    }
    List<byte @Nullable []> out = new java.util.ArrayList<>(keys.size());
    List<byte[]> missing = new java.util.ArrayList<>(keys.size());
    int[] where = new int[keys.size()];
    for (byte[] key : keys) {
      Object hit = cache.get(key);
      if (hit == RowCache.MISS) {
        where[missing.size()] = out.size();
        missing.add(key);
        out.add(null);
      } else {
        out.add((byte[]) hit);
      }
    }
    if (!missing.isEmpty()) {
      long ticket = cache.readTicket();
      List<byte @Nullable []> stored = source.rows(missing);
      for (int i = 0; i < missing.size(); i++) {
        out.set(where[i], stored.get(i));
        cache.fill(ticket, missing.get(i), stored.get(i));
      }
    }
    return out;
  }

  /**
   * Marks every row that no longer holds a kept bucket at {@code now} as dropped, and hands the
   * caller the key ranges to delete: [from, to) pairs, one per resolution that has rows newly past
   * its retention. Each range starts at epoch 0, so it also takes any row an earlier range missed.
   * Increments no longer reach a dropped row.
   */
  public List<byte[][]> drop(long now) {
    List<byte[][]> ranges = new java.util.ArrayList<>();
    for (int r = 0; r < resolutions.length; r++) {
      long below = Math.floorDiv(resolutions[r].firstKept(now), SLOTS);
      if (below > droppedBelow[r]) {
        droppedBelow[r] = below;
        ranges.add(new byte[][] {rowKey(r, 0, new byte[0]), rowKey(r, below, new byte[0])});
      }
    }
    return ranges;
  }

  /**
   * Whether {@link #drop} would drop anything at {@code now}. It reads without the lock, so it is a
   * hint: the caller takes the lock and drops only when it says so.
   */
  public boolean dropDue(long now) {
    for (int r = 0; r < resolutions.length; r++) {
      if (Math.floorDiv(resolutions[r].firstKept(now), SLOTS) > droppedBelow[r]) {
        return true;
      }
    }
    return false;
  }

  /**
   * Takes every row past its retention at {@code now} as dropped without a range to delete: for a
   * new table, which has no rows yet.
   */
  public void startAt(long now) {
    drop(now);
  }

  /** The epoch below which a resolution's rows are dropped. */
  public long droppedBelow(int resolution) {
    return droppedBelow[resolution];
  }

  @Override
  public String toString() {
    return "WindowedCounters" + Arrays.toString(resolutions);
  }
}
