package io.idem.bench.counters;

/** A set of longs by open addressing (0 is never added: callers add hashes with a bit set). */
final class LongSet {
  private long[] slots = new long[1 << 16];
  private int size;

  boolean add(long v) {
    if (size * 2 >= slots.length) {
      long[] old = slots;
      slots = new long[old.length * 2];
      size = 0;
      for (long o : old) {
        if (o != 0) {
          add(o);
        }
      }
    }
    int mask = slots.length - 1;
    int i = (int) (mix(v) & mask);
    while (slots[i] != 0) {
      if (slots[i] == v) {
        return false;
      }
      i = (i + 1) & mask;
    }
    slots[i] = v;
    size++;
    return true;
  }

  int size() {
    return size;
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
    return z ^ (z >>> 33);
  }
}
