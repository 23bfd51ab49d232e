package io.idem.server.commands;

import io.idem.core.dedup.ClaimStore;
import io.idem.core.store.RowChange;
import io.idem.server.engine.KeyTx;
import io.idem.server.engine.Rows;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The adapter from the engine to core's {@link ClaimStore}, for the tables that keep rows (DEDUP's
 * and IDEMKEY's): a table's rows in the engine, its operations in the key's transaction's log.
 */
public final class ClaimStores {

  private ClaimStores() {}

  /** The table's store under the key's lock: its rows in the engine, its operations in the log. */
  public static ClaimStore store(KeyTx tx, Rows rows) {
    long valueId = tx.entry().id();
    return logging(tx, key -> rows.get(valueId, key));
  }

  /** The store of a change that reads no row (the window moving); {@code what} names the table. */
  public static ClaimStore logOnly(KeyTx tx, String what) {
    return logging(
        tx,
        key -> {
          throw new IllegalStateException(what + " read a row where it reads none");
        });
  }

  /** The table's rows for a read, which records nothing. */
  public static ClaimStore reading(Rows rows, long valueId) {
    return ClaimStore.readOnly(key -> rows.get(valueId, key));
  }

  private static ClaimStore logging(KeyTx tx, Function<byte[], byte @Nullable []> rows) {
    return new ClaimStore() {
      @Override
      public byte @Nullable [] row(byte[] key) {
        return rows.apply(key);
      }

      @Override
      public void record(byte op, byte[] payload, List<RowChange> changes) {
        tx.log(op, payload, changes);
      }
    };
  }
}
