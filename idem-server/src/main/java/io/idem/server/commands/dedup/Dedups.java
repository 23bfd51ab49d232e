package io.idem.server.commands.dedup;

import io.idem.server.dispatch.CommandException;
import io.idem.server.engine.Entry;
import io.idem.server.reply.Reply;
import org.jspecify.annotations.Nullable;

/** What the DEDUP.* handlers share. */
final class Dedups {

  private Dedups() {}

  /** The key's table: WRONGTYPE for another type, {@code ERR not found} for a free key. */
  static DedupTable table(@Nullable Entry e) {
    DedupTable t = Entry.valueOrNull(e, DedupCodec.INSTANCE);
    if (t == null) {
      throw new CommandException(DedupArgs.NOT_FOUND);
    }
    return t;
  }

  private static final Reply NEW = Reply.simple("new");
  private static final Reply RETRY = Reply.simple("retry");
  private static final Reply DUPLICATE = Reply.simple("duplicate");

  /** A claim's reply: [status, owner now holding the id, or nil if the mode keeps none]. */
  static Reply reply(DedupTable.Claimed c) {
    Reply status =
        switch (c.outcome()) {
          case NEW -> NEW;
          case RETRY -> RETRY;
          case DUPLICATE -> DUPLICATE;
        };
    return Reply.array(status, c.owner() == null ? Reply.NULL : Reply.bulk(c.owner()));
  }

  static String modeName(DedupTable.Mode m) {
    return m.name().toLowerCase(java.util.Locale.ROOT);
  }
}
