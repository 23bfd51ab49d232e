package io.idem.core.window;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What every windowed table shares: its resolutions, the rows that hold its buckets, their expiry
 * by whole key ranges, and a row cache in front of the caller's store. A row holds {@code
 * bucketsPerRow} buckets of one name and resolution, keyed
 *
 * <pre>
 * u8   resolution   its index in the table, finest first
 * u32  row index    bucket / bucketsPerRow, unsigned, big-endian: rows of one time sort together
 * ...  name         the name's bytes
 * </pre>
 *
 * so every row of a resolution older than some index is one key range, and expiry deletes that
 * range: nothing is scanned. The table holds only the resolutions and how far rows have been
 * dropped; writers and drops hold the table's lock, reads of rows may run without it.
 */
public abstract class WindowedTable {

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

  /** Finest bucket first. */
  protected final Resolution[] resolutions;

  private final int bucketsPerRow;

  /** Per resolution, the row index below which rows have been dropped (or are being dropped). */
  private final long[] droppedBelow;

  private final long longestRetention;

  protected final @Nullable RowCache cache;

  /** The rows writers wrote last, read by writers only; null if the table keeps none. */
  private final @Nullable WrittenRows written;

  /**
   * @param resolutions finest bucket first, buckets strictly increasing, 1 to {@link
   *     #MAX_RESOLUTIONS} of them
   * @param bucketsPerRow buckets of one name and resolution that share a row
   * @param cacheSlots rows the table keeps cached in front of its store (a power of two, at least
   *     4: one set of the cache's four ways), or 0
   */
  protected WindowedTable(List<Resolution> resolutions, int bucketsPerRow, int cacheSlots) {
    this(resolutions, bucketsPerRow, cacheSlots, 0, 0);
  }

  /**
   * As {@link #WindowedTable(List, int, int)}, keeping also the rows last written for the writers'
   * next reads.
   *
   * @param writtenSlots rows last written that writers find without the store (a power of two, at
   *     least 4), or 0
   * @param writtenBytes the most bytes those rows take, the slots included
   */
  protected WindowedTable(
      List<Resolution> resolutions,
      int bucketsPerRow,
      int cacheSlots,
      int writtenSlots,
      long writtenBytes) {
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
    this.bucketsPerRow = bucketsPerRow;
    this.longestRetention = longest;
    this.droppedBelow = new long[this.resolutions.length];
    this.cache = cacheSlots == 0 ? null : new RowCache(cacheSlots);
    this.written = writtenSlots == 0 ? null : new WrittenRows(writtenSlots, writtenBytes);
  }

  /** The rows that may be cached in front of the store, or 0. */
  public int cacheSlots() {
    return cache == null ? 0 : cache.slots();
  }

  /** The rows cached now. */
  public int cachedRows() {
    return cache == null ? 0 : cache.filled();
  }

  /** Bytes of memory the row caches hold now: the queries' and the writers'. */
  public long cacheBytes() {
    return (cache == null ? 0 : cache.bytes()) + (written == null ? 0 : written.bytes());
  }

  public List<Resolution> resolutions() {
    return List.of(resolutions);
  }

  /** The latest event time accepted at {@code now}: one longest retention ahead. */
  public long latestTime(long now) {
    return Math.min(MAX_TIME, now + longestRetention);
  }

