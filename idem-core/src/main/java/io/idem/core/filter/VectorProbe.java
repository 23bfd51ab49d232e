package io.idem.core.filter;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The Bloom lookup with one 512-bit vector: a whole block in one register, eight probes at a time.
 * Loaded only when the JVM has the module {@code jdk.incubator.vector} ({@code --add-modules});
 * used only where {@link #native512} also holds ({@code BloomFilter.VECTOR}).
 */
final class VectorProbe {
  /*
   * Why: the scalar loop spends several operations a probe (multiply, shifts, load, mask, or), so
   * the out-of-order core holds the instructions, and so the cache misses, of few items at once;
   * this does up to eight probes in about a dozen vector operations, by our count of the source.
   * BENCHMARKS.md ("Bloom filters") has both paths side by side.
   *
   * C2 compiles these calls to AVX-512 instructions. With only the interpreter or C1
   * (-Xint, -XX:TieredStopAtLevel=1) the vector API runs them in Java, many times slower: run
   * such JVMs with -Didem.bloom.probe=scalar.
   */
  private static final VectorSpecies<Long> SPECIES = LongVector.SPECIES_512;
  private static final int LANES = 8;

  /**
   * The probe multipliers, read eight at a time with {@code fromArray}: one vector load that C2
   * hoists, where an array of {@code LongVector}s cost a type check and an unboxing load a lookup.
   */
  private static final long[] MULTIPLIERS = ProbeMultipliers.all();

  private VectorProbe() {}

  /** Whether this JVM's C2 on this CPU compiles 512-bit long vectors (AVX-512). */
  static boolean native512() {
    return LongVector.SPECIES_PREFERRED.vectorBitSize() >= 512;
  }

  /**
   * The same answer as {@link BloomFilter#scalarMightContain}: for each probe i below {@code
   * hashes}, bit {@code (h2 * PROBE[i]) >>> 55} of the block must be set. The block's eight words
   * are permuted so that lane i holds the word probe i reads, then shifted so its bit is lowest.
   * The first eight probes (all of them up to 8 hashes: 1 % needs 6, 0.1 % 9) are straight-line
   * code with no branch on the data; a loop here, even one that runs once, made C2 add loop control
   * and turn the mask into a vector and back on every lookup, a third of its time (BENCHMARKS.md,
   * "Straight-line probes"). {@code offset} is the block's offset in bytes.
   */
  static boolean mightContain(MemorySegment words, long offset, long h2, int hashes) {
    LongVector block =
        LongVector.fromMemorySegment(SPECIES, words, offset, ByteOrder.nativeOrder());
    LongVector h = LongVector.broadcast(SPECIES, h2);
    boolean missing = clear(block, h, 0, hashes).anyTrue();
    if (hashes > LANES) {
      missing |= missingBeyondEight(block, h, hashes);
    }
    return !missing;
  }

  /** Probes from the ninth on, eight at a time; a branch a filter always takes the same way. */
  private static boolean missingBeyondEight(LongVector block, LongVector h, int hashes) {
    VectorMask<Long> clear = SPECIES.maskAll(false);
    for (int first = LANES; first < hashes; first += LANES) {
      clear = clear.or(clear(block, h, first, hashes));
    }
    return clear.anyTrue();
  }

  /**
   * The lanes of probes {@code first} to {@code first + 7} (below {@code hashes}) whose bit is 0.
   */
  private static VectorMask<Long> clear(LongVector block, LongVector h, int first, int hashes) {
    LongVector bit =
        h.mul(LongVector.fromArray(SPECIES, MULTIPLIERS, first)).lanewise(VectorOperators.LSHR, 55);
    // selectFrom: one permute, its indexes (0..7 here) taken mod 8 without a check.
    LongVector word = bit.lanewise(VectorOperators.LSHR, 6).selectFrom(block);
    // A lanewise shift takes its count mod 64: bit's low six bits, the bit within the word.
    return word.lanewise(VectorOperators.LSHR, bit)
        .and(1L)
        .compare(VectorOperators.EQ, 0L, SPECIES.indexInRange(first, hashes));
  }
}
