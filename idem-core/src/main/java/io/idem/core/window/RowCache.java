package io.idem.core.window;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * A bounded cache of a table's rows in front of its store, which is what makes a read of thirty
 * names cheap: a store lookup costs microseconds of cache misses, this one a hash and a compare.
 * Direct-mapped: a key has one slot, and a new row there evicts the old, so memory is fixed at
 * {@code slots} entries. A row that is absent from the store is cached as absent.
 *
 * <p>Writers hold the table's lock and write through ({@link #beginWrite}, {@link #put}, {@link
 * #endWrite}); readers run without it and fill what they read from the store only if no write began
 * or ended meanwhile (a sequence lock), so a row read before a write is never cached after it.
 */
public final class RowCache {

  private static final byte[] ABSENT = new byte[0];

  private record Entry(byte[] key, byte[] row) {}

  private final AtomicReferenceArray<@Nullable Entry> slots;
  private final int mask;
  private final AtomicLong writes = new AtomicLong();
  private final java.util.concurrent.atomic.AtomicInteger filled =
      new java.util.concurrent.atomic.AtomicInteger();

  /**
   * @param slots a power of two
   */
  public RowCache(int slots) {
    if (slots < 1 || Integer.bitCount(slots) != 1) {
      throw new IllegalArgumentException("slots must be a power of two, not " + slots);
    }
    this.slots = new AtomicReferenceArray<>(slots);
    this.mask = slots - 1;
  }

  public int slots() {
    return mask + 1;
  }

  /** Slots that hold a row. */
  public int filled() {
    return filled.get();
  }

  /** What a lookup found: a hit (with the row, null if absent) or a miss. */
  public static final Object MISS = new Object();

  /** The cached row (null if cached as absent), or {@link #MISS}. */
  public @Nullable Object get(byte[] key) {
    Entry e = slots.get(slot(key));
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
   * Caches a row a reader read from the store after taking {@code ticket}, unless a write began or
   * ended since (or was under way then): it may be older than what that write put.
   */
  public void fill(long ticket, byte[] key, byte @Nullable [] row) {
    if ((ticket & 1) != 0 || writes.get() != ticket) {
      return;
    }
    int i = slot(key);
    Entry mine = new Entry(key, row == null ? ABSENT : row);
    set(i, mine);
    if (writes.get() != ticket && slots.compareAndSet(i, mine, null)) {
      filled.decrementAndGet(); // a write came: what it put stands, this goes
    }
  }

  /** Before a writer changes rows (under the table's lock). */
  public void beginWrite() {
    writes.incrementAndGet();
  }

  /** A writer's new row (null if it is deleted), as the store will have it. */
  public void put(byte[] key, byte @Nullable [] row) {
    set(slot(key), new Entry(key, row == null ? ABSENT : row));
  }

  private void set(int i, Entry e) {
    if (slots.getAndSet(i, e) == null) {
      filled.incrementAndGet();
    }
  }

  /** After a writer's rows are all handed to the store and put here. */
  public void endWrite() {
    writes.incrementAndGet();
  }

  private int slot(byte[] key) {
    int h = Arrays.hashCode(key);
    h ^= h >>> 16;
    h *= 0x45d9f3b;
    h ^= h >>> 16;
    return h & mask;
  }
}
