package io.idem.cli;

import static io.idem.core.Checks.checkArgument;

import io.idem.core.filter.FilterFullException;

/**
 * An exact set of 128-bit hashes, for {@code idem uniq}'s default mode. Not thread-safe.
 *
 * <p>Open addressing with linear probing over one {@code long[]} of (h1, h2) pairs: no object per
 * entry, 16 bytes per slot, at most 3/4 full, doubled when it passes that.
 */
final class LongPairSet implements SeenSet {
  /*
   * Slot i is table[2i], table[2i + 1]; (0, 0) marks an empty slot, so the hash (0, 0) itself is
   * kept in a flag. The hashes are Murmur3 output, already uniform: the top bits of h1 pick the
   * home slot with no further mixing.
   */

  /** The most slots: 2^29 pairs fill a long[] of 2^30 entries (8 GiB). */
  static final int MAX_SLOTS = 1 << 29;

  private long[] table;
  private int shift; // 64 - log2(slots)
  private int used; // occupied slots, not counting the (0, 0) flag
  private int threshold;
  private boolean hasZero;

  /** A set with {@code initialSlots} slots, a power of two. */
  LongPairSet(int initialSlots) {
    checkArgument(
        Integer.bitCount(initialSlots) == 1 && initialSlots >= 2 && initialSlots <= MAX_SLOTS,
        "initial slots (%s) must be a power of two in [2, %s]",
        initialSlots,
        MAX_SLOTS);
    allocate(initialSlots);
  }

  private void allocate(int slots) {
    table = new long[slots * 2];
    shift = 64 - Integer.numberOfTrailingZeros(slots);
    threshold = (int) (slots * 3L / 4);
  }

  /** Adds the hash; true if it was not in the set. */
  @Override
  public boolean add(long h1, long h2) {
    if ((h1 | h2) == 0) {
      boolean added = !hasZero;
      hasZero = true;
      return added;
    }
    long[] t = table;
    int mask = t.length / 2 - 1;
    int slot = (int) (h1 >>> shift);
    while (true) {
      int i = slot * 2;
      long a = t[i];
      long b = t[i + 1];
      if (a == h1 && b == h2) {
        return false;
      }
      if ((a | b) == 0) {
        t[i] = h1;
        t[i + 1] = h2;
        if (++used > threshold) {
          grow();
        }
        return true;
      }
      slot = (slot + 1) & mask;
    }
  }

  /** True if the hash is in the set. */
  boolean contains(long h1, long h2) {
    if ((h1 | h2) == 0) {
      return hasZero;
    }
    long[] t = table;
    int mask = t.length / 2 - 1;
    int slot = (int) (h1 >>> shift);
    while (true) {
      int i = slot * 2;
      long a = t[i];
      long b = t[i + 1];
      if (a == h1 && b == h2) {
        return true;
      }
      if ((a | b) == 0) {
        return false;
      }
      slot = (slot + 1) & mask;
    }
  }

  private void grow() {
    long[] old = table;
    int slots = old.length / 2;
    if (slots >= MAX_SLOTS) {
      throw new FilterFullException(
          "the exact set holds at most " + threshold + " distinct lines; use --error or --window");
    }
    allocate(slots * 2);
    long[] t = table;
    int mask = slots * 2 - 1;
    for (int i = 0; i < old.length; i += 2) {
      long a = old[i];
      long b = old[i + 1];
      if ((a | b) != 0) {
        int slot = (int) (a >>> shift);
        while ((t[slot * 2] | t[slot * 2 + 1]) != 0) {
          slot = (slot + 1) & mask;
        }
        t[slot * 2] = a;
        t[slot * 2 + 1] = b;
      }
    }
  }

  /** Distinct hashes held. */
  long size() {
    return used + (hasZero ? 1 : 0);
  }

  /** Slots in the table, a power of two. */
  int slots() {
    return table.length / 2;
  }

  @Override
  public long sizeInBytes() {
    return (long) table.length * 8;
  }
}
