package io.idem.server.commands.idemkey;

import io.idem.core.dedup.ClaimStore;
import io.idem.core.dedup.CorruptRowsException;
import io.idem.core.dedup.IdempotencyTable;
import io.idem.server.commands.ClaimStores;
import io.idem.server.dispatch.CommandException;
import io.idem.server.engine.Entry;
import io.idem.server.engine.KeyTx;
import io.idem.server.engine.Rows;
import io.idem.server.reply.Reply;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/** What the IDEMKEY.* handlers share, and the adapter from the engine to core's table. */
final class IdemKeys {

  private IdemKeys() {}

  /** The key's table: WRONGTYPE for another type, {@code ERR not found} for a free key. */
  static IdempotencyTable table(@Nullable Entry e) {
    IdempotencyTable t = Entry.valueOrNull(e, IdemKeyCodec.INSTANCE);
    if (t == null) {
      throw new CommandException(IdemKeyArgs.NOT_FOUND);
    }
    return t;
  }

  /** The table's store under the key's lock: its rows in the engine, its operations in the log. */
  static ClaimStore store(KeyTx tx, Rows rows) {
    return ClaimStores.store(tx, rows);
  }

  /** The store of a change that reads no row (the window moving). */
  static ClaimStore logOnly(KeyTx tx) {
    return ClaimStores.logOnly(tx, "an idempotency table");
  }

  /** The table's rows for a read, which records nothing. */
  static ClaimStore reading(Rows rows, long valueId) {
    return ClaimStores.reading(rows, valueId);
  }

  /** Runs a call on a table, its refusals as the commands' error replies. */
  static <T> T refusing(Supplier<T> call) {
    try {
      return call.get();
    } catch (IdempotencyTable.TooManyInProgressException e) {
      throw CommandException.err(e.getMessage());
    } catch (IllegalArgumentException e) {
      throw CommandException.err(e.getMessage());
    } catch (CorruptRowsException e) {
      throw new CommandException(IdemKeyArgs.CORRUPT_ROWS);
    }
  }

  static final Reply STARTED = Reply.simple("started");
  static final Reply DONE = Reply.simple("done");
  static final Reply IN_PROGRESS = Reply.simple("in_progress");
  static final Reply MISMATCH = Reply.simple("mismatch");

  /** A begin's reply: [status, token | result | milliseconds left | nil]. */
  static Reply reply(IdempotencyTable.Begun b, long now) {
    return switch (b) {
      case IdempotencyTable.Started s -> Reply.array(STARTED, Reply.integer(s.token()));
      case IdempotencyTable.Done d -> Reply.array(DONE, Reply.bulk(d.result()));
      case IdempotencyTable.InProgress p -> inProgress(Math.max(0, p.leaseUntil() - now));
      case IdempotencyTable.Mismatch m -> Reply.array(MISMATCH, Reply.NULL);
    };
  }

  /** [in_progress, milliseconds the lease has left]. */
  static Reply inProgress(long leftMillis) {
    return Reply.array(IN_PROGRESS, Reply.integer(leftMillis));
  }
}
