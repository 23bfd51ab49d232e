package io.idem.server.commands.topk;

import io.idem.core.sketch.TopK;
import io.idem.server.dispatch.CommandException;
import io.idem.server.engine.Entry;
import io.idem.server.reply.Reply;
import org.jspecify.annotations.Nullable;

/** What the TOPK.* handlers share: RedisBloom's error texts and limits, the sketch at a key. */
final class Topk {

  static final String KEY_EXISTS = "TopK: key already exists";
  static final String NOT_FOUND = "TopK: key does not exist";
  static final String BAD_K = "TopK: invalid k";
  static final String BAD_WIDTH = "TopK: invalid width";
  static final String BAD_DEPTH = "TopK: invalid depth";
  static final String BAD_DECAY = "TopK: invalid decay value. must be '<= 1' & '> 0'";
  static final String NO_MEMORY = "ERR Insufficient memory to create topk data structure";

  /** RedisBloom's text, with the 28 spaces its source's line continuation puts in it. */
  static final String BAD_INCREMENT =
      "TopK: increment must be an integer greater or equal to 0"
          + " ".repeat(28)
          + "and smaller or equal to 100,000";

  static final String WITHCOUNT_EXPECTED = "WITHCOUNT keyword expected";

  /** Idem's own: the command's items would not fit one log record (2 GiB). */
  static final String TOO_LARGE = "ERR TopK: the command's items are too large to log together";

  static final long MAX_INCREMENT = 100_000;

  private Topk() {}

  /**
   * The sketch at the entry.
   *
   * @throws CommandException {@link #NOT_FOUND} if there is none, WRONGTYPE if another type
   */
  static TopK sketch(@Nullable Entry e) {
    TopK t = Entry.valueOrNull(e, TopkCodec.INSTANCE);
    if (t == null) {
      throw new CommandException(NOT_FOUND);
    }
    return t;
  }

  /** An item as a reply: its bytes, or null for none. */
  static Reply item(byte @Nullable [] item) {
    return item == null ? Reply.NULL : Reply.bulk(item);
  }
}
