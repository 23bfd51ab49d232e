package io.idem.core.seen;

import java.util.Arrays;

/**
 * Bit-level writing and reading of a Golomb-coded set: sorted distinct values in [0, range), each
 * written as its gap from the one before, in Golomb code (quotient in unary, ones ended by a zero;
 * remainder in truncated binary), bits most significant first. Elias gamma codes carry counts.
 *
 * <p>Hand-written: no maintained Java library codes Golomb sets (Guava, Commons and the compression
 * libraries on Maven Central have none), and the whole code is the two loops below.
 */
final class GolombBits {
  private GolombBits() {}

  /**
   * The Golomb parameter for gaps between {@code count} values spread over {@code range}: the
   * smallest M with (1-p)^M + (1-p)^(M+1) <= 1 for p = count/range (Gallager and van Voorhis),
   * which is optimal for geometric gaps. StrictMath so that every JVM derives the same M.
   */
  static int parameter(long count, long range) {
    if (count <= 0) {
      return 1;
    }
    double p = (double) count / range;
    if (p >= 0.5) {
      return 1;
    }
    double m = Math.ceil(StrictMath.log(2 - p) / -StrictMath.log1p(-p));
    return (int) Math.max(1, Math.min(m, 1 << 30));
  }

  /** Bits of a truncated-binary remainder for parameter M: ceil(log2 M). */
  private static int remainderBits(int m) {
    return m == 1 ? 0 : 32 - Integer.numberOfLeadingZeros(m - 1);
  }

  /** The exact number of bits {@link Writer#golomb} writes for these sorted values. */
  static long golombBits(int[] values, int count, int m) {
    int b = remainderBits(m);
    long cutoff = (1L << b) - m;
    long bits = 0;
    int previous = -1;
    for (int i = 0; i < count; i++) {
      long gap = (long) values[i] - previous - 1;
      previous = values[i];
      bits += gap / m + 1 + (gap % m < cutoff ? b - 1 : b);
    }
    return bits;
  }

  /** Bits of the Elias gamma code of {@code value} (>= 1). */
  static int gammaBits(long value) {
    return 2 * (63 - Long.numberOfLeadingZeros(value)) + 1;
  }

  /** Writes bits into a growing array. */
  static final class Writer {
    private byte[] bytes;
    private long bitLength;

    Writer(int initialBytes) {
      bytes = new byte[Math.max(8, initialBytes)];
    }

    void bits(long value, int count) {
      for (int i = count - 1; i >= 0; i--) {
        bit((int) (value >>> i) & 1);
      }
    }

    void bit(int bit) {
      int index = (int) (bitLength >>> 3);
      if (index == bytes.length) {
        bytes = Arrays.copyOf(bytes, bytes.length * 2);
      }
      if (bit != 0) {
        bytes[index] |= (byte) (0x80 >>> (bitLength & 7));
      }
      bitLength++;
    }

    void gamma(long value) {
      int width = 64 - Long.numberOfLeadingZeros(value);
      bits(0, width - 1);
      bits(value, width);
    }

    void golomb(int[] values, int count, int m) {
      int b = remainderBits(m);
      long cutoff = (1L << b) - m;
      int previous = -1;
      for (int i = 0; i < count; i++) {
        long gap = (long) values[i] - previous - 1;
        previous = values[i];
        for (long q = gap / m; q > 0; q--) {
          bit(1);
        }
        bit(0);
        long r = gap % m;
        if (r < cutoff) {
          bits(r, b - 1);
        } else {
          bits(r + cutoff, b);
        }
      }
    }

    /** Pads to a whole byte with ones (which can never read as a code: every code has a zero). */
    byte[] finish(int extraBytes) {
      while ((bitLength & 7) != 0) {
        bit(1);
      }
      return Arrays.copyOf(bytes, (int) (bitLength >>> 3) + extraBytes);
    }
  }

  /** Reads bits from a bounded slice; every read past the end is reported, never thrown. */
  static final class Reader {
    private final byte[] bytes;
    private final long endBit;
    private long position;

    Reader(byte[] bytes, int fromByte, int toByte) {
      this.bytes = bytes;
      this.position = (long) fromByte * 8;
      this.endBit = (long) toByte * 8;
    }

    long remaining() {
      return endBit - position;
    }

    /** The next bit; the caller checks {@link #remaining} first. */
    int bit() {
      int b = (bytes[(int) (position >>> 3)] >>> (7 - (position & 7))) & 1;
      position++;
      return b;
    }

    /** Reads {@code count} bits, or returns -1 if fewer remain. */
    long bits(int count) {
      if (remaining() < count) {
        return -1;
      }
      long v = 0;
      for (int i = 0; i < count; i++) {
        v = (v << 1) | bit();
      }
      return v;
    }

    /** Reads a gamma code of at most 31 value bits, or returns -1 if it is cut off or too long. */
    long gamma() {
      int zeros = 0;
      while (true) {
        if (remaining() == 0) {
          return -1;
        }
        if (bit() == 1) {
          break;
        }
        if (++zeros > 30) {
          return -1;
        }
      }
      long rest = bits(zeros);
      return rest < 0 ? -1 : (1L << zeros) | rest;
    }

    /**
     * Whether only the padding is left: fewer than eight bits, all ones. A code needs a zero, so
     * padding can never be mistaken for one.
     */
    boolean atPadding() {
      long left = remaining();
      if (left >= 8) {
        return false;
      }
      for (long p = position; p < endBit; p++) {
        if (((bytes[(int) (p >>> 3)] >>> (7 - (p & 7))) & 1) == 0) {
          return false;
        }
      }
      return true;
    }

    /**
     * Reads one Golomb-coded gap and returns the value after {@code previous}, or -1 if the code is
     * cut off, -2 if the value would reach {@code range}. Never reads past the slice and never
     * loops longer than the slice.
     */
    long golombNext(long previous, int m, long range) {
      long base = previous + 1;
      while (true) {
        if (remaining() == 0) {
          return -1;
        }
        if (bit() == 0) {
          break;
        }
        base += m;
        if (base >= range) {
          return -2;
        }
      }
      int b = remainderBits(m);
      long cutoff = (1L << b) - m;
      long r = 0;
      if (b > 0) {
        r = bits(b - 1);
        if (r < 0) {
          return -1;
        }
        if (r >= cutoff) {
          if (remaining() == 0) {
            return -1;
          }
          r = ((r << 1) | bit()) - cutoff;
        }
      }
      long value = base + r;
      return value >= range ? -2 : value;
    }
  }
}
