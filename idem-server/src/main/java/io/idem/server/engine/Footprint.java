package io.idem.server.engine;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The bytes the resident keys and values take, in all and by type, kept as each entry's measure
 * changes: a reader (INFO, a metrics scrape, the console) reads them, never walks the keyspace.
 */
final class Footprint {

  private final AtomicLong total = new AtomicLong();
  private final ConcurrentHashMap<ValueCodec<?>, LongAdder> byCodec = new ConcurrentHashMap<>();

  /** Adds {@code delta} bytes (negative: fewer) held by {@code e}. */
  void add(Entry e, long delta) {
    total.addAndGet(delta);
    LongAdder a = byCodec.get(e.codec());
    if (a == null) {
      a = byCodec.computeIfAbsent(e.codec(), c -> new LongAdder());
    }
    a.add(delta);
  }

  long total() {
    return total.get();
  }

  /** Bytes by TYPE name, sorted; a type seen once stays, at 0 when its keys are gone. */
  Map<String, Long> byType() {
    Map<String, Long> out = new TreeMap<>();
    byCodec.forEach((codec, bytes) -> out.merge(codec.typeName(), bytes.sum(), Long::sum));
    return out;
  }

  void clear() {
    total.set(0);
    byCodec.values().forEach(LongAdder::reset);
  }
}
