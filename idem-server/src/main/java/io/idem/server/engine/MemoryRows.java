package io.idem.server.engine;

import io.idem.core.store.RowChange;
import java.util.Arrays;
import java.util.concurrent.ConcurrentSkipListMap;
import org.jspecify.annotations.Nullable;

/** Rows kept in memory, applied as they are journaled: the rows of {@link Journal#none()}. */
final class MemoryRows implements Rows {

  private final ConcurrentSkipListMap<byte[], byte[]> rows =
      new ConcurrentSkipListMap<>(Arrays::compareUnsigned);

  void apply(long id, Iterable<RowChange> changes) {
    for (RowChange c : changes) {
      switch (c) {
        case RowChange.Put p -> rows.put(Rows.scopedKey(id, p.key()), p.value().clone());
        case RowChange.Append a ->
            rows.compute(Rows.scopedKey(id, a.key()), (k, row) -> a.appliedTo(row));
        case RowChange.Delete d -> rows.remove(Rows.scopedKey(id, d.key()));
        case RowChange.DeleteRange r ->
            rows.subMap(Rows.scopedKey(id, r.from()), Rows.scopedKey(id, r.to())).clear();
      }
    }
  }

  void dropValue(long id) {
    rows.subMap(Rows.scopedKey(id, new byte[0]), Rows.scopedKey(id + 1, new byte[0])).clear();
  }

  void clear() {
    rows.clear();
  }

  @Override
  public byte @Nullable [] get(long valueId, byte[] key) {
    return rows.get(Rows.scopedKey(valueId, key));
  }

  @Override
  public void scan(long valueId, java.util.function.BiConsumer<byte[], byte[]> visit) {
    for (var e :
        rows.subMap(Rows.scopedKey(valueId, new byte[0]), Rows.scopedKey(valueId + 1, new byte[0]))
            .entrySet()) {
      visit.accept(Arrays.copyOfRange(e.getKey(), 8, e.getKey().length), e.getValue().clone());
    }
  }

  @Override
  public void writeNow(long valueId, java.util.List<RowChange> changes) {
    apply(valueId, changes);
  }

  @Override
  public void dropAll(long valueId) {
    dropValue(valueId);
  }

  @Override
  public long approximateBytes(long valueId) {
    long n = 0;
    for (var e :
        rows.subMap(Rows.scopedKey(valueId, new byte[0]), Rows.scopedKey(valueId + 1, new byte[0]))
            .entrySet()) {
      n += e.getKey().length + e.getValue().length;
    }
    return n;
  }
}
