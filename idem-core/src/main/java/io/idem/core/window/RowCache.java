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
 * <p>Writers hold the table's lock and write through ({@link #beginWrite}, {@link #put}, {@link
 * #endWrite}), putting a row here before the store has it. Readers run without the lock and fill
 * what they read from the store only if no write began or ended meanwhile (a sequence lock), and
 * only into the slot as they saw it before that last check (a compare-and-set): a writer that began
 * after the check puts its row into that very slot, so it always wins. A row read before a write is
 * never cached after it, not even for an instant.
 *
 * <p>The slot array is allocated with the first row; the rows' bytes are counted as they come and
 * go.
 */
public final class RowCache {

  /** What a lookup returns when the key is not cached. */
  public static final Object MISS = new Object();

  /** What a cached row costs beside its key and row bytes: its entry and two array headers. */
  static final int ENTRY_BYTES = 56;

  private static final byte[] ABSENT = new byte[0];

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

  /** Bytes the cache holds: its slot array once allocated, and its rows with their keys. */
  public long bytes() {
    return (slots == null ? 0 : 4L * slots()) + bytes.get();
  }

  /** The cached row (null if cached as absent), or {@link #MISS}. */
  public @Nullable Object get(byte[] key) {
    AtomicReferenceArray<@Nullable Entry> s = slots;
    Entry e = s == null ? null : s.get(slot(key));
    if (e == null || !Arrays.equals(e.key, key)) {
      return MISS;
    }
    return e.row == ABSENT ? null : e.row;
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
    if ((ticket & 1) != 0) {
      return;
    }
    AtomicReferenceArray<@Nullable Entry> s = array();
    int i = slot(key);
    Entry seen = s.get(i);
    if (seen != null && Arrays.equals(seen.key, key)) {
      return; // cached already, by a writer or by another reader
    }
    if (writes.get() != ticket) {
      return;
    }
    Entry mine = new Entry(key, row == null ? ABSENT : row);
    if (s.compareAndSet(i, seen, mine)) {
      counted(seen, mine);
    }
  }

  /** Before a writer changes rows (under the table's lock). */
  public void beginWrite() {
    writes.incrementAndGet();
  }

  /** A writer's new row (null if it is deleted), before the store has it. */
  public void put(byte[] key, byte @Nullable [] row) {
    Entry e = new Entry(key, row == null ? ABSENT : row);
    counted(array().getAndSet(slot(key), e), e);
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
    if (old == null) {
      filled.incrementAndGet();
    }
    bytes.addAndGet(size(now) - (old == null ? 0 : size(old)));
  }

  private static long size(Entry e) {
    return ENTRY_BYTES + e.key.length + e.row.length;
  }

  private int slot(byte[] key) {
    int h = Arrays.hashCode(key);
    h ^= h >>> 16;
    h *= 0x45d9f3b;
    h ^= h >>> 16;
    return h & mask;
  }
}
