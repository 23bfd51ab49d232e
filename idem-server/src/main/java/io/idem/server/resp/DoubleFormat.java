package io.idem.server.resp;

import org.jspecify.annotations.Nullable;

/**
 * Doubles as Redis prints them in replies (util.c d2string, since Redis 7.2): {@code nan}, {@code
 * inf}, {@code -inf}, {@code 0}, {@code -0}; integers up to 2^62 in magnitude as integers ({@code
 * 3}, not {@code 3.0}); anything else in the fewest digits that read back as the same double, laid
 * out as Redis's fpconv_dtoa lays them out ({@code 0.001}, {@code 1.5e-7}, {@code 1e+300}).
 */
final class DoubleFormat {
  /*
   * The shortest digits come from Double.toString, which since JDK 19 prints the shortest decimal
   * that rounds to the double (Raffaello Giulietti's algorithm). Redis gets its digits from Grisu2,
   * which finds the shortest in all but rare cases, where it prints one digit more; both read back
   * as the same double, so a client sees the same number.
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
    String s = Double.toString(Math.abs(value)); // "123.25" or "1.5E-7"
    int e = s.indexOf('E');
    int mantissaEnd = e < 0 ? s.length() : e;
    int exponent = e < 0 ? 0 : Integer.parseInt(s, e + 1, s.length(), 10);
    int dot = s.indexOf('.');
    byte[] digits = new byte[mantissaEnd];
    int n = 0;
    for (int i = 0; i < mantissaEnd; i++) {
      char c = s.charAt(i);
      if (c != '.' && (n > 0 || c != '0')) {
        digits[n++] = (byte) c;
      }
    }
    int k = exponent - (mantissaEnd - dot - 1);
    while (n > 1 && digits[n - 1] == '0') {
      n--;
      k++;
    }
    if (n == 2
        && Math.abs(value) < Double.MIN_NORMAL
        && oneDigitReadsBack(digits, k, Math.abs(value))) {
      n = 1; // digits and k were rewritten to the one digit
      k = k + 1;
      if (digits[0] == ':') { // 9 rounded up to 10
        digits[0] = '1';
        k++;
      }
    }
    return layOut(digits, n, k, value < 0);
  }

  /**
   * Java prints at least two digits where one would do (4.9E-324 for Double.MIN_VALUE, whose
   * shortest form is 5e-324); this happens only for subnormals. Tries the two one-digit neighbours
   * of the two digits, nearer first, and keeps the first that reads back as the value, writing its
   * digit (':' for ten) to digits[0].
   */
  private static boolean oneDigitReadsBack(byte[] digits, int k, double magnitude) {
    int d = digits[0] - '0';
    boolean up = digits[1] >= '5';
    for (int candidate : up ? new int[] {d + 1, d} : new int[] {d, d + 1}) {
      if (Double.parseDouble(candidate + "e" + (k + 1)) == magnitude) {
        digits[0] = (byte) ('0' + candidate);
        return true;
      }
    }
    return false;
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
    return java.util.Arrays.copyOf(out, len);
  }
}
