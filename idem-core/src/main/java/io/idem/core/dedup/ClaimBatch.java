package io.idem.core.dedup;

import io.idem.core.filter.MembershipFilter;
import io.idem.core.filter.ScalableBloomFilter;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/** A call's ids, hashed, with what the slice filters say of them and the new ones so far. */
final class ClaimBatch {

  /** Fewer ids than this are asked one by one. */
  static final int MIN = 8;

  final long[] h1;
  final long[] h2;

  /** Whether some slice filter may hold id i. */
  final boolean[] maybe;

  private final boolean[] answer;
  private final boolean[] scratch;

  /** Open addressing over the ids claimed new so far in this call: index + 1, 0 empty. */
  private final int[] table;

  ClaimBatch(DedupTable.Ids hashed) {
    int n = hashed.ids().length;
    h1 = hashed.h1();
    h2 = hashed.h2();
    maybe = new boolean[n];
    answer = new boolean[n];
    scratch = new boolean[n];
    table = new int[Integer.highestOneBit(n) * 4];
  }

  void ask(@Nullable MembershipFilter filter) {
    switch (filter) {
      case null -> {}
      case ScalableBloomFilter f -> {
        f.mightContainAll(h1, h2, h1.length, answer, scratch);
        for (int i = 0; i < answer.length; i++) {
          maybe[i] |= answer[i];
        }
      }
      default -> {
        for (int i = 0; i < maybe.length; i++) {
          maybe[i] = maybe[i] || filter.mightContain(h1[i], h2[i]);
        }
      }
    }
  }

  /** The index of an earlier id of this call claimed new and equal to id i, or -1. */
  int earlier(int i, byte[][] ids) {
    int mask = table.length - 1;
    for (int k = (int) h1[i] & mask; table[k] != 0; k = (k + 1) & mask) {
      int j = table[k] - 1;
      if (h1[j] == h1[i] && h2[j] == h2[i] && Arrays.equals(ids[j], ids[i])) {
        return j;
      }
    }
    return -1;
  }

  void claimed(int i) {
    int mask = table.length - 1;
    int k = (int) h1[i] & mask;
    while (table[k] != 0) {
      k = (k + 1) & mask;
    }
    table[k] = i + 1;
  }
}
