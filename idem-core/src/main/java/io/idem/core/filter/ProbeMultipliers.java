package io.idem.core.filter;

/**
 * The Bloom filter's probe multipliers, in a class of their own so that {@link BloomFilter} and
 * {@link VectorProbe} both use them without initialising each other.
 */
final class ProbeMultipliers {
  private ProbeMultipliers() {}

  /**
   * {@link BloomFilter#MAX_HASHES} odd constants: probe i's bit in a block is the top 9 bits of h2
   * times constant i. SplitMix64 from a fixed seed, forced odd. Changing this changes every stored
   * filter. A new array each call.
   */
  static long[] all() {
    long[] m = new long[BloomFilter.MAX_HASHES]; // a compile-time constant: no class init
    long state = 0x1DE3L;
    for (int i = 0; i < m.length; i++) {
      state += 0x9E3779B97F4A7C15L;
      long z = state;
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      m[i] = (z ^ (z >>> 31)) | 1L;
    }
    return m;
  }
}
