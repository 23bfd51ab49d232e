package io.idem.server.commands.tdigest;

import io.idem.core.sketch.TDigest;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Parse;
import io.idem.server.engine.Entry;
import org.jspecify.annotations.Nullable;

/** What the TDIGEST.* handlers share: RedisBloom's error texts, the digest at a key, parsing. */
final class Tdigest {

  static final String NOT_FOUND = "ERR T-Digest: key does not exist";
  static final String KEY_EXISTS = "ERR T-Digest: key already exists";
  static final String WRONG_KEYWORD = "ERR T-Digest: wrong keyword";
  static final String BAD_COMPRESSION = "ERR T-Digest: error parsing compression parameter";
  static final String COMPRESSION_NOT_POSITIVE =
      "ERR T-Digest: compression parameter needs to be a positive integer";
  static final String NO_MEMORY = "ERR T-Digest: allocation failed";
  static final String MERGE_NO_MEMORY = "ERR T-Digest: allocation of destination digest failed";
  static final String OVERFLOW = "ERR T-Digest: overflow detected";
  static final String BAD_VALUE = "ERR T-Digest: error parsing val parameter";
  static final String VALUE_NOT_FINITE = "ERR T-Digest: val parameter needs to be a finite number";
  static final String BAD_NUMKEYS = "ERR T-Digest: error parsing numkeys";
  static final String NUMKEYS_NOT_POSITIVE = "ERR T-Digest: numkeys needs to be a positive integer";

  /** Idem's own: the command's values would not fit one log record (2 GiB). */
  static final String TOO_LARGE =
      "ERR T-Digest: the command's values are too large to log together";

  private Tdigest() {}

  /**
   * The digest at the entry.
   *
   * @throws CommandException {@link #NOT_FOUND} if there is none, WRONGTYPE if another type
   */
  static TDigest digest(@Nullable Entry e) {
    TDigest t = Entry.valueOrNull(e, TdigestCodec.INSTANCE);
    if (t == null) {
      throw new CommandException(NOT_FOUND);
    }
    return t;
  }

  /**
   * A COMPRESSION argument: a positive integer, as RedisBloom parses it (whether a digest may be
   * that large is checked later, where RedisBloom allocates).
   *
   * @throws CommandException if it is not one
   */
  static long compression(byte[] arg) {
    Long c = Parse.longOrNull(arg);
    if (c == null) {
      throw new CommandException(BAD_COMPRESSION);
    }
    if (c <= 0) {
      throw new CommandException(COMPRESSION_NOT_POSITIVE);
    }
    return c;
  }
}
