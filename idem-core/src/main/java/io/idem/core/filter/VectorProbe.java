package io.idem.core.filter;

import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The Bloom lookup with one 512-bit vector: a whole block in one register, eight probes at a time.
 * Loaded only when the JVM was started with {@code --add-modules jdk.incubator.vector} and compiles
 * 512-bit vectors to single instructions (AVX-512); {@link BloomFilter#VECTOR} decides.
 *
 * <p>Why: the scalar loop spends about ten instructions a probe, so the out-of-order core holds few
 * items' cache misses at once; this takes about a dozen for up to eight probes. Out of cache,
 * batched lookups went from 28-37 to 15-21 ns an item, and single ones from 62-127 to 35-57 ns
 * (BENCHMARKS.md, "Bloom filters").
 *
 * <p>Its one branch, after each eight probes, runs once when k <= 8 (k is 6 at 1 %).
 */
final class VectorProbe {
  private static final VectorSpecies<Long> SPECIES = LongVector.SPECIES_512;
  private static final int LANES = 8;

  /** The probe multipliers, eight to a vector: the same bits as the scalar loop's, in order. */
  private static final LongVector[] MULTIPLIERS = multipliers();

  private VectorProbe() {}

  /** Whether this JVM on this CPU runs 512-bit long vectors natively, not by a Java fallback. */
  static boolean native512() {
    return LongVector.SPECIES_PREFERRED.vectorBitSize() >= 512;
  }

  /**
   * The same answer as {@link BloomFilter#scalarMightContain}: for each probe i below {@code
   * hashes}, bit {@code (h2 * PROBE[i]) >>> 55} of the block must be set. The block's eight words
   * are permuted so that lane i holds the word probe i reads, then shifted so its bit is lowest.
   * ({@code selectFrom} rather than a shuffle: one permute, no index checks; 1 ns less in cache.)
   */
  static boolean mightContain(long[] words, int base, long h2, int hashes) {
    LongVector block = LongVector.fromArray(SPECIES, words, base);
    LongVector h = LongVector.broadcast(SPECIES, h2);
    for (int first = 0; first < hashes; first += LANES) {
      LongVector bit = h.mul(MULTIPLIERS[first / LANES]).lanewise(VectorOperators.LSHR, 55);
      LongVector word = bit.lanewise(VectorOperators.LSHR, 6).selectFrom(block);
      // A lanewise shift takes its count mod 64: bit's low six bits, the bit within the word.
      boolean anyClear =
          word.lanewise(VectorOperators.LSHR, bit)
              .and(1L)
              .compare(VectorOperators.EQ, 0L, SPECIES.indexInRange(first, hashes))
              .anyTrue();
      if (anyClear) {
        return false;
      }
    }
    return true;
  }

  private static LongVector[] multipliers() {
    long[] probe = BloomFilter.probeMultipliers();
    LongVector[] v = new LongVector[probe.length / LANES];
    for (int i = 0; i < v.length; i++) {
      v[i] = LongVector.fromArray(SPECIES, probe, i * LANES);
    }
    return v;
  }
}
