package io.idem.server.engine;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.ConcurrentSkipListMap;
import org.jspecify.annotations.Nullable;

/** Rows kept in memory, applied as they are journaled: the rows of {@link Journal#none()}. */
final class MemoryRows implements Rows {

  private final ConcurrentSkipListMap<byte[], byte[]> rows =
      new ConcurrentSkipListMap<>(Arrays::compareUnsigned);

  private static byte[] scoped(long id, byte[] key) {
    return ByteBuffer.allocate(8 + key.length).putLong(id).put(key).array();
  }

  void apply(long id, Iterable<RowChange> changes) {
    for (RowChange c : changes) {
      switch (c) {
        case RowChange.Put p -> rows.put(scoped(id, p.key()), p.value().clone());
        case RowChange.Delete d -> rows.remove(scoped(id, d.key()));
        case RowChange.DeleteRange r ->
            rows.subMap(scoped(id, r.from()), scoped(id, r.to())).clear();
      }
    }
  }

  void dropValue(long id) {
    rows.subMap(scoped(id, new byte[0]), scoped(id + 1, new byte[0])).clear();
  }

  void clear() {
    rows.clear();
  }

  @Override
  public byte @Nullable [] get(long valueId, byte[] key) {
    return rows.get(scoped(valueId, key));
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
        rows.subMap(scoped(valueId, new byte[0]), scoped(valueId + 1, new byte[0])).entrySet()) {
      n += e.getKey().length + e.getValue().length;
    }
    return n;
  }
}
