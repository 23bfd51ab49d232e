package io.idem.core.dedup;

import io.idem.core.store.RowChange;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * A claim store in memory for tests: rows in a sorted map, each change applied when recorded, and
 * every operation kept so that a test can replay them on a table made from the recipe.
 */
final class MemoryClaimStore implements ClaimStore {

  /** One recorded operation. */
  record Op(byte op, byte[] payload) {}

  final TreeMap<byte[], byte[]> rows = new TreeMap<>(Arrays::compareUnsigned);
  final List<Op> ops = new ArrayList<>();

  @Override
  public byte @Nullable [] row(byte[] key) {
    return rows.get(key);
  }

  @Override
  public void record(byte op, byte[] payload, List<RowChange> changes) {
    ops.add(new Op(op, payload));
    apply(changes);
  }

  /** Applies row changes, as a background write does. */
  void apply(List<RowChange> changes) {
    for (RowChange c : changes) {
      switch (c) {
        case RowChange.Put p -> rows.put(p.key(), p.value());
        case RowChange.Append a -> rows.put(a.key(), a.appliedTo(rows.get(a.key())));
        case RowChange.Delete d -> rows.remove(d.key());
        case RowChange.DeleteRange r -> rows.subMap(r.from(), r.to()).clear();
      }
    }
  }

  /** Writes the table's pending claims as rows now, as the server's background does. */
  void flush(ExactTable t, long now) {
    List<RowChange> rows = t.startFlush(now, true);
    if (rows != null) {
      apply(rows);
      record(DedupOps.ROWS, new byte[0], t.finishFlush());
    }
  }
}
