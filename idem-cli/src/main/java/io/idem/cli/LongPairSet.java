package io.idem.cli;

import static io.idem.core.Checks.checkArgument;

import io.idem.core.filter.FilterFullException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * An exact set of 128-bit hashes, for {@code idem uniq}'s default mode. Not thread-safe.
 *
 * <p>64 segments, each an open-addressing table of (h1, h2) pairs with linear probing: no object
 * per entry, 16 bytes per slot, held off the Java heap. A segment grows by a fifth when it passes
 * 9/10 full. {@link #close} frees the memory.
 */
final class LongPairSet implements SeenSet {
  /*
   * Memory is the point (awk '!seen[$0]++' is the baseline, and a third of its memory the goal):
   * - Growth by 1.2, not 2: sizes are not powers of two (the home slot is a multiply-high of
   *   h1's low bits), so the tables stay between 75% and 90% full instead of 37.5% to 75%.
   *   Linear probing stays short enough at 90%: most lookups are of new lines (BENCHMARKS.md has
   *   the time against awk's).
   * - Segments: only one segment at a time holds both its old and new table while growing, so
   *   the peak is the set plus 1/64 of it, not three times it as with one doubling table.
   * - Off the heap, in one confined arena per table: a replaced table goes back to the system at
   *   once. On the heap the garbage tables of every growth stayed resident until a collection
   *   that the collector saw no reason to run: several times the hashes' size stayed resident.
   * The top 6 bits of h1 pick the segment and the rest picks the home slot: the hashes are
   * Murmur3 output, already uniform, so they need no further mixing. Slot i is table[2i],
   * table[2i + 1]; (0, 0) marks an empty slot, so the hash (0, 0) itself is kept in a flag.
   */

  static final int SEGMENT_BITS = 6;
  static final int SEGMENTS = 1 << SEGMENT_BITS;

  /** The most slots of one segment (an int indexes them). */
  static final int MAX_SEGMENT_SLOTS = (Integer.MAX_VALUE - 8) / 2;

  private static final int MIN_SEGMENT_SLOTS = 8;

  private final Segment[] segments = new Segment[SEGMENTS];
  private boolean hasZero;

  /** A set with room for about {@code initialSlots} hashes before it first grows. */
  LongPairSet(int initialSlots) {
    checkArgument(initialSlots >= 1, "initial slots (%s) must be >= 1", initialSlots);
    int perSegment = Math.max(MIN_SEGMENT_SLOTS, initialSlots / SEGMENTS);
    for (int s = 0; s < SEGMENTS; s++) {
      segments[s] = new Segment(perSegment);
    }
  }

  /** Adds the hash; true if it was not in the set. */
  @Override
  public boolean add(long h1, long h2) {
    if ((h1 | h2) == 0) {
      boolean added = !hasZero;
      hasZero = true;
      return added;
    }
    return segments[(int) (h1 >>> (64 - SEGMENT_BITS))].add(h1, h2);
  }

  /** True if the hash is in the set. */
  boolean contains(long h1, long h2) {
    if ((h1 | h2) == 0) {
      return hasZero;
    }
    return segments[(int) (h1 >>> (64 - SEGMENT_BITS))].contains(h1, h2);
  }

  /** Distinct hashes held. */
  long size() {
    long n = hasZero ? 1 : 0;
    for (Segment s : segments) {
      n += s.used;
    }
    return n;
  }

  /** Slots in all segments. */
  long slots() {
    long n = 0;
    for (Segment s : segments) {
      n += s.slots;
    }
    return n;
  }

  @Override
  public long sizeInBytes() {
    return slots() * 16;
  }

  /** Frees every segment's table; the set must not be used afterwards. */
  @Override
  public void close() {
    for (Segment s : segments) {
      s.arena.close();
    }
  }

  private static final class Segment {
    private Arena arena;
    private MemorySegment table;
    private int slots;
    private int used;
    private int threshold;

    Segment(int slots) {
      allocate(slots);
    }

    private void allocate(int n) {
      arena = Arena.ofConfined();
      table = arena.allocate(n * 16L, 8); // zeroed: every slot starts empty
      slots = n;
      threshold = (int) (n * 9L / 10);
    }

    private static int home(long h1, int slots) {
      return (int) Math.unsignedMultiplyHigh(h1 << SEGMENT_BITS, slots);
    }

    boolean add(long h1, long h2) {
      long at = find(h1, h2);
      if (at >= 0) {
        return false;
      }
      if (used >= threshold) {
        grow(); // first, so that at the size limit it throws with nothing half-inserted
        at = find(h1, h2);
      }
      long i = ~at * 2;
      table.setAtIndex(ValueLayout.JAVA_LONG, i, h1);
      table.setAtIndex(ValueLayout.JAVA_LONG, i + 1, h2);
      used++;
      return true;
    }

    boolean contains(long h1, long h2) {
      return find(h1, h2) >= 0;
    }

    /** The slot holding the hash, or ~(the empty slot where it would go). */
    private long find(long h1, long h2) {
      MemorySegment t = table;
      int n = slots;
      int slot = home(h1, n);
      while (true) {
        long i = slot * 2L;
        long a = t.getAtIndex(ValueLayout.JAVA_LONG, i);
        long b = t.getAtIndex(ValueLayout.JAVA_LONG, i + 1);
        if (a == h1 && b == h2) {
          return slot;
        }
        if ((a | b) == 0) {
          return ~slot;
        }
        if (++slot == n) {
          slot = 0;
        }
      }
    }

    private void grow() {
      if (slots >= MAX_SEGMENT_SLOTS) {
        throw new FilterFullException(
            "the exact set holds at most about "
                + (long) threshold * SEGMENTS
                + " distinct lines; use --error or --window");
      }
      Arena oldArena = arena;
      MemorySegment old = table;
      long oldLongs = slots * 2L;
      allocate((int) Math.min(MAX_SEGMENT_SLOTS, slots + Math.max(slots / 5, 8L)));
      MemorySegment t = table;
      int n = slots;
      for (long i = 0; i < oldLongs; i += 2) {
        long a = old.getAtIndex(ValueLayout.JAVA_LONG, i);
        long b = old.getAtIndex(ValueLayout.JAVA_LONG, i + 1);
        if ((a | b) != 0) {
          int slot = home(a, n);
          while ((t.getAtIndex(ValueLayout.JAVA_LONG, slot * 2L)
                  | t.getAtIndex(ValueLayout.JAVA_LONG, slot * 2L + 1))
              != 0) {
            if (++slot == n) {
              slot = 0;
            }
          }
          t.setAtIndex(ValueLayout.JAVA_LONG, slot * 2L, a);
          t.setAtIndex(ValueLayout.JAVA_LONG, slot * 2L + 1, b);
        }
      }
      oldArena.close();
    }
  }
}
