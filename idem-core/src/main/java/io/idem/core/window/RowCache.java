package io.idem.core.window;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * A bounded cache of a table's rows in front of its store, which is what makes a read of thirty
 * names cheap: a store lookup costs microseconds of cache misses, this one a hash and a compare.
 * Direct-mapped: a key has one slot, and a new row there evicts the old, so it holds at most {@code
 * slots} rows. A row that is absent from the store is cached as absent.
 *
 * <p>One writer at a time (the table's lock), so the write sequence is odd exactly while a write is
 * under way. Reads fill it, writes do not: a table's increments touch far more rows than its
 * queries read again, and rows cached for writes would crowd the few that queries read among many
 * more that they do not (measured in BENCHMARKS.md). Writers hold the table's lock and write
 * through ({@link #beginWrite}, {@link #put}, {@link #endWrite}): a row already cached takes its
 * new bytes here before the store has them; any other key's slot is only replaced by an equal but
 * new mark. Readers run without the lock and fill what they read from the store only if no write
 * began or ended meanwhile (a sequence lock), and only into the slot as they saw it before that
 * last check (a compare-and-set): a writer that began after the check replaces that very slot with
 * an object no reader has seen, so the reader's swap fails. A row read before a write is never
 * cached after it, not even for an instant.
 *
 * <p>The slot array is allocated with the first fill; the rows' bytes are counted as they come and
 * go.
 */
public final class RowCache {

  /** What a lookup returns when the key is not cached. */
  public static final Object MISS = new Object();

  /** What a cached row costs beside its key and row bytes: its entry and two array headers. */
  static final int ENTRY_BYTES = 56;

  /** What a slot's mark costs: an entry without arrays of its own. */
  static final int MARK_BYTES = 24;

  private static final byte[] ABSENT = new byte[0];
  private static final byte[] NO_KEY = new byte[0];

  private record Entry(byte[] key, byte[] row) {}

  private volatile @Nullable AtomicReferenceArray<@Nullable Entry> slots;
  private final int mask;
  private final AtomicLong writes = new AtomicLong();
  private final AtomicInteger filled = new AtomicInteger();
  private final AtomicLong bytes = new AtomicLong();

  /**
   * @param slots a power of two
   */
  public RowCache(int slots) {
    if (slots < 1 || Integer.bitCount(slots) != 1) {
      throw new IllegalArgumentException("slots must be a power of two, not " + slots);
    }
    this.mask = slots - 1;
  }

  public int slots() {
    return mask + 1;
  }

  /** Slots that hold a row. */
  public int filled() {
    return filled.get();
  }

  /** Bytes the cache holds: its slot array once allocated, its rows with their keys, its marks. */
  public long bytes() {
    return (slots == null ? 0 : 4L * slots()) + bytes.get();
  }

  /** The cached row (null if cached as absent), or {@link #MISS}. */
  public @Nullable Object get(byte[] key) {
    AtomicReferenceArray<@Nullable Entry> s = slots;
    Entry e = s == null ? null : s.get(slot(key));
    if (!holds(e, key)) {
      return MISS;
    }
    return e.row == ABSENT ? null : e.row;
  }

  /**
   * {@link #get} of every key into {@code out}, in passes: all slots, then all entries, then all
   * keys, so the cache misses of different keys overlap instead of each waiting for the last.
   */
  public void getAll(java.util.List<byte[]> keys, @Nullable Object[] out) {
    AtomicReferenceArray<@Nullable Entry> s = slots;
    int n = keys.size();
    if (s == null) {
      Arrays.fill(out, 0, n, MISS);
      return;
    }
    Entry[] seen = new Entry[n];
    for (int j = 0; j < n; j++) {
      seen[j] = s.get(slot(keys.get(j)));
    }
    byte[][] seenKeys = new byte[n][];
    for (int j = 0; j < n; j++) {
      Entry e = seen[j];
      seenKeys[j] = e == null ? NO_KEY : e.key;
    }
    for (int j = 0; j < n; j++) {
      Entry e = seen[j];
      byte[] k = seenKeys[j];
      out[j] =
          e == null || k == NO_KEY || !Arrays.equals(k, keys.get(j))
              ? MISS
              : e.row == ABSENT ? null : e.row;
    }
  }

  /** A reader's ticket for {@link #fill}: the write sequence before it read the store. */
  public long readTicket() {
    return writes.get();
  }

  /**
   * Caches a row a reader read from the store after taking {@code ticket}, unless a write was under
   * way then or began or ended since: the row may be older than what that write put.
   */
  public void fill(long ticket, byte[] key, byte @Nullable [] row) {
    fill(ticket, key, row, () -> {});
  }

  /**
   * As {@link #fill(long, byte[], byte[])}, running {@code beforeSwap} last: for tests of races.
   */
  void fill(long ticket, byte[] key, byte @Nullable [] row, Runnable beforeSwap) {
    if ((ticket & 1) != 0) {
      return;
    }
    // The array before the check, so that a writer that finds none began after the check.
    AtomicReferenceArray<@Nullable Entry> s = array();
    int i = slot(key);
    Entry seen = s.get(i);
    if (holds(seen, key)) {
      return; // cached already, by another reader
    }
    if (writes.get() != ticket) {
      return;
    }
    Entry mine = new Entry(key, row == null ? ABSENT : row);
    beforeSwap.run();
    if (s.compareAndSet(i, seen, mine)) {
      counted(seen, mine);
    }
  }

  /** Before a writer changes rows (under the table's lock). */
  public void beginWrite() {
    writes.incrementAndGet();
  }

  /**
   * A writer's new row (null if it is deleted), before the store has it: it replaces the key's
   * cached row, if any. Any other slot content is replaced by a new object, equal but one that no
   * reader has seen: a reader that read this key's old row and saw the slot before this write
   * cannot swap it in after (a fresh object, so the slot never returns to what a reader saw).
   */
  public void put(byte[] key, byte @Nullable [] row) {
    AtomicReferenceArray<@Nullable Entry> s = slots;
    if (s == null) {
      return; // nothing filled yet, and a reader that creates the array now fails its check
    }
    int i = slot(key);
    while (true) {
      Entry seen = s.get(i);
      Entry next;
      if (holds(seen, key)) {
        next = new Entry(key, row == null ? ABSENT : row);
      } else {
        next = seen == null ? new Entry(NO_KEY, ABSENT) : new Entry(seen.key, seen.row);
      }
      if (s.compareAndSet(i, seen, next)) {
        counted(seen, next);
        return;
      }
    }
  }

  /** After a writer's rows are all put here and handed to the store. */
  public void endWrite() {
    writes.incrementAndGet();
  }

  private AtomicReferenceArray<@Nullable Entry> array() {
    AtomicReferenceArray<@Nullable Entry> s = slots;
    if (s == null) {
      synchronized (this) {
        s = slots;
        if (s == null) {
          s = new AtomicReferenceArray<>(mask + 1);
          slots = s;
        }
      }
    }
    return s;
  }

  private void counted(@Nullable Entry old, Entry now) {
    if (holdsRow(now) && !holdsRow(old)) {
      filled.incrementAndGet();
    }
    bytes.addAndGet(size(now) - size(old));
  }

  private static boolean holds(@Nullable Entry e, byte[] key) {
    return e != null && e.key != NO_KEY && Arrays.equals(e.key, key);
  }

  private static boolean holdsRow(@Nullable Entry e) {
    return e != null && e.key != NO_KEY;
  }

  private static long size(@Nullable Entry e) {
    if (e == null) {
      return 0;
    }
    return e.key == NO_KEY ? MARK_BYTES : ENTRY_BYTES + e.key.length + e.row.length;
  }

  private int slot(byte[] key) {
    int h = Arrays.hashCode(key);
    h ^= h >>> 16;
    h *= 0x45d9f3b;
    h ^= h >>> 16;
    return h & mask;
  }
}
