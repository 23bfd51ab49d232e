package io.idem.server.resp;

import java.math.BigInteger;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Doubles as Redis prints them in replies (util.c d2string, since Redis 7.2): {@code nan}, {@code
 * inf}, {@code -inf}, {@code 0}, {@code -0}; integers up to 2^62 in magnitude as integers ({@code
 * 3}, not {@code 3.0}); anything else with the digits of the Grisu2 algorithm, laid out as Redis's
 * fpconv_dtoa lays them out ({@code 0.001}, {@code 1.5e-7}, {@code 1e+300}).
 */
final class DoubleFormat {
  /*
   * Grisu2 [Loitsch, "Printing floating-point numbers quickly and accurately with integers",
   * PLDI 2010]: the double's neighbours bound an interval of decimals that read back as it; the
   * interval is scaled by a cached power of ten into 64-bit fixed point, shrunk by one unit for the
   * rounding errors, and digits are generated from its upper end until they fall inside it, then
   * nudged toward the double. Every read-back-exact decimal it prints is the shortest in almost
   * all cases, but not all (1e23 prints as 99999999999999990000000, 894.994574 as
   * 894.9945739999999), so this is Grisu2 step for step as Redis runs it, not Java's shortest
   * (Double.toString), and a client sees the very bytes Redis would send. Arithmetic is unsigned
   * 64-bit, wrapping where Redis's C wraps.
   *
   * Layout, from the digits d (n of them) and the exponent k with value = d * 10^k, and
   * x = |k + n - 1|, the decimal exponent of the first digit:
   *   k >= 0 and k < 8             d then k zeros               4611686018427389000
   *   k < 0 and (k > -7 or x < 4)  a decimal point, no exponent 0.000001, 0.30000000000000004
   *   otherwise                    d.ddde±x, x not padded       1e-7, 1.2345678901234567e+6
   */

  static final byte[] NAN = RespEncoder.ascii("nan");
  static final byte[] INF = RespEncoder.ascii("inf");
  static final byte[] MINUS_INF = RespEncoder.ascii("-inf");
  static final byte[] ZERO = RespEncoder.ascii("0");
  static final byte[] MINUS_ZERO = RespEncoder.ascii("-0");

  /** 2^62: Redis prints integral doubles up to this magnitude through its integer printer. */
  private static final double INTEGER_RANGE = (double) (Long.MAX_VALUE / 2);

  private static final long FRACTION_MASK = (1L << 52) - 1;
  private static final long HIDDEN_BIT = 1L << 52;
  private static final int EXPONENT_BIAS = 1023 + 52;

  // Cached powers 10^k for k = FIRST_POWER + POWER_STEP * i, each a 64-bit significand with its top
  // bit set and a binary exponent, rounded to nearest.
  private static final int FIRST_POWER = -348;
  private static final int POWER_STEP = 8;
  private static final int POWERS = 87;
  private static final long[] POWER_FRACTION = new long[POWERS];
  private static final int[] POWER_EXPONENT = new int[POWERS];

  /** The scaled exponent range the cached power is chosen for. */
  private static final int MIN_SCALED_EXPONENT = -60;

  private static final int MAX_SCALED_EXPONENT = -32;

  /** 10^19 down to 10^0, unsigned. */
  private static final long[] TENS = new long[20];

  static {
    for (int i = 0; i < POWERS; i++) {
      BigInteger[] power = normalizedPowerOfTen(FIRST_POWER + POWER_STEP * i);
      POWER_FRACTION[i] = power[0].longValue();
      POWER_EXPONENT[i] = power[1].intValueExact();
    }
    long ten = 1;
    for (int i = 19; i >= 0; i--) {
      TENS[i] = ten;
      ten *= 10;
    }
  }

  private DoubleFormat() {}

  /** The text of NaN, the infinities and the zeros; null for any other value. */
  static byte @Nullable [] special(double value) {
    if (Double.isNaN(value)) {
      return NAN;
    } else if (Double.isInfinite(value)) {
      return value > 0 ? INF : MINUS_INF;
    } else if (value == 0) {
      return 1 / value < 0 ? MINUS_ZERO : ZERO;
    }
    return null;
  }

