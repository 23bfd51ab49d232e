package io.idem.server.dispatch;

import io.idem.core.Durations;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/** Redis's strict number parsing of client arguments, with its error texts. */
public final class Parse {

  private Parse() {}

  /**
   * Redis's {@code string2ll}: an optional minus, then digits with no leading zero (or "0" alone),
   * within a signed 64-bit range. No spaces, no plus sign.
   *
   * @return the value, or null if the bytes are not such a number
   */
  public static @Nullable Long longOrNull(byte[] b) {
    int n = b.length;
    if (n == 0 || n > 20) {
      return null;
    }
    if (n == 1 && b[0] == '0') {
      return 0L;
    }
    int i = 0;
    boolean negative = b[0] == '-';
    if (negative) {
      i++;
    }
    if (i == n || b[i] < '1' || b[i] > '9') {
      return null;
    }
    // Accumulate negatively so Long.MIN_VALUE fits.
    long v = 0;
    for (; i < n; i++) {
      int d = b[i] - '0';
      if (d < 0 || d > 9 || v < (Long.MIN_VALUE + d) / 10) {
        return null;
      }
      v = v * 10 - d;
    }
    if (!negative) {
      if (v == Long.MIN_VALUE) {
        return null;
      }
      v = -v;
    }
    return v;
  }

  /** The longest duration any command takes: ten years. */
  public static final long MAX_DURATION_MILLIS = Durations.MAX_MILLIS;

  /** A duration: see {@link Durations#millisOrNull}. */
  public static @Nullable Long durationMillisOrNull(byte[] arg) {
    return Durations.millisOrNull(arg);
  }

  /**
   * A double as Redis reads one for a module (strtod of the whole argument): no surrounding spaces,
   * no NaN, no overflow to infinity or underflow to zero; "inf" and "infinity" are infinite.
   *
   * @return the value, or null if the bytes are not such a number
   */
  public static @Nullable Double doubleOrNull(byte[] a) {
    if (a.length == 0 || a.length > 400) {
      return null;
    }
    String s = new String(a, StandardCharsets.ISO_8859_1);
    String unsigned = s.charAt(0) == '-' || s.charAt(0) == '+' ? s.substring(1) : s;
    String lower = unsigned.toLowerCase(Locale.ROOT);
    if (lower.equals("inf") || lower.equals("infinity")) {
      return s.charAt(0) == '-' ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
    }
    // Double.parseDouble also takes spaces, "NaN", "Infinity" and suffixes such as "1d": only
    // plain decimal or hexadecimal numbers may reach it.
    boolean hex = lower.startsWith("0x");
    boolean mantissaNonZero = false;
    boolean inExponent = false;
    for (int i = 0; i < lower.length(); i++) {
      char c = lower.charAt(i);
      boolean ok =
          (c >= '0' && c <= '9')
              || c == '.'
              || c == '+'
              || c == '-'
              || (hex ? (c >= 'a' && c <= 'f') || c == 'x' || c == 'p' : c == 'e');
      if (!ok) {
        return null;
      }
      inExponent |= hex ? c == 'p' : c == 'e';
      mantissaNonZero |= !inExponent && c >= '1' && c <= '9';
    }
    double v;
    try {
      v = Double.parseDouble(s);
    } catch (NumberFormatException e) {
      return null;
    }
    if (Double.isInfinite(v) || (v == 0 && mantissaNonZero && !hex)) {
      return null; // strtod's ERANGE, which Redis refuses
    }
    return v;
  }

  /** A signed 64-bit integer, else {@code ERR value is not an integer or out of range}. */
  public static long longArg(byte[] b) {
    return longArg(b, Errors.NOT_INTEGER);
  }

  /** A signed 64-bit integer, else the given error text (code included). */
  public static long longArg(byte[] b, String error) {
    Long v = longOrNull(b);
    if (v == null) {
      throw new CommandException(error);
    }
    return v;
  }

  /** A signed 32-bit integer, as Redis's {@code getIntFromObjectOrReply}. */
  public static int intArg(byte[] b) {
    long v = longArg(b);
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw new CommandException(Errors.NOT_INTEGER);
    }
    return (int) v;
  }

  /**
   * An unsigned 64-bit decimal (SCAN's cursor), returned as the same 64 bits in a long.
   *
   * @return the value, or null if the bytes are not digits or exceed 2^64 - 1
   */
  public static @Nullable Long unsignedOrNull(byte[] b) {
    if (b.length == 0 || b.length > 20) {
      return null;
    }
    for (byte c : b) {
      if (c < '0' || c > '9') {
        return null;
      }
    }
    try {
      return Long.parseUnsignedLong(new String(b, StandardCharsets.US_ASCII));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  public static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
