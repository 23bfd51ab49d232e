package io.idem.server.commands.bloom;

import io.idem.server.command.CommandException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** Numbers from client arguments, read as strictly as Redis reads them for modules. */
final class BloomArgs {

  private BloomArgs() {}

  /**
   * A 64-bit integer as Redis's string2ll reads it: "0", or an optional '-' and digits without a
   * leading zero, in range; no spaces, no '+'.
   *
   * @throws CommandException with {@code error} otherwise
   */
  static long parseLong(byte[] a, String error) {
    int n = a.length;
    if (n == 0 || n > 20) {
      throw new CommandException(error);
    }
    if (n == 1 && a[0] == '0') {
      return 0;
    }
    boolean negative = a[0] == '-';
    int i = negative ? 1 : 0;
    if (i == n || a[i] < '1' || a[i] > '9') {
      throw new CommandException(error);
    }
    // Accumulate negatively, so Long.MIN_VALUE fits.
    long v = 0;
    for (; i < n; i++) {
      int d = a[i] - '0';
      if (d < 0 || d > 9 || v < (Long.MIN_VALUE + d) / 10) {
        throw new CommandException(error);
      }
      v = v * 10 - d;
    }
    if (!negative) {
      if (v == Long.MIN_VALUE) {
        throw new CommandException(error);
      }
      v = -v;
    }
    return v;
  }

  /**
   * A double as Redis reads one for a module (strtod of the whole argument): no surrounding spaces,
   * no NaN, no overflow to infinity or underflow to zero; "inf" and "infinity" are infinite.
   *
   * @throws CommandException with {@code error} otherwise
   */
  static double parseDouble(byte[] a, String error) {
    if (a.length == 0 || a.length > 400) {
      throw new CommandException(error);
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
        throw new CommandException(error);
      }
      inExponent |= hex ? c == 'p' : c == 'e';
      mantissaNonZero |= !inExponent && c >= '1' && c <= '9';
    }
    double v;
    try {
      v = Double.parseDouble(s);
    } catch (NumberFormatException e) {
      throw new CommandException(error);
    }
    if (Double.isInfinite(v) || (v == 0 && mantissaNonZero && !hex)) {
      throw new CommandException(error); // strtod's ERANGE, which Redis refuses
    }
    return v;
  }
}