  /** Whether Redis prints this finite value as an integer. */
  static boolean isPrintedAsInteger(double value) {
    return value >= -INTEGER_RANGE && value <= INTEGER_RANGE && (long) value == value;
  }

  /** The text of a finite, nonzero value that is not printed as an integer. */
  static byte[] shortest(double value) {
    byte[] digits = new byte[20];
    int[] exponent = new int[1];
    int n = grisu2(value, digits, exponent);
    return layOut(digits, n, exponent[0], value < 0);
  }

  /** Writes the digits of |value| to {@code digits}, and k (value = digits * 10^k) to k[0]. */
  private static int grisu2(double value, byte[] digits, int[] k) {
    long bits = Double.doubleToRawLongBits(value);
    long f = bits & FRACTION_MASK;
    int e = (int) ((bits >>> 52) & 0x7ff);
    if (e != 0) {
      f += HIDDEN_BIT;
      e -= EXPONENT_BIAS;
    } else {
      e = 1 - EXPONENT_BIAS; // subnormal
    }

    // The interval's ends, halfway to the neighbours; the lower one is nearer for a power of two.
    long upper = (f << 1) + 1;
    int upperExponent = e - 1;
    while ((upper & (HIDDEN_BIT << 1)) == 0) {
      upper <<= 1;
      upperExponent--;
    }
    upper <<= 10;
    upperExponent -= 10;
    int lowerShift = f == HIDDEN_BIT ? 2 : 1;
    long lower = ((f << lowerShift) - 1) << (e - lowerShift - upperExponent);

    long w = f;
    int wExponent = e;
    while ((w & HIDDEN_BIT) == 0) {
      w <<= 1;
      wExponent--;
    }
    w <<= 11;

    int index = cachedPowerIndex(upperExponent);
    long power = POWER_FRACTION[index];
    w = multiply(w, power);
    upper = multiply(upper, power) - 1;
    lower = multiply(lower, power) + 1;
    k[0] = -(FIRST_POWER + POWER_STEP * index);
    return generateDigits(w, upper, lower, upperExponent + POWER_EXPONENT[index] + 64, digits, k);
  }

  /** The cached power that brings an exponent into [MIN_SCALED, MAX_SCALED]. */
  private static int cachedPowerIndex(int exponent) {
    int approx = (int) (-(exponent + POWERS) * 0.30102999566398114);
    int index = (approx - FIRST_POWER) / POWER_STEP;
    while (true) {
      int scaled = exponent + POWER_EXPONENT[index] + 64;
      if (scaled < MIN_SCALED_EXPONENT) {
        index++;
      } else if (scaled > MAX_SCALED_EXPONENT) {
        index--;
      } else {
        return index;
      }
    }
  }

  /** The upper 64 bits of the 128-bit product, rounded half up. */
  private static long multiply(long a, long b) {
    return Math.unsignedMultiplyHigh(a, b) + ((a * b) >>> 63);
  }

  private static int generateDigits(
      long w, long upper, long lower, int exponent, byte[] digits, int[] k) {
    long distance = upper - w;
    long delta = upper - lower;
    int shift = -exponent;
    long one = 1L << shift;
    long integral = upper >>> shift; // below 2^32
    long fraction = upper & (one - 1);
    int n = 0;
    int kappa = 10;
    for (int t = 10; kappa > 0; t++) {
      long divisor = TENS[t];
      int digit = (int) (integral / divisor);
      if (digit != 0 || n != 0) {
        digits[n++] = (byte) ('0' + digit);
      }
      integral -= digit * divisor;
      kappa--;
      long rest = (integral << shift) + fraction;
      if (Long.compareUnsigned(rest, delta) <= 0) {
        k[0] += kappa;
        roundDigit(digits, n, delta, rest, divisor << shift, distance);
        return n;
      }
    }
    for (int unit = 18; ; unit--) {
      fraction *= 10;
      delta *= 10;
      kappa--;
      int digit = (int) (fraction >>> shift);
      if (digit != 0 || n != 0) {
        digits[n++] = (byte) ('0' + digit);
      }
      fraction &= one - 1;
      if (Long.compareUnsigned(fraction, delta) < 0) {
        k[0] += kappa;
        roundDigit(digits, n, delta, fraction, one, distance * TENS[unit]);
        return n;
      }
    }
  }

