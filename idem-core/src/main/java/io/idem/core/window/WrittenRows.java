package io.idem.core.window;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The rows a table's writers wrote last, for its writers only: an increment reads its row here
 * rather than from the store, where a loading table's row has many versions in the memtable to
 * search past. Bounded: four ways a set, a fifth row in a set replaces one of the four in turn.
 * Writers hold the table's lock, so nothing here is shared; readers (queries) never look here, and
 * the query cache ({@link RowCache}) is not filled by writes, so rows written once do not crowd the
 * rows queries read again.
 *
 * <p>It holds a row only as the store has it after the write that put it here: every change of the
 * table's rows goes through its writers, which put each row they change.
 */
final class WrittenRows {

  static final int WAYS = 4;

  /** What a held row costs beside its key and row bytes: two array headers. */
  static final int ROW_BYTES = 32;

  /** What a slot costs once the arrays are allocated: three references and a hash. */
  static final int SLOT_BYTES = 16;

  private static final byte[] ABSENT = new byte[0];

  private final int mask;
  private final long maxBytes;
  private byte @Nullable [][] keys;
  private byte @Nullable [][] rows;
  private int @Nullable [] hashes;

  /** Per set, the way the next new row replaces. */
  private byte @Nullable [] next;

  /** Bytes held, read by other threads for the table's memory. */
  private volatile long bytes;

  /**
   * @param slots a power of two, at least {@link #WAYS}
   * @param maxBytes the most bytes it holds, its slots included
   */
  WrittenRows(int slots, long maxBytes) {
    if (slots < WAYS || Integer.bitCount(slots) != 1) {
      throw new IllegalArgumentException(
          "slots must be a power of two of at least " + WAYS + ", not " + slots);
    }
    this.mask = slots - 1;
    this.maxBytes = maxBytes;
  }

  /** The row (null if written as absent), or {@link RowCache#MISS}. */
  @Nullable Object get(byte[] key) {
    byte[][] k = keys;
    if (k == null) {
      return RowCache.MISS;
    }
    int h = RowCache.hashOf(key);
    int way = find(k, h, key);
    if (way < 0) {
      return RowCache.MISS;
    }
    byte[] row = java.util.Objects.requireNonNull(rows)[way];
    return row == ABSENT ? null : row;
  }

  /** The row the store has for {@code key} from this write on (null: none). */
  void put(byte[] key, byte @Nullable [] row) {
    if (keys == null) {
      keys = new byte[mask + 1][];
      rows = new byte[mask + 1][];
      hashes = new int[mask + 1];
      next = new byte[(mask + 1) / WAYS];
      bytes = (long) SLOT_BYTES * (mask + 1);
    }
    byte[][] k = keys;
    byte[][] r = java.util.Objects.requireNonNull(rows);
    int h = RowCache.hashOf(key);
    int way = find(k, h, key);
    if (way < 0) {
      int set = set(h);
      byte[] turn = java.util.Objects.requireNonNull(next);
      way = set + turn[set / WAYS];
      turn[set / WAYS] = (byte) ((turn[set / WAYS] + 1) % WAYS);
      for (int w = set; w < set + WAYS; w++) {
        if (k[w] == null) {
          way = w;
          break;
        }
      }
    }
    byte[] held = row == null ? ABSENT : row;
    long before = size(k[way], r[way]);
    if (bytes - before + size(key, held) > maxBytes) {
      if (k[way] != null && Arrays.equals(k[way], key)) {
        // Not held with its new row: nor with its old one, which the store no longer has.
        k[way] = null;
        r[way] = null;
        bytes -= before;
      }
      return;
    }
    bytes += size(key, held) - before;
    k[way] = key;
    r[way] = held;
    java.util.Objects.requireNonNull(hashes)[way] = h;
  }

  /** Forgets every row (rows were dropped from the store by range). */
  void clear() {
    if (keys != null) {
      Arrays.fill(keys, null);
      Arrays.fill(java.util.Objects.requireNonNull(rows), null);
      bytes = (long) SLOT_BYTES * (mask + 1);
    }
  }

  long bytes() {
    return bytes;
  }

  private int find(byte[][] k, int h, byte[] key) {
    int[] hs = java.util.Objects.requireNonNull(hashes);
    int set = set(h);
    for (int w = set; w < set + WAYS; w++) {
      if (hs[w] == h && k[w] != null && Arrays.equals(k[w], key)) {
        return w;
      }
    }
    return -1;
  }

  private int set(int hash) {
    return hash & mask & -WAYS;
  }

  private static long size(byte @Nullable [] key, byte @Nullable [] row) {
    return key == null ? 0 : ROW_BYTES + key.length + java.util.Objects.requireNonNull(row).length;
  }
}
