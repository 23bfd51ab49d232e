package io.idem.server.store;

import static io.idem.server.store.Layout.idKey;

import io.idem.core.store.RowChange;
import io.idem.server.engine.Rows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.rocksdb.Range;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.SizeApproximationFlag;
import org.rocksdb.Slice;
import org.rocksdb.WriteBatch;

/**
 * The stored values' rows as readers see them: what is in RocksDB, overlaid with the row changes
 * handed to the committer and not yet written. A claim in flight must not be claimed again, so a
 * read sees a change from the moment it is journaled.
 */
final class RowOverlay implements Rows {

  /** Most changes, and bytes, a background write puts in one WriteBatch. */
  private static final int ROWS_PER_WRITE = 50_000;

  private static final long BYTES_PER_WRITE = 16L << 20;

  /** Heap a queued row change takes besides its bytes: its overlay entry, key buffer, arrays. */
  private static final int ROW_OVERHEAD = 96;

  private final StoreDb db;
  private final Committer committer;
  private final Durability durability;
  private final StoreFaults faults;

  /**
   * Row changes handed out but not yet written, by scoped key. A delete is an empty array of its
   * own (a put is never empty), so a written change's cleanup removes only its own entry, never a
   * later delete's.
   */
  private final Map<ByteBuffer, byte[]> unwrittenRows = new ConcurrentHashMap<>();

  /**
   * Appends handed out but not yet written, by scoped key, oldest first: only their bytes, never
   * the row they go after, which a background write ({@link #writeNow}) may change meanwhile. Each
   * array is replaced, never changed, so a reader can take it without a lock.
   */
  private final Map<ByteBuffer, byte[][]> unwrittenAppends = new ConcurrentHashMap<>();

  RowOverlay(StoreDb db, Committer committer, Durability durability, StoreFaults faults) {
    this.db = db;
    this.committer = committer;
    this.durability = durability;
    this.faults = faults;
  }

  /**
   * Journals row changes of value {@code id}, with the log record of the operation that made them
   * if there is one, in one change: reads see the rows from now, the store once it is written.
   */
  void journal(long id, byte @Nullable [] record, List<RowChange> rows) {
    int n = rows.size();
    RowChange[] changes = rows.toArray(new RowChange[0]);
    byte[][] keys = new byte[n][];
    byte[][] shown = new byte[n][];
    long heap = record == null ? 0 : record.length;
    for (int i = 0; i < n; i++) {
      switch (changes[i]) {
        case RowChange.Put p -> {
          keys[i] = Rows.scopedKey(id, p.key());
          shown[i] = p.value();
          unwrittenRows.put(ByteBuffer.wrap(keys[i]), shown[i]);
          heap += p.value().length;
        }
        case RowChange.Append a -> {
          keys[i] = Rows.scopedKey(id, a.key());
          unwrittenAppends.merge(
              ByteBuffer.wrap(keys[i]),
              new byte[][] {a.bytes()},
              (old, added) -> {
                byte[][] all = Arrays.copyOf(old, old.length + 1);
                all[old.length] = added[0];
                return all;
              });
          heap += a.bytes().length;
        }
        case RowChange.Delete d -> {
          keys[i] = Rows.scopedKey(id, d.key());
          shown[i] = new byte[0];
          unwrittenRows.put(ByteBuffer.wrap(keys[i]), shown[i]);
        }
        case RowChange.DeleteRange r -> keys[i] = Rows.scopedKey(id, r.from()); // see RowChange
      }
      heap += keys[i].length + ROW_OVERHEAD;
    }
    committer.append(
        record == null ? 0 : record.length + 16,
        heap,
        record,
        (b, seq) -> {
          for (int i = 0; i < n; i++) {
            switch (changes[i]) {
              case RowChange.Put p -> b.put(db.rows, keys[i], p.value());
              case RowChange.Append a -> b.merge(db.rows, keys[i], a.bytes());
              case RowChange.Delete d -> b.delete(db.rows, keys[i]);
              case RowChange.DeleteRange r ->
                  b.deleteRange(db.rows, keys[i], Rows.scopedKey(id, r.to()));
            }
          }
        },
        () -> {
          for (int i = 0; i < n; i++) {
            if (changes[i] instanceof RowChange.Append a) {
              unwrittenAppends.computeIfPresent(
                  ByteBuffer.wrap(keys[i]), (k, queued) -> without(queued, a.bytes()));
            } else if (shown[i] != null) {
              unwrittenRows.remove(ByteBuffer.wrap(keys[i]), shown[i]);
            }
          }
        },
        null);
  }

  /** The queued appends without the one written (the same array), or null if none is left. */
  private static byte @Nullable [][] without(byte[][] queued, byte[] written) {
    for (int i = 0; i < queued.length; i++) {
      if (queued[i] == written) {
        if (queued.length == 1) {
          return null;
        }
        byte[][] rest = new byte[queued.length - 1][];
        System.arraycopy(queued, 0, rest, 0, i);
        System.arraycopy(queued, i + 1, rest, i, queued.length - i - 1);
        return rest;
      }
    }
    return queued;
  }

  @Override
  public byte @Nullable [] get(long valueId, byte[] key) {
    byte[] k = Rows.scopedKey(valueId, key);
    // Unwritten appends before the store: one written between the two reads then shows twice at
    // the end (see RowChange.Append), but none goes missing.
    byte[][] appends = unwrittenAppends.isEmpty() ? null : unwrittenAppends.get(ByteBuffer.wrap(k));
    byte[] row = unwrittenRows.isEmpty() ? null : unwrittenRows.get(ByteBuffer.wrap(k));
    if (row == null) {
      try {
        row = db.db.get(db.rows, k);
      } catch (RocksDBException e) {
        throw new UncheckedIOException(new IOException("cannot read a row: " + e.getMessage(), e));
      }
    }
    return shown(k, row, appends);
  }