  /** Lowers the last digit while that brings the decimal nearer the double, inside the interval. */
  private static void roundDigit(
      byte[] digits, int n, long delta, long rest, long ten, long distance) {
    while (Long.compareUnsigned(rest, distance) < 0
        && Long.compareUnsigned(delta - rest, ten) >= 0
        && (Long.compareUnsigned(rest + ten, distance) < 0
            || Long.compareUnsigned(distance - rest, rest + ten - distance) > 0)) {
      digits[n - 1]--;
      rest += ten;
    }
  }

  /** 10^k as {significand with its top bit set, binary exponent}, rounded to nearest. */
  static BigInteger[] normalizedPowerOfTen(int k) {
    BigInteger numerator = k >= 0 ? BigInteger.TEN.pow(k) : BigInteger.ONE;
    BigInteger denominator = k >= 0 ? BigInteger.ONE : BigInteger.TEN.pow(-k);
    int e = numerator.bitLength() - denominator.bitLength() - 64;
    while (true) {
      BigInteger n = e < 0 ? numerator.shiftLeft(-e) : numerator;
      BigInteger d = e > 0 ? denominator.shiftLeft(e) : denominator;
      BigInteger[] qr = n.divideAndRemainder(d);
      BigInteger q = qr[0];
      if (qr[1].shiftLeft(1).compareTo(d) >= 0) {
        q = q.add(BigInteger.ONE);
      }
      if (q.bitLength() > 64) {
        e++;
      } else if (q.bitLength() < 64) {
        e--;
      } else {
        return new BigInteger[] {q, BigInteger.valueOf(e)};
      }
    }
  }

  private static byte[] layOut(byte[] digits, int n, int k, boolean negative) {
    byte[] out = new byte[32];
    int len = 0;
    if (negative) {
      out[len++] = '-';
    }
    int x = Math.abs(k + n - 1);
    if (k >= 0 && x < n + 7) {
      System.arraycopy(digits, 0, out, len, n);
      len += n;
      for (int i = 0; i < k; i++) {
        out[len++] = '0';
      }
    } else if (k < 0 && (k > -7 || x < 4)) {
      int integerDigits = n + k;
      if (integerDigits <= 0) {
        out[len++] = '0';
        out[len++] = '.';
        for (int i = 0; i < -integerDigits; i++) {
          out[len++] = '0';
        }
        System.arraycopy(digits, 0, out, len, n);
        len += n;
      } else {
        System.arraycopy(digits, 0, out, len, integerDigits);
        len += integerDigits;
        out[len++] = '.';
        System.arraycopy(digits, integerDigits, out, len, n - integerDigits);
        len += n - integerDigits;
      }
    } else {
      n = Math.min(n, negative ? 17 : 18); // as Redis: its buffer holds 24 characters
      out[len++] = digits[0];
      if (n > 1) {
        out[len++] = '.';
        System.arraycopy(digits, 1, out, len, n - 1);
        len += n - 1;
      }
      out[len++] = 'e';
      out[len++] = (byte) (k + n - 1 < 0 ? '-' : '+');
      if (x >= 100) {
        out[len++] = (byte) ('0' + x / 100);
        out[len++] = (byte) ('0' + x / 10 % 10);
      } else if (x >= 10) {
        out[len++] = (byte) ('0' + x / 10);
      }
      out[len++] = (byte) ('0' + x % 10);
    }
    return Arrays.copyOf(out, len);
  }
}
