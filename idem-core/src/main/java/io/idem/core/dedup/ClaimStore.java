package io.idem.core.dedup;

import io.idem.core.store.RowChange;
import java.util.List;

/**
 * Where a dedup table keeps what is not in memory, and where its changes go: the server's engine
 * (its rows, its log), or a Kafka Streams store (RocksDB, a changelog).
 */
public interface ClaimStore {

  /** The table's row at this key, or null if there is none. EXACT tables read their rows here. */
  byte @org.jspecify.annotations.Nullable [] row(byte[] key);

  /**
   * Records an operation (one of {@link DedupOps}) already applied to the table in memory, with the
   * changes it makes to the table's rows. Replaying the same operations on a table made from the
   * same recipe, with the same rows, gives the same table.
   */
  void record(byte op, byte[] payload, List<RowChange> rows);

  /** A store for reads only (DEDUP.EXISTS): recording is a bug. */
  static ClaimStore readOnly(java.util.function.Function<byte[], byte[]> rows) {
    return new ClaimStore() {
      @Override
      public byte[] row(byte[] key) {
        return rows.apply(key);
      }

      @Override
      public void record(byte op, byte[] payload, List<RowChange> changes) {
        throw new IllegalStateException("a read recorded dedup operation " + op);
      }
    };
  }
}
