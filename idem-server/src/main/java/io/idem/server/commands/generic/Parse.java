package io.idem.server.commands.generic;

import io.idem.server.command.CommandException;
import io.idem.server.command.Errors;
import java.nio.charset.StandardCharsets;
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
