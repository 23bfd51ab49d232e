package io.idem.server.commands.bloom;

import io.idem.core.filter.BadDumpException;

/**
 * RedisBloom's BF.* error texts, verbatim: some have no ERR code, and clients match on them. The
 * extra detail Idem adds to a bad chunk follows RedisBloom's text, so a prefix match still holds.
 */
final class BloomErrors {

  static final String NOT_FOUND = "ERR not found";
  static final String ITEM_EXISTS = "ERR item exists";

  static final String BAD_ERROR_RATE = "ERR bad error rate";
  static final String ERROR_RATE_RANGE = "ERR (0 < error rate range < 1) "; // with its space
  static final String BAD_CAPACITY = "ERR bad capacity";
  static final String CAPACITY_AT_LEAST_ONE = "ERR (capacity should be larger than 0)";

  /** Idem's own limit, which RedisBloom has not. */
  static final String CAPACITY_AT_MOST = "ERR capacity must be at most 1073741824";

  static final String NO_EXPANSION = "ERR no expansion";
  static final String BAD_EXPANSION = "ERR bad expansion";
  static final String NONSCALING_CANNOT_EXPAND = "Nonscaling filters cannot expand";
  static final String EXPANSION_AT_LEAST_ONE = "ERR expansion should be greater or equal to 1";

  /** Idem's own limit, which RedisBloom has not. */
  static final String EXPANSION_AT_MOST = "ERR expansion must be at most 32768";

  // BF.INSERT's option errors have no ERR code.
  static final String INSERT_BAD_ERROR_RATE = "Bad error rate";
  static final String INSERT_BAD_CAPACITY = "Bad capacity";
  static final String INSERT_BAD_EXPANSION = "Bad expansion";
  static final String UNKNOWN_ARGUMENT = "Unknown argument received";

  /** BF.INSERT's text for an error rate, capacity or expansion out of range. */
  static final String INSERT_BAD_ARGUMENT = "Bad argument received";

  static final String NO_MEMORY = "ERR Insufficient memory to create filter";

  /** Idem's own: the blocked layout's floor, for a rate only the classic layout builds. */
  static final String BLOCKED_RATE_TOO_LOW =
      "ERR error rate too low for bf-layout blocked (a layer's rate must be at least 1e-15);"
          + " use bf-layout classic";

  static final String NON_SCALING_FULL = "ERR non scaling filter is full";
  static final String PROBLEM_INSERTING = "ERR problem inserting into filter";

  static final String INVALID_INFO = "Invalid information value";

  /** BF.SCANDUMP's text has no ERR code; BF.LOADCHUNK's has. */
  static final String SCANDUMP_NOT_NUMERIC = "Second argument must be numeric";

  static final String LOADCHUNK_NOT_NUMERIC = "ERR Second argument must be numeric";
  static final String BAD_DATA = "ERR received bad data";
  static final String INVALID_ITERATOR = "ERR invalid iterator";

  private BloomErrors() {}

  /**
   * The reply to a dump refused by a filter of either layout: RedisBloom's text; after bad data or
   * an invalid iterator, Idem's detail of what was wrong.
   */
  static String refusedDump(BadDumpException e) {
    String text = "ERR " + e.reply();
    return text.equals(BAD_DATA) || text.equals(INVALID_ITERATOR)
        ? text + ": " + e.getMessage()
        : text;
  }
}
