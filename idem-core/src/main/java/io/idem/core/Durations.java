package io.idem.core;

import org.jspecify.annotations.Nullable;

/** Durations as Idem's commands and settings write them: {@code 90}, {@code 250ms}, {@code 7d}. */
public final class Durations {

  /** The longest duration any command takes: ten years. */
  public static final long MAX_MILLIS = 3650L * 86_400_000;

  private Durations() {}

  /**
   * A duration: plain seconds, or a positive number with ms, s, m, h or d (any case), at most
   * {@link #MAX_MILLIS}.
   *
   * @return milliseconds, or null if the bytes are not such a duration
   */
  public static @Nullable Long millisOrNull(byte[] arg) {
    // Byte by byte, without strings: a window query parses one per window.
    int n = arg.length;
    long unit = 1000;
    int digits = n;
    if (n > 2 && lower(arg[n - 2]) == 'm' && lower(arg[n - 1]) == 's') {
      unit = 1;
      digits = n - 2;
    } else if (n > 1) {
      long u = unitMillis(lower(arg[n - 1]));
      if (u > 0) {
        unit = u;
        digits = n - 1;
      }
    }
    // Decimal digits without a leading zero (which also rules out 0), at most 12 of them.
    if (digits == 0 || digits > 12 || arg[0] == '0') {
      return null;
    }
    long value = 0;
    for (int i = 0; i < digits; i++) {
      byte c = arg[i];
      if (c < '0' || c > '9') {
        return null;
      }
      value = value * 10 + (c - '0');
    }
    if (value > MAX_MILLIS / unit) {
      return null;
    }
    return value * unit;
  }

  private static int lower(byte b) {
    return b >= 'A' && b <= 'Z' ? b + ('a' - 'A') : b;
  }

  /** A duration suffix's milliseconds ({@code s m h d}), or 0. */
  private static long unitMillis(int suffix) {
    return switch (suffix) {
      case 's' -> 1000;
      case 'm' -> 60_000;
      case 'h' -> 3_600_000;
      case 'd' -> 86_400_000;
      default -> 0;
    };
  }
}
