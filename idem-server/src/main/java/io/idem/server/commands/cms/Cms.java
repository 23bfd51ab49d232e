package io.idem.server.commands.cms;

import io.idem.core.sketch.CountMinSketch;
import io.idem.server.dispatch.CommandException;
import io.idem.server.engine.Entry;
import org.jspecify.annotations.Nullable;

/** What the CMS.* handlers share: RedisBloom's error texts and the sketch at a key. */
final class Cms {

  static final String KEY_EXISTS = "CMS: key already exists";
  static final String NOT_FOUND = "CMS: key does not exist";
  static final String BAD_WIDTH = "CMS: invalid width";
  static final String BAD_DEPTH = "CMS: invalid depth";
  static final String BAD_ERROR = "CMS: invalid overestimation value";
  static final String BAD_PROB = "CMS: invalid prob value";
  static final String BAD_INIT = "CMS: invalid init arguments";
  static final String NO_MEMORY = "CMS: Insufficient memory to create the key";
  static final String BAD_NUMBER = "CMS: Cannot parse number";
  static final String NEGATIVE = "CMS: Number cannot be negative";
  static final String INCRBY_OVERFLOW = "CMS: INCRBY overflow";
  static final String BAD_NUMKEYS = "CMS: invalid numkeys";
  static final String NUMKEYS_NOT_POSITIVE = "CMS: Number of keys must be positive";
  static final String WRONG_KEYS = "CMS: wrong number of keys";
  static final String WRONG_KEYS_WEIGHTS = "CMS: wrong number of keys/weights";
  static final String BAD_WEIGHT = "CMS: invalid weight value";
  static final String SHAPES_DIFFER = "CMS: width/depth is not equal";
  static final String MERGE_OVERFLOW = "CMS: MERGE overflow";

  /** Idem's own: the merged state, which is logged whole, could not be made in memory. */
  static final String MERGE_NO_MEMORY = "CMS: Insufficient memory to merge";

  private Cms() {}

  /**
   * The sketch at the entry.
   *
   * @throws CommandException {@link #NOT_FOUND} if there is none, WRONGTYPE if another type
   */
  static CountMinSketch sketch(@Nullable Entry e) {
    CountMinSketch s = Entry.valueOrNull(e, CmsCodec.INSTANCE);
    if (s == null) {
      throw new CommandException(NOT_FOUND);
    }
    return s;
  }
}
