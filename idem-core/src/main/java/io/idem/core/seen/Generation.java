package io.idem.core.seen;

import java.util.Arrays;

/**
 * One generation of a seen-cache: sorted distinct fingerprints, with the length of their Golomb
 * code kept up to date as values come and go, so a budget is checked in constant time an add rather
 * than by re-measuring the set. The parameter M follows the count; when it changes (about every
 * count / M adds) the length is measured again.
 */
final class Generation {
  int[] values;
  int size;
  private int m; // the parameter codeBits was last computed for; 0: not computed
  private long bits;

  Generation(int[] values, int size) {
    this.values = values;
    this.size = size;
  }

  static Generation empty() {
    return new Generation(new int[8], 0);
  }

  int indexOf(int f) {
    return Arrays.binarySearch(values, 0, size, f);
  }

  /** Inserts {@code f} at {@code index}, the insertion point {@link #indexOf} gave. */
  void insert(int index, int f) {
    if (m > 0) {
      long before = index == 0 ? -1 : values[index - 1];
      bits += length(f - before - 1);
      if (index < size) {
        long after = values[index];
        bits += length(after - f - 1) - length(after - before - 1);
      }
    }
    if (size == values.length) {
      values = Arrays.copyOf(values, Math.max(8, size * 2));
    }
    System.arraycopy(values, index, values, index + 1, size - index);
    values[index] = f;
    size++;
  }

  void remove(int index) {
    if (m > 0) {
      long before = index == 0 ? -1 : values[index - 1];
      bits -= length(values[index] - before - 1);
      if (index + 1 < size) {
        long after = values[index + 1];
        bits += length(after - before - 1) - length(after - values[index] - 1);
      }
    }
    System.arraycopy(values, index + 1, values, index, size - index - 1);
    size--;
  }

  /** Bits of this generation's Golomb code, with the parameter its count gives in {@code range}. */
  long codeBits(long range) {
    int want = GolombBits.parameter(size, range);
    if (want != m) {
      m = want;
      bits = GolombBits.golombBits(values, size, m);
    }
    return bits;
  }

  /** The parameter {@link #codeBits} uses. */
  int parameter(long range) {
    return GolombBits.parameter(size, range);
  }

  private long length(long gap) {
    return GolombBits.codeLength(gap, m);
  }
}
