package io.idem.core.format;

/**
 * The family id written at byte 4 of every persisted structure. Append-only: an id, once released,
 * keeps its meaning forever (pinned by FormatFamilyTest).
 */
public enum FormatFamily {
  BLOOM(1),
  SCALABLE_BLOOM(2),
  CUCKOO(3),
  RECENT_SET(4),
  COUNT_MIN(5),
  HYPERLOGLOG(6),
  TOPK(7),
  TDIGEST(8),
  /** A Bloom filter in RedisBloom's layout and hashing (moved in from RedisBloom). */
  REDISBLOOM_CHAIN(9),
  /** A cuckoo filter in RedisBloom's layout and hashing (moved in from RedisBloom). */
  REDISBLOOM_CUCKOO(10),
  /** A seen-cache's cookie value (io.idem.core.seen): a compact frame of its own, see its codec. */
  SEEN_CACHE(11);

  private final int id;

  FormatFamily(int id) {
    this.id = id;
  }

  public int id() {
    return id;
  }

  /** Returns the family with this id, or null if no family has it. */
  public static @org.jspecify.annotations.Nullable FormatFamily byId(int id) {
    for (FormatFamily f : values()) {
      if (f.id == id) {
        return f;
      }
    }
    return null;
  }
}
