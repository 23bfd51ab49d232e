package io.idem.core.window;

import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/** Rows in memory, as a store keeps them: ordered, with range deletes. */
final class MemoryRows implements WindowedTable.RowSink {
  final TreeMap<byte[], byte[]> rows = new TreeMap<>(Arrays::compareUnsigned);

  byte @Nullable [] get(byte[] key) {
    return rows.get(key);
  }

  @Override
  public void accept(List<byte[]> keys, List<byte @Nullable []> values) {
    for (int i = 0; i < keys.size(); i++) {
      byte[] v = values.get(i);
      if (v == null) {
        rows.remove(keys.get(i));
      } else {
        rows.put(keys.get(i), v);
      }
    }
  }

  void drop(List<byte[][]> ranges) {
    for (byte[][] r : ranges) {
      rows.subMap(r[0], r[1]).clear();
    }
  }
}