  @Override
  public List<byte @Nullable []> getAll(long valueId, List<byte[]> keys) {
    int n = keys.size();
    byte[][] scoped = new byte[n][];
    byte[][][] appends = new byte[n][][];
    byte[][] rows = new byte[n][];
    List<byte[]> missing = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      scoped[i] = Rows.scopedKey(valueId, keys.get(i));
      // As get: the overlay first, then one read of the store for every key it lacks.
      if (!unwrittenAppends.isEmpty()) {
        appends[i] = unwrittenAppends.get(ByteBuffer.wrap(scoped[i]));
      }
      if (!unwrittenRows.isEmpty()) {
        rows[i] = unwrittenRows.get(ByteBuffer.wrap(scoped[i]));
      }
      if (rows[i] == null) {
        missing.add(scoped[i]);
      }
    }
    List<byte[]> read;
    try {
      read =
          missing.isEmpty()
              ? List.of()
              : db.db.multiGetAsList(Collections.nCopies(missing.size(), db.rows), missing);
    } catch (RocksDBException e) {
      throw new UncheckedIOException(new IOException("cannot read rows: " + e.getMessage(), e));
    }
    List<byte @Nullable []> out = new ArrayList<>(n);
    for (int i = 0, m = 0; i < n; i++) {
      byte[] row = rows[i] == null ? read.get(m++) : rows[i];
      out.add(shown(scoped[i], row, appends[i]));
    }
    return out;
  }

  /** The row as a reader sees it: a delete not yet written hides it, appends follow it. */
  private static byte @Nullable [] shown(
      byte[] k, byte @Nullable [] row, byte @Nullable [][] appends) {
    if (row != null && row.length == 0) { // an unwritten delete
      row = null;
    }
    if (appends != null) {
      for (byte[] bytes : appends) {
        row = new RowChange.Append(k, bytes).appliedTo(row);
      }
    }
    return row;
  }

  @Override
  public void scan(long valueId, java.util.function.BiConsumer<byte[], byte[]> visit) {
    durability.awaitDurable(committer.lastSeq()); // the overlay is then written out
    try (Slice upper = new Slice(Rows.scopedKey(valueId + 1, new byte[0]));
        ReadOptions options = new ReadOptions().setIterateUpperBound(upper);
        RocksIterator it = db.db.newIterator(db.rows, options)) {
      for (it.seek(Rows.scopedKey(valueId, new byte[0])); it.isValid(); it.next()) {
        byte[] k = it.key();
        visit.accept(Arrays.copyOfRange(k, 8, k.length), it.value());
      }
      it.status();
    } catch (RocksDBException e) {
      throw new UncheckedIOException(new IOException("cannot read rows: " + e.getMessage(), e));
    }
  }

  @Override
  public void writeNow(long valueId, List<RowChange> changes) {
    // After every change journaled so far (a release's record in the same row above all), but not
    // through the committer: a large write there would hold up everyone's replies.
    durability.awaitDurable(committer.lastSeq());
    for (int from = 0, to; from < changes.size(); from = to) {
      long bytes = 0;
      for (to = from;
          to < changes.size() && to - from < ROWS_PER_WRITE && bytes < BYTES_PER_WRITE;
          to++) {
        bytes +=
            switch (changes.get(to)) {
              case RowChange.Put p -> p.key().length + p.value().length;
              case RowChange.Append a -> a.key().length + a.bytes().length;
              default -> 32;
            };
      }
      try (WriteBatch b = new WriteBatch()) {
        for (RowChange c : changes.subList(from, to)) {
          write(b, valueId, c);
        }
        faults.at(StoreFaults.Step.ROWS_WRITE);
        db.db.write(db.noSync, b);
      } catch (RocksDBException e) {
        throw new UncheckedIOException(new IOException("cannot write rows: " + e.getMessage(), e));
      }
    }
  }

  private void write(WriteBatch b, long valueId, RowChange c) throws RocksDBException {
    switch (c) {
      case RowChange.Put p -> b.put(db.rows, Rows.scopedKey(valueId, p.key()), p.value());
      case RowChange.Append a -> b.merge(db.rows, Rows.scopedKey(valueId, a.key()), a.bytes());
      case RowChange.Delete d -> b.delete(db.rows, Rows.scopedKey(valueId, d.key()));
      case RowChange.DeleteRange r ->
          b.deleteRange(
              db.rows, Rows.scopedKey(valueId, r.from()), Rows.scopedKey(valueId, r.to()));
    }
  }

  @Override
  public void dropAll(long valueId) {
    durability.awaitDurable(committer.lastSeq());
    try {
      db.db.deleteRange(db.rows, idKey(valueId), idKey(valueId + 1));
    } catch (RocksDBException e) {
      throw new UncheckedIOException(new IOException("cannot drop rows: " + e.getMessage(), e));
    }
  }

  @Override
  public long approximateBytes(long valueId) {
    try (Slice from = new Slice(idKey(valueId));
        Slice to = new Slice(idKey(valueId + 1))) {
      long[] sizes =
          db.db.getApproximateSizes(
              db.rows,
              List.of(new Range(from, to)),
              SizeApproximationFlag.INCLUDE_FILES,
              SizeApproximationFlag.INCLUDE_MEMTABLES);
      return sizes.length == 1 ? sizes[0] : 0;
    }
  }
}
