package io.idem.server.commands.cuckoo;

import io.idem.core.filter.BadDumpException;

/**
 * RedisBloom's CF.* error texts, verbatim: most have no ERR code, and clients match on them. Where
 * Idem says why a dump chunk or header was refused, the reason follows RedisBloom's text after a
 * colon, so a prefix match still holds.
 */
final class CuckooErrors {

  static final String NOT_FOUND = "ERR not found";
  static final String ITEM_EXISTS = "ERR item exists";

  static final String BAD_CAPACITY = "Bad capacity";
  static final String BAD_MAX_ITERATIONS = "Couldn't parse MAXITERATIONS";
  static final String BAD_BUCKET_SIZE = "Couldn't parse BUCKETSIZE";
  static final String BAD_EXPANSION = "Couldn't parse EXPANSION";
  static final String MAX_ITERATIONS_RANGE =
      "MAXITERATIONS: value must be an integer between 1 and 65535, inclusive.";
  static final String BUCKET_SIZE_RANGE =
      "BUCKETSIZE: value must be an integer between 1 and 255, inclusive.";
  static final String EXPANSION_RANGE =
      "EXPANSION: value must be an integer between 0 and 32768, inclusive.";
  static final String CAPACITY_AT_LEAST = "Capacity must be at least (BucketSize * 2)";

  /** Idem's own limit, which RedisBloom has not. */
  static final String CAPACITY_AT_MOST = "Capacity must be at most 1073741824";

  static final String UNKNOWN_ARGUMENT = "Unknown argument received";

  static final String NO_MEMORY_TO_CREATE = "ERR Insufficient memory to create filter";
  static final String FULL = "Filter is full";
  static final String NO_MEMORY = "ERR Insufficient memory";
  static final String MAX_EXPANSIONS = "Maximum expansions reached";

  static final String DEL_NOT_FOUND = "Not found";
  static final String COMPACT_NOT_FOUND = "Cuckoo filter was not found";
  static final String INVALID_INFO = "Invalid information value";

  static final String INVALID_POSITION = "Invalid position";
  static final String CANNOT_CREATE = "Couldn't create filter!";
  static final String CANNOT_LOAD = "Couldn't load chunk!";

  private CuckooErrors() {}

  /** RedisBloom's text, then Idem's reason. */
  static String because(String text, String reason) {
    return text + ": " + reason;
  }

  /**
   * The reply to a dump refused by a filter of either layout: RedisBloom's text, then Idem's reason
   * for the three that carry one (a position, a chunk, a header's filter). The others, such as
   * "Invalid header" for a header of neither layout's length, come alone.
   */
  static String refusedDump(BadDumpException e) {
    String text = e.reply();
    return text.equals(INVALID_POSITION) || text.equals(CANNOT_LOAD) || text.equals(CANNOT_CREATE)
        ? because(text, e.getMessage())
        : text;
  }
}
