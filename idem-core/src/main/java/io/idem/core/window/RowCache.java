package io.idem.core.window;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * A bounded cache of a table's rows in front of its store, which is what makes a read of thirty
 * names cheap: a store lookup costs microseconds of cache misses, this one a hash and a compare.
 * Four-way set-associative: a key's row lives in any slot of its set (four neighbours: 16 bytes of
 * compressed references, most often in one cache line), a fill takes an empty way first, and only a
 * fifth key in the same set evicts one, chosen at random. With one slot a key, rows that share a
 * slot evict each other on every read, and a second pass over the benchmark's day queries misses
 * many of them; each way added cuts the misses several times over (CounterQueryBenchmark prints
 * them; BENCHMARKS.md has the figures). Each such miss is a store read and a fresh entry that the
 * collector copies until it is promoted. It holds at most {@code slots} rows. A row that is absent
 * from the store is cached as absent.
 *
 * <p>One writer at a time (the table's lock), so the write sequence is odd exactly while a write is
 * under way. Reads fill it, writes do not: a table's increments touch far more rows than its
 * queries read again, and rows cached for writes would crowd the few that queries read among many
 * more that they do not (measured in BENCHMARKS.md). Writers hold the table's lock and write
 * through ({@link #beginWrite}, {@link #put}, {@link #endWrite}): a row already cached takes its
 * new bytes here before the store has them. Readers run without the lock and never wait: a lookup
 * reads the slots, whose entries are never changed once made. A reader fills what it read from the
 * store only if no write began or ended meanwhile (a sequence lock), checked while it holds its
 * key's set (a claim, one int a set): a writer claims the set too before it puts a key there, so it
 * either comes first, and the reader's check fails, or comes after and finds the reader's row to
 * replace. A row read before a write is never cached once the write has put that key here (until
 * then the store, too, holds the old row). A reader that finds the set claimed does not fill; a
 * writer waits for the reader, which holds the set for a few loads and stores.
 *
 * <p>A write allocates nothing but the entry of a cached key's new row: a load that increments far
 * more rows than queries read leaves no garbage here (earlier, each write replaced both ways of
 * every set it touched with fresh objects, and a load filled the old generation with them).
 *
 * <p>A key is never cached in two ways of its set: a fill looks for it again under the claim.
 *
 * <p>The slot array is allocated with the first fill; the rows' bytes are counted as they come and
 * go.
 */
public final class RowCache {

  /** What a lookup returns when the key is not cached. */
  public static final Object MISS = new Object();

  /** What a cached row costs beside its key and row bytes: its entry and two array headers. */
  static final int ENTRY_BYTES = 56;

  /** Slots a set: a key's row may be in any of them. */
  static final int WAYS = 4;

  /**
   * What a slot costs once the arrays are allocated: its reference (4 bytes, compressed, as in
   * heaps under 32 GiB) and a quarter of its set's claim.
   */
  static final int SLOT_BYTES = 5;

  private static final byte[] ABSENT = new byte[0];

  /** The key's hash lets a lookup pass over the other ways' entries without reading their keys. */
  private record Entry(int hash, byte[] key, byte[] row) {}

  private volatile @Nullable AtomicReferenceArray<@Nullable Entry> slots;

  /** Per set, 1 while a reader or the writer holds it: set before {@link #slots}. */
  private volatile @Nullable AtomicIntegerArray claims;

  private final int mask;
  private final AtomicLong writes = new AtomicLong();
  private final AtomicInteger filled = new AtomicInteger();
  private final AtomicLong bytes = new AtomicLong();

  /**
   * @param slots a power of two, at least {@link #WAYS} (one set)
   */
  public RowCache(int slots) {
    if (slots < WAYS || Integer.bitCount(slots) != 1) {
      throw new IllegalArgumentException(
          "slots must be a power of two of at least " + WAYS + ", not " + slots);
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

  /** Bytes the cache holds: its arrays once allocated, its rows with their keys. */
  public long bytes() {
    return (slots == null ? 0 : (long) SLOT_BYTES * slots()) + bytes.get();
  }

  /** The cached row (null if cached as absent), or {@link #MISS}. */
  public @Nullable Object get(byte[] key) {
    AtomicReferenceArray<@Nullable Entry> s = slots;
    if (s == null) {
      return MISS;
    }
    int h = hashOf(key);
    int i = set(h);
    for (int way = i; way < i + WAYS; way++) {
      Entry e = s.get(way);
      if (holds(e, h, key)) {
        return rowOf(e);
      }
    }
    return MISS;
  }

  /**
   * Keys to look up together, which the caller may hold as parts rather than as byte arrays: a
   * lookup does not build its key.
   */
  public interface Keys {
    int size();

    /** {@link #hashOf} of key {@code j}'s bytes. */
    int hash(int j);

    /** Whether key {@code j}'s bytes are {@code key}'s. */
    boolean matches(int j, byte[] key);

    /** Key {@code j}'s bytes, for a caller that must read the store. */
    byte[] key(int j);
  }

  /** Keys held as byte arrays. */
  public static Keys keys(java.util.List<byte[]> list) {
    return new Keys() {
      @Override
      public int size() {
        return list.size();
      }

      @Override
      public int hash(int j) {
        return hashOf(list.get(j));
      }

      @Override
      public boolean matches(int j, byte[] key) {
        return Arrays.equals(list.get(j), key);
      }

      @Override
      public byte[] key(int j) {
        return list.get(j);
      }
    };
  }

  /**
   * {@link #get} of every key into {@code out}, in passes over all the keys (their sets, then their
   * entries, then their keys), so the cache misses of different keys overlap instead of each
   * waiting for the last.
   */
  public void getAll(java.util.List<byte[]> keys, @Nullable Object[] out) {
    getAll(keys(keys), out);
  }

  /** As {@link #getAll(java.util.List, Object[])}, for keys held as parts. */
  public void getAll(Keys keys, @Nullable Object[] out) {
    AtomicReferenceArray<@Nullable Entry> s = slots;
    int n = keys.size();
    if (s == null) {
      Arrays.fill(out, 0, n, MISS);
      return;
    }
    // Three passes, each parking its finding in out: every key's set (one cache line: its first
    // way stands for it), then the way whose entry has the key's hash, then that entry's key.
    // Each pass's loads depend only on the one before, so the cache misses of different keys
    // overlap: the sets', then the entries'. No array but the hashes is made for it.
    int[] hashes = new int[n];
    for (int j = 0; j < n; j++) {
      int h = keys.hash(j);
      hashes[j] = h;
      out[j] = s.get(set(h));
    }
    for (int j = 0; j < n; j++) {
      int h = hashes[j];
      int i = set(h);
      Entry e = (Entry) out[j];
      for (int way = i + 1; !mayHold(e, h) && way < i + WAYS; way++) {
        e = s.get(way);
      }
      out[j] = mayHold(e, h) ? e : null; // null: no way has the hash, a miss
    }
    for (int j = 0; j < n; j++) {
      int h = hashes[j];
      Entry e = (Entry) out[j];
      if (e != null && !keys.matches(j, e.key)) {
        // Two keys of one hash in a set, or a slot changed since: every way again, as get does.
        e = null;
        for (int way = set(h); e == null && way < set(h) + WAYS; way++) {
          Entry seen = s.get(way);
          e = mayHold(seen, h) && keys.matches(j, seen.key) ? seen : null;
        }
      }
      out[j] = e == null ? MISS : rowOf(e);
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
    fill(ticket, key, row, () -> {}, () -> {});
  }

  /**
   * As {@link #fill(long, byte[], byte[])}, running {@code beforeClaim} just before it claims the
   * key's set and {@code whileClaimed} just before it stores its row: for tests of races.
   */
  void fill(
      long ticket, byte[] key, byte @Nullable [] row, Runnable beforeClaim, Runnable whileClaimed) {
    if ((ticket & 1) != 0) {
      return;
    }
    AtomicReferenceArray<@Nullable Entry> s = array();
    AtomicIntegerArray c = java.util.Objects.requireNonNull(claims);
    int h = hashOf(key);
    int i = set(h);
    if (find(s, i, h, key) >= 0 || writes.get() != ticket) {
      return; // cached already, by another reader; or a write makes the row stale
    }
    // Fresh copies, allocated with the entry, so that the three lie side by side in memory (a
    // copying collector tends to keep them so): a lookup then waits for one distant read, not
    // three. Made before the claim, which then lasts a few loads and stores.
    Entry mine = adjacent(h, key, row);
    beforeClaim.run();
    int lock = i / WAYS;
    if (!c.compareAndSet(lock, 0, 1)) {
      return; // the writer, or another reader, holds the set
    }
    try {
      // Under the claim, a write that began since is certain to be seen here, or to come after.
      if (writes.get() != ticket || find(s, i, h, key) >= 0) {
        return;
      }
      // An empty way first; when all hold rows, any at random: a choice fixed by the key would
      // let hot keys evict each other forever beside rows no query reads any more.
      int way = i + ThreadLocalRandom.current().nextInt(WAYS);
      for (int w = i; w < i + WAYS; w++) {
        if (s.get(w) == null) {
          way = w;
          break;
        }
      }
      Entry seen = s.get(way);
      whileClaimed.run();
      s.set(way, mine);
      counted(seen, mine);
    } finally {
      c.set(lock, 0);
    }
  }

  /** Before a writer changes rows (under the table's lock). */
  public void beginWrite() {
    writes.incrementAndGet();
  }

  /**
   * A writer's new row (null if it is deleted), before the store has it: it replaces the key's
   * cached row, if any. The set is claimed meanwhile, so that a reader filling this key either saw
   * this write begin or filled before, and is replaced here.
   */
  public void put(byte[] key, byte @Nullable [] row) {
    AtomicReferenceArray<@Nullable Entry> s = slots;
    if (s == null) {
      return; // nothing filled yet, and a reader that creates the array now fails its check
    }
    AtomicIntegerArray c = java.util.Objects.requireNonNull(claims);
    int h = hashOf(key);
    int i = set(h);
    int lock = i / WAYS;
    for (int spins = 0; !c.compareAndSet(lock, 0, 1); spins++) {
      // A reader holds it for a few loads and stores, unless it lost its core meanwhile.
      if (spins < 64) {
        Thread.onSpinWait();
      } else {
        Thread.yield();
      }
    }
    try {
      int way = find(s, i, h, key); // in one way at most, as fills look under the claim
      if (way >= 0) {
        Entry seen = s.get(way);
        // No copies here, unlike a fill: a distinct table's row may be a 12 KiB sketch.
        Entry next = new Entry(h, key, row == null ? ABSENT : row);
        s.set(way, next);
        counted(seen, next);
      }
    } finally {
      c.set(lock, 0);
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
          claims = new AtomicIntegerArray((mask + 1) / WAYS);
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
    bytes.addAndGet(size(now) - size(old));
  }

  private static Entry adjacent(int h, byte[] key, byte @Nullable [] row) {
    byte[] k = key.clone();
    byte[] r = row == null ? ABSENT : row.clone();
    return new Entry(h, k, r);
  }

  /** The way of set {@code i} that holds the key, or -1. */
  private static int find(AtomicReferenceArray<@Nullable Entry> s, int i, int hash, byte[] key) {
    for (int way = i; way < i + WAYS; way++) {
      if (holds(s.get(way), hash, key)) {
        return way;
      }
    }
    return -1;
  }

  private static @Nullable Object rowOf(Entry e) {
    return e.row == ABSENT ? null : e.row;
  }

  private static boolean holds(@Nullable Entry e, int hash, byte[] key) {
    return mayHold(e, hash) && Arrays.equals(e.key, key);
  }

  /** A row whose key has this hash: the key itself is still to compare. */
  private static boolean mayHold(@Nullable Entry e, int hash) {
    return e != null && e.hash == hash;
  }

  private static long size(@Nullable Entry e) {
    return e == null ? 0 : ENTRY_BYTES + e.key.length + e.row.length;
  }

  /**
   * The hash a key is filed under: {@link Arrays#hashCode(byte[])} of its bytes, mixed. A caller
   * that holds a key as parts may compute the first from them (see {@link #mix}).
   */
  public static int hashOf(byte[] key) {
    return mix(Arrays.hashCode(key));
  }

  /** What {@link #hashOf} makes of a key's {@link Arrays#hashCode(byte[])}. */
  public static int mix(int h) {
    h ^= h >>> 16;
    h *= 0x45d9f3b;
    h ^= h >>> 16;
    return h;
  }

  /** The first slot of the hash's set; its other ways follow it. */
  private int set(int hash) {
    return hash & mask & -WAYS;
  }
}
