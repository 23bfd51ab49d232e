package io.idem.core.seen;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
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

  /** Bits of one gap's code with parameter M. */
  static long codeLength(long gap, int m) {
    int b = remainderBits(m);
    return gap / m + 1 + (gap % m < (1L << b) - m ? b - 1 : b);
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

  /** Writes bits into a growing array, up to 56 at a time through a word. */
  static final class Writer {
    private byte[] bytes;
    private int length;
    private long pending;
    private int pendingBits;

    Writer(int initialBytes) {
      bytes = new byte[Math.max(8, initialBytes)];
    }

    /** Writes the low {@code count} bits of {@code value}, {@code count} at most 56. */
    void bits(long value, int count) {
      if (count == 0) {
        return;
      }
      pending = (pending << count) | (value & ((1L << count) - 1));
      pendingBits += count;
      while (pendingBits >= 8) {
        pendingBits -= 8;
        if (length == bytes.length) {
          bytes = Arrays.copyOf(bytes, bytes.length * 2);
        }
        bytes[length++] = (byte) (pending >>> pendingBits);
      }
      pending &= (1L << pendingBits) - 1;
    }

    void bit(int bit) {
      bits(bit, 1);
    }

    private void ones(long count) {
      for (; count >= 32; count -= 32) {
        bits(0xFFFF_FFFFL, 32);
      }
      bits((1L << count) - 1, (int) count);
    }

    /** The Elias gamma code of {@code value}, from 1 to 2^31 - 1 (what the reader accepts). */
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
        ones(gap / m);
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
      if (pendingBits > 0) {
        int pad = 8 - pendingBits;
        bits((1L << pad) - 1, pad);
      }
      return Arrays.copyOf(bytes, length + extraBytes);
    }
  }

  private static final VarHandle LONG_BE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  /**
   * Reads bits from a bounded slice through a 64-bit window; every read past the end is reported,
   * never thrown, and bits past the end read as zeros only inside the window, never as data.
   */
  static final class Reader {
    private final byte[] bytes;
    private final int endByte;
    private final long endBit;
    private long position;

    Reader(byte[] bytes, int fromByte, int toByte) {
      this.bytes = bytes;
      this.position = (long) fromByte * 8;
      this.endByte = toByte;
      this.endBit = (long) toByte * 8;
    }

    long remaining() {
      return endBit - position;
    }

    /** The next 64 bits from the position, zeros past the end of the slice. */
    private long window() {
      int index = (int) (position >>> 3);
      long w;
      if (index + 8 <= endByte) {
        w = (long) LONG_BE.get(bytes, index);
      } else {
        w = 0;
        for (int i = 0; i < 8; i++) {
          w = (w << 8) | (index + i < endByte ? bytes[index + i] & 0xff : 0);
        }
      }
      int shift = (int) (position & 7);
      if (shift > 0) {
        int next = index + 8;
        w = (w << shift) | ((next < endByte ? bytes[next] & 0xff : 0) >>> (8 - shift));
      }
      return w;
    }

    /** Reads {@code count} bits (at most 56), or returns -1 if fewer remain. */
    long bits(int count) {
      if (remaining() < count) {
        return -1;
      }
      if (count == 0) {
        return 0;
      }
      long v = window() >>> (64 - count);
      position += count;
      return v;
    }

    /** Reads a gamma code of at most 31 value bits, or returns -1 if it is cut off or too long. */
    long gamma() {
      int zeros = Long.numberOfLeadingZeros(window());
      if (zeros > 30 || zeros >= remaining()) {
        return -1;
      }
      position += zeros + 1;
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
      if (left == 0) {
        return true;
      }
      long mask = -1L << (64 - left);
      return (window() & mask) == mask;
    }

    /**
     * Reads one Golomb-coded gap and returns the value after {@code previous}, or -1 if the code is
     * cut off, -2 if the value would reach {@code range}. Never reads past the slice and never
     * loops longer than the slice.
     */
    long golombNext(long previous, int m, long range) {
      long base = previous + 1;
      while (true) {
        long valid = Math.min(64, remaining());
        if (valid == 0) {
          return -1;
        }
        int ones = Long.numberOfLeadingZeros(~window());
        long run = Math.min(ones, valid);
        if (run > 0 && base + run * m >= range) {
          return -2;
        }
        base += run * m;
        if (ones >= valid) {
          position += valid;
          if (valid < 64) {
            return -1; // the slice ends inside the unary part
          }
          continue;
        }
        position += ones + 1; // the ones and the zero that ends them
        break;
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
          long low = bits(1);
          if (low < 0) {
            return -1;
          }
          r = ((r << 1) | low) - cutoff;
        }
      }
      long value = base + r;
      return value >= range ? -2 : value;
    }
  }
}
