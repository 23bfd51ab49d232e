package io.idem.server.engine;

import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The live keys, indexed twice: by hash for the lookup every command makes (one probe, where a
 * sorted map walks a path of nodes), and in key order (hash, then bytes) for SCAN's cursor, KEYS
 * and RANDOMKEY. Both change together under the key's stripe lock; a reader without it may see a
 * key in one and not yet in the other, as it may see any write half-way.
 */
final class Keyspace {

  private final ConcurrentHashMap<Key, Entry> byKey = new ConcurrentHashMap<>();
  private final ConcurrentSkipListMap<Key, Entry> ordered = new ConcurrentSkipListMap<>();

  Entry get(Key k) {
    return byKey.get(k);
  }

  void put(Key k, Entry e) {
    byKey.put(k, e);
    ordered.put(k, e);
  }

  void remove(Key k, Entry e) {
    byKey.remove(k, e);
    ordered.remove(k, e);
  }

  void clear() {
    byKey.clear();
    ordered.clear();
  }

  int size() {
    return byKey.size();
  }

  /** The keys from {@code from} on, in order. */
  NavigableMap<Key, Entry> tailMap(Key from) {
    return ordered.tailMap(from, true);
  }

  NavigableSet<Key> keySet() {
    return ordered.keySet();
  }

  Set<Map.Entry<Key, Entry>> entrySet() {
    return ordered.entrySet();
  }
}
