package io.idem.server.commands.cuckoo;

import io.idem.server.dispatch.CommandException;

/** Numbers from client arguments, read as strictly as Redis reads them for modules. */
final class CuckooArgs {

  private CuckooArgs() {}

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
    long v = 0; // accumulated negatively, so Long.MIN_VALUE fits
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
}
