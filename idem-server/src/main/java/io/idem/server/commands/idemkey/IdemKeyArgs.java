package io.idem.server.commands.idemkey;

import io.idem.core.dedup.IdempotencyTable;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Parse;

/** The IDEMKEY.* arguments' parsing and every error text of the family. */
final class IdemKeyArgs {

  static final String NOT_FOUND = "ERR not found";
  static final String EXISTS = "ERR item exists";
  static final String NO_MEMORY = "ERR Insufficient memory for the table";
  static final String CORRUPT_ROWS = "ERR the table's rows on disk are corrupt";
  static final String BAD_DURATION =
      "a duration is a whole number of seconds, or one with ms, s, m, h or d, up to 3650d";
  static final String BAD_TOKEN = "a lease token is a positive integer, as IDEMKEY.BEGIN gave it";
  static final String BAD_ID = "an id is 1 to " + IdempotencyTable.MAX_ID_BYTES + " bytes";
  static final String BAD_FINGERPRINT =
      "a fingerprint is at most " + IdempotencyTable.MAX_FINGERPRINT_BYTES + " bytes";
  static final String BAD_COUNT = "COUNT is an integer from 1 to " + IdemKeyArgs.MAX_COUNT;

  static final int MAX_COUNT = 10_000;

  private IdemKeyArgs() {}

  static long duration(Call call, int i) {
    Long ms = Parse.durationMillisOrNull(call.arg(i));
    if (ms == null) {
      throw CommandException.err(BAD_DURATION);
    }
    return ms;
  }

  /** A positive duration: a lease. */
  static long lease(Call call, int i) {
    long ms = duration(call, i);
    if (ms < 1) {
      throw CommandException.err("a LEASE is at least 1 ms");
    }
    return ms;
  }

  static long token(Call call, int i) {
    Long t = Parse.longOrNull(call.arg(i));
    if (t == null || t < 1) {
      throw CommandException.err(BAD_TOKEN);
    }
    return t;
  }

  static byte[] id(Call call, int i) {
    byte[] id = call.arg(i);
    if (id.length == 0 || id.length > IdempotencyTable.MAX_ID_BYTES) {
      throw CommandException.err(BAD_ID);
    }
    return id;
  }

  static byte[] fingerprint(Call call, int i) {
    byte[] fp = call.arg(i);
    if (fp.length > IdempotencyTable.MAX_FINGERPRINT_BYTES) {
      throw CommandException.err(BAD_FINGERPRINT);
    }
    return fp;
  }

  /** An integer from 1 to max, or the error. */
  static long positive(Call call, int i, long max, String error) {
    Long v = Parse.longOrNull(call.arg(i));
    if (v == null || v < 1 || v > max) {
      throw CommandException.err(error);
    }
    return v;
  }
}
