package io.idem.server.engine;

import io.idem.core.store.RowChange;
import org.jspecify.annotations.Nullable;

/**
 * The read side of stored values' rows: data that lives in the store rather than in memory (exact
 * dedup tables). Writes go through the journal as {@link RowChange}s; a read sees every change
 * handed to the journal, written yet or not.
 */
public interface Rows {

  /**
   * A row's key in a store shared by every value: the value's id (u64, big-endian) then the row's
   * own key, so a value's rows are one contiguous range and go with one range delete.
   */
  static byte[] scopedKey(long valueId, byte[] key) {
    return java.nio.ByteBuffer.allocate(8 + key.length).putLong(valueId).put(key).array();
  }

  /** The row's value, or null if there is none. */
  byte @Nullable [] get(long valueId, byte[] key);

  /** Many rows' values, in the keys' order, read together where the store can. */
  default java.util.List<byte @Nullable []> getAll(long valueId, java.util.List<byte[]> keys) {
    java.util.List<byte @Nullable []> out = new java.util.ArrayList<>(keys.size());
    for (byte[] k : keys) {
      out.add(get(valueId, k));
    }
    return out;
  }

  /**
   * Visits every row of the value in unsigned key order (keys without the value's id), as the store
   * holds them once every change journaled before the call is written: for DEBUG DIGEST, which
   * holds the key's lock, so only background writes ({@link #writeNow}) may land meanwhile. Blocks
   * until those changes are written.
   */
  void scan(long valueId, java.util.function.BiConsumer<byte[], byte[]> visit);

  /**
   * Writes every row of the value, as {@link #scan} visits them, each as its key's length, key,
   * value's length and value: a value's rows in its DEBUG DIGEST.
   */
  default void writeAll(long valueId, java.io.DataOutputStream out) throws java.io.IOException {
    try {
      scan(
          valueId,
          (k, v) -> {
            try {
              out.writeInt(k.length);
              out.write(k);
              out.writeInt(v.length);
              out.write(v);
            } catch (java.io.IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
          });
    } catch (java.io.UncheckedIOException e) {
      throw e.getCause();
    }
    out.flush();
  }

  /** About how many bytes the value's rows take in the store (its disk share), or 0. */
  long approximateBytes(long valueId);

  /**
   * Writes rows from a background thread, without the key's lock and without logging them: only for
   * rows the value can rebuild from its snapshot and log (claims it keeps pending until written).
   * They land after every change handed to the journal before the call; a change handed out during
   * it may land before them, which the caller undoes after (see ExactTable's finishFlush). Blocks
   * until they are in the write-ahead log.
   */
  void writeNow(long valueId, java.util.List<RowChange> changes);

  /**
   * Removes every row of a value that is gone (rows written for it after it was deleted), in the
   * journal's order; blocks until done.
   */
  void dropAll(long valueId);
}
