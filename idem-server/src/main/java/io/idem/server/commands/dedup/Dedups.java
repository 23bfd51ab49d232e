package io.idem.server.commands.dedup;

import io.idem.core.dedup.ClaimStore;
import io.idem.core.dedup.CorruptRowsException;
import io.idem.core.dedup.DedupTable;
import io.idem.core.dedup.TableFullException;
import io.idem.server.commands.ClaimStores;
import io.idem.server.dispatch.CommandException;
import io.idem.server.engine.Entry;
import io.idem.server.engine.KeyTx;
import io.idem.server.engine.Rows;
import io.idem.server.reply.Reply;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/** What the DEDUP.* handlers share, and the adapter from the engine to core's table. */
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

  /** The table's store under the key's lock: its rows in the engine, its operations in the log. */
  static ClaimStore store(KeyTx tx, Rows rows) {
    return ClaimStores.store(tx, rows);
  }

  /** The store of a change that reads no row (the window moving). */
  static ClaimStore logOnly(KeyTx tx) {
    return ClaimStores.logOnly(tx, "a dedup table");
  }

  /** The table's rows for a read, which records nothing. */
  static ClaimStore reading(Rows rows, long valueId) {
    return ClaimStores.reading(rows, valueId);
  }

  /** Runs a call on a table, its refusals as the commands' error replies. */
  static <T> T refusing(Supplier<T> call) {
    try {
      return call.get();
    } catch (TableFullException e) {
      throw new CommandException(
          e.reason() == TableFullException.Reason.MEMORY
              ? DedupArgs.NO_MEMORY
              : DedupArgs.SLICE_FULL);
    } catch (CorruptRowsException e) {
      throw new CommandException(DedupArgs.CORRUPT_ROWS);
    }
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
