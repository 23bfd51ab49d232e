package io.idem.bench;

import java.util.SplittableRandom;

/** The fixed-seed items every benchmark uses, so that all figures are over the same keys. */
final class Keys {
  /** Items added to the filters. */
  static final long PRESENT_SEED = 0x1DE3_0001L;

  /** Items never added: probes for false positives. */
  static final long ABSENT_SEED = 0x1DE3_0002L;

  private Keys() {}

  /** {@code n} uniformly random longs from {@code seed}. */
  static long[] longs(long seed, int n) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] keys = new long[n];
    for (int i = 0; i < n; i++) {
      keys[i] = random.nextLong();
    }
    return keys;
  }

  /** {@code n} keys taken from {@code keys} in order, starting over when they run out. */
  static long[] cycle(long[] keys, int n) {
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = keys[i % keys.length];
    }
    return out;
  }

  /** The same keys as boxed Longs, for APIs that take objects; boxed here, never while measured. */
  static Long[] boxed(long[] keys) {
    Long[] out = new Long[keys.length];
    for (int i = 0; i < keys.length; i++) {
      out[i] = keys[i];
    }
    return out;
  }
}