  /** A row's key. */
  public static byte[] rowKey(int resolution, long row, byte[] name) {
    byte[] key = new byte[5 + name.length];
    key[0] = (byte) resolution;
    key[1] = (byte) (row >>> 24);
    key[2] = (byte) (row >>> 16);
    key[3] = (byte) (row >>> 8);
    key[4] = (byte) row;
    System.arraycopy(name, 0, key, 5, name.length);
    return key;
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

  /** Whether resolution {@code r} still keeps a bucket for an event at {@code time}. */
  protected boolean keeps(int r, long time, long now) {
    long b = resolutions[r].bucket(time);
    return b >= resolutions[r].firstKept(now) && Math.floorDiv(b, bucketsPerRow) >= droppedBelow[r];
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
   * Per resolution, the first and the last bucket that windows of {@code millis[i]} ending at
   * {@code end}, read at {@code resolution[i]}, cover: {first, last}, first being {@code
   * Long.MAX_VALUE} at a resolution no window reads.
   */
  protected long[][] spans(long[] millis, int[] resolution, long end) {
    long[] first = new long[resolutions.length];
    long[] last = new long[resolutions.length];
    java.util.Arrays.fill(first, Long.MAX_VALUE);
    for (int w = 0; w < millis.length; w++) {
      Resolution res = resolutions[resolution[w]];
      last[resolution[w]] = res.bucket(end);
      first[resolution[w]] =
          Math.min(first[resolution[w]], res.bucket(end) - millis[w] / res.bucketMillis() + 1);
    }
    return new long[][] {first, last};
  }

  /**
   * How many rows reading windows of {@code millis[i]} ending at {@code end}, at {@code
   * resolution[i]}, reads for one name: what a query's cost is bounded by.
   */
  public long rowsRead(long[] millis, int[] resolution, long end) {
    long[][] spans = spans(millis, resolution, end);
    long rows = 0;
    for (int r = 0; r < resolutions.length; r++) {
      if (spans[0][r] != Long.MAX_VALUE && spans[1][r] >= 0) {
        rows +=
            Math.floorDiv(spans[1][r], bucketsPerRow)
                - Math.floorDiv(Math.max(0, spans[0][r]), bucketsPerRow)
                + 1;
      }
    }
    return rows;
  }

  /**
   * Hands changed rows to {@code sink} in one call, updating those the row cache holds. The sink
   * must make them what the store reads from then on before it returns: readers that miss the cache
   * fill it from the store once the write is over, so a row the store had not taken yet would be
   * cached old. The caller holds the table's lock.
   */
  protected void write(List<byte[]> keys, List<byte @Nullable []> rows, RowSink sink) {
    if (written != null) {
      for (int i = 0; i < keys.size(); i++) {
        written.put(keys.get(i), rows.get(i));
      }
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

  /**
   * A row for a writer: the rows last written, then the query cache, then the store (the caller
   * holds the table's lock: nothing writes meanwhile).
   */
  protected byte @Nullable [] cachedOrStored(RowSource source, byte[] key) {
    if (written != null) {
      Object hit = written.get(key);
      if (hit != RowCache.MISS) {
        return (byte[]) hit;
      }
    }
    if (cache != null) {
      Object hit = cache.get(key);
      if (hit != RowCache.MISS) {
        return (byte[]) hit;
      }
    }
    return source.row(key);
  }

  /** Rows through the cache: what it lacks is read from the store in one call, then cached. */
  protected List<byte @Nullable []> read(RowSource source, List<byte[]> keys) {
    if (cache == null) {
      return source.rows(keys);
    }
    return java.util.Arrays.asList(read(source, RowCache.keys(keys)));
  }

  /**
   * As {@link #read(RowSource, List)}, for rows named by parts: a row the cache holds is found
   * without its key being built, which a query of thirty names would otherwise do some sixty times.
   */
  protected byte[] @Nullable [] read(RowSource source, RowRefs refs) {
    if (cache == null) {
      List<byte[]> keys = new java.util.ArrayList<>(refs.size());
      for (int j = 0; j < refs.size(); j++) {
        keys.add(refs.key(j));
      }
      return source.rows(keys).toArray(new byte[0][]);
    }
    return read(source, (RowCache.Keys) refs);
  }

  private byte[] @Nullable [] read(RowSource source, RowCache.Keys keys) {
    RowCache c = java.util.Objects.requireNonNull(cache);
    int n = keys.size();
    byte[][] out = new byte[n][];
    Object[] hits = new Object[n];
    c.getAll(keys, hits);
    int misses = 0;
    for (int j = 0; j < n; j++) {
      if (hits[j] == RowCache.MISS) {
        misses++;
      } else {
        out[j] = (byte[]) hits[j];
      }
    }
    if (misses == 0) {
      return out;
    }
    List<byte[]> missing = new java.util.ArrayList<>(misses);
    int[] where = new int[misses];
    for (int j = 0; j < n; j++) {
      if (hits[j] == RowCache.MISS) {
        where[missing.size()] = j;
        missing.add(keys.key(j));
      }
    }
    long ticket = c.readTicket();
    List<byte @Nullable []> stored = source.rows(missing);
    for (int i = 0; i < misses; i++) {
      out[where[i]] = stored.get(i);
      c.fill(ticket, missing.get(i), stored.get(i));
    }
    return out;
  }

  /**
   * Rows named by their parts, {@code rowKey(resolution, row, name)}, added in the order they are
   * to be read: what {@link #read(RowSource, RowRefs)} looks up without building their keys.
   */
  protected static final class RowRefs implements RowCache.Keys {
    private final byte[][] names;

    /** Per name: Arrays.hashCode of its bytes, and 31 to the power of its length. */
    private final int[] nameHash;

    private final int[] pow;

    /**
     * Each row as one long, so that a query makes one array of them, not three: bits 0-31 the row
     * index (all that its key holds), 32-34 the resolution, 35 and up the name's index.
     */
    private long[] refs;

    private int size;

    RowRefs(byte[][] names, int capacity) {
      if (names.length > 1 << 28) {
        throw new IllegalArgumentException("at most 2^28 names in one read, not " + names.length);
      }
      this.names = names;
      this.nameHash = new int[names.length];
      this.pow = new int[names.length];
      for (int i = 0; i < names.length; i++) {
        nameHash[i] = java.util.Arrays.hashCode(names[i]);
        int p = 1;
        for (int b = 0; b < names[i].length; b++) {
          p *= 31;
        }
        pow[i] = p;
      }
      this.refs = new long[Math.max(1, capacity)];
    }

    void add(int resolution, long row, int name) {
      if (size == refs.length) {
        refs = java.util.Arrays.copyOf(refs, size * 2);
      }
      refs[size++] = (row & 0xFFFF_FFFFL) | (long) resolution << 32 | (long) name << 35;
    }

    private int resolution(int j) {
      return (int) (refs[j] >>> 32) & (MAX_RESOLUTIONS - 1);
    }

    private int name(int j) {
      return (int) (refs[j] >>> 35);
    }

    @Override
    public int size() {
      return size;
    }

    /**
     * The hash of the key's bytes from its parts: Arrays.hashCode of a prefix p followed by a name
     * of length L is (hashCode(p) - 1) * 31^L + hashCode(name), in int arithmetic.
     */
    @Override
    public int hash(int j) {
      long r = refs[j];
      int h = 31 + (byte) resolution(j);
      h = 31 * h + (byte) (r >>> 24);
      h = 31 * h + (byte) (r >>> 16);
      h = 31 * h + (byte) (r >>> 8);
      h = 31 * h + (byte) r;
      int n = name(j);
      return RowCache.mix((h - 1) * pow[n] + nameHash[n]);
    }

    @Override
    public boolean matches(int j, byte[] key) {
      byte[] nm = names[name(j)];
      long r = refs[j];
      return key.length == 5 + nm.length
          && key[0] == (byte) resolution(j)
          && key[1] == (byte) (r >>> 24)
          && key[2] == (byte) (r >>> 16)
          && key[3] == (byte) (r >>> 8)
          && key[4] == (byte) r
          && java.util.Arrays.equals(key, 5, key.length, nm, 0, nm.length);
    }

    @Override
    public byte[] key(int j) {
      return rowKey(resolution(j), refs[j] & 0xFFFF_FFFFL, names[name(j)]);
    }
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
      long below = Math.floorDiv(resolutions[r].firstKept(now), bucketsPerRow);
      if (below > droppedBelow[r]) {
        droppedBelow[r] = below;
        if (written != null) {
          written.clear(); // rows a writer no longer reaches: their memory goes
        }
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
      if (Math.floorDiv(resolutions[r].firstKept(now), bucketsPerRow) > droppedBelow[r]) {
        return true;
      }
    }
    return false;
  }

  /**
   * The earliest time at which {@link #dropDue} is true ({@link Long#MAX_VALUE} if it never is): a
   * resolution's rows below {@code d + 1} are due once {@code floorDiv(now - retention, bucket)}
   * reaches {@code (d + 1) * bucketsPerRow}, that is at {@code (d + 1) * bucketsPerRow * bucket +
   * retention}. It only moves later as rows are dropped, so a table can sleep until then.
   */
  public long nextDropAt() {
    long at = Long.MAX_VALUE;
    for (int r = 0; r < resolutions.length; r++) {
      try {
        long firstBucket = Math.multiplyExact(droppedBelow[r] + 1, (long) bucketsPerRow);
        long due =
            Math.addExact(
                Math.multiplyExact(firstBucket, resolutions[r].bucketMillis()),
                resolutions[r].retentionMillis());
        at = Math.min(at, due);
      } catch (ArithmeticException pastTheEndOfTime) {
        // due after Long.MAX_VALUE: never
      }
    }
    return at;
  }

  /**
   * Takes every row past its retention at {@code now} as dropped without a range to delete: for a
   * new table, which has no rows yet.
   */
  public void startAt(long now) {
    drop(now);
  }

  /** The row index below which a resolution's rows are dropped. */
  public long droppedBelow(int resolution) {
    return droppedBelow[resolution];
  }
}
