package io.idem.server.commands.dedup;

import io.idem.core.dedup.DedupLimits;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Parse;
import java.nio.charset.StandardCharsets;

/** Argument parsing, limits and error texts of the DEDUP.* commands. */
final class DedupArgs {

  // The structure's limits live with it in core; the commands name them here.
  static final long MIN_WINDOW_MILLIS = DedupLimits.MIN_WINDOW_MILLIS;
  static final long MAX_WINDOW_MILLIS = DedupLimits.MAX_WINDOW_MILLIS;
  static final int MAX_SLICES = DedupLimits.MAX_SLICES;
  static final int DEFAULT_SLICES = DedupLimits.DEFAULT_SLICES;
  static final long DEFAULT_CAPACITY = DedupLimits.DEFAULT_CAPACITY;
  static final long MAX_CAPACITY = DedupLimits.MAX_CAPACITY;
  static final long MAX_SLOTS = DedupLimits.MAX_SLOTS;
  static final int MAX_ID_BYTES = DedupLimits.MAX_ID_BYTES;
  static final int MAX_OWNER_BYTES = DedupLimits.MAX_OWNER_BYTES;

  static final String NOT_FOUND = "ERR not found";
  static final String EXISTS = "ERR item exists";
  static final String BAD_WINDOW = text(DedupLimits.Problem.WINDOW);
  static final String BAD_SLICES = text(DedupLimits.Problem.SLICES);
  static final String BAD_CAPACITY = text(DedupLimits.Problem.CAPACITY);
  static final String BAD_ERROR_RATE = text(DedupLimits.Problem.ERROR_RATE);
  static final String BAD_SLOTS = text(DedupLimits.Problem.SLOTS);
  static final String BAD_AT = "ERR AT must be a Unix time in milliseconds";
  static final String ID_TOO_LONG = "ERR id longer than " + MAX_ID_BYTES + " bytes";
  static final String OWNER_TOO_LONG = "ERR owner longer than " + MAX_OWNER_BYTES + " bytes";
  static final String NO_MEMORY = "ERR Insufficient memory for the dedup table";
  static final String SLICE_FULL =
      "ERR a slice's filter is full: reserve the table with a larger capacity";
  static final String CORRUPT_ROWS = "ERR the dedup table's rows in the store are corrupt";
  static final String NO_RELEASE =
      "ERR a FILTER table keeps no owners, so a claim cannot be released";

  private DedupArgs() {}

  /** A window: plain seconds, or a number with ms, s, m, h or d. */
  static long windowMillis(byte[] arg) {
    Long millis = Parse.durationMillisOrNull(arg);
    if (millis == null || millis < MIN_WINDOW_MILLIS || millis > MAX_WINDOW_MILLIS) {
      throw new CommandException(BAD_WINDOW);
    }
    return millis;
  }

  static long positive(byte[] arg, long max, String error) {
    Long n = Parse.longOrNull(arg);
    if (n == null || n < 1 || n > max) {
      throw new CommandException(error);
    }
    return n;
  }

  static double errorRate(byte[] arg) {
    double d;
    try {
      String s = new String(arg, StandardCharsets.ISO_8859_1);
      if (s.isEmpty() || s.length() > 64 || !s.matches("[0-9.eE+-]+")) {
        throw new NumberFormatException();
      }
      d = Double.parseDouble(s);
    } catch (NumberFormatException e) {
      throw new CommandException(BAD_ERROR_RATE);
    }
    if (!(d > 0 && d < 1)) {
      throw new CommandException(BAD_ERROR_RATE);
    }
    return d;
  }

  /** An event time from AT: milliseconds since the epoch, not negative. */
  static long at(byte[] arg) {
    Long n = Parse.longOrNull(arg);
    if (n == null || n < 0) {
      throw new CommandException(BAD_AT);
    }
    return n;
  }

  static byte[] id(Call call, int i) {
    byte[] id = call.arg(i);
    if (id.length > MAX_ID_BYTES) {
      throw new CommandException(ID_TOO_LONG);
    }
    return id;
  }

  static byte[] owner(Call call, int i) {
    byte[] owner = call.arg(i);
    if (owner.length > MAX_OWNER_BYTES) {
      throw new CommandException(OWNER_TOO_LONG);
    }
    return owner;
  }

  /** The error reply for a table's bad parameters. */
  static String text(DedupLimits.Problem p) {
    return "ERR " + p.message();
  }
}
