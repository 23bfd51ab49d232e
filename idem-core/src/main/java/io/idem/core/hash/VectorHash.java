package io.idem.core.hash;

import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link Hash128#hashLong} for eight keys at once, one key a lane of a 512-bit vector, and the end
 * of every single hash (both halves' fmix) in one 128-bit vector. Loaded only when the JVM has the
 * module {@code jdk.incubator.vector}; used only where {@link #native512} also holds ({@code
 * Hash128.VECTOR}).
 */
final class VectorHash {
  /*
   * Why: Murmur3 of one long is six 64-bit multiplies in a chain some twenty cycles long, so one
   * key at a time the core overlaps only two or three keys; eight lanes do the same multiplies for
   * eight keys in one instruction each: BENCHMARKS.md ("Hashing") has it against one hashLong a
   * key. Without C2 (-Xint, C1 only) the vector API runs in Java, many times slower.
   */
  private static final VectorSpecies<Long> SPECIES = LongVector.SPECIES_512;
  static final int LANES = 8;

  /** Two lanes: a key's halves, a and b, side by side. */
  private static final VectorSpecies<Long> PAIR = LongVector.SPECIES_128;

  /** hashLong's a and b before fmix are k + 8 and k + 16, with k = mixK1(value) ^ 8. */
  private static final long[] LONG_PLUS = {8, 16};

  private VectorHash() {}

  /*
   * Why a pair: one key's two fmix chains are the same eight operations (three shifts, three xors,
   * two multiplies) on different values; in one 128-bit vector C2 compiles them to eight vector
   * instructions, against some twenty scalar ones. One call at a time out of cache, the core then
   * holds fewer instructions a lookup, so more lookups' misses at once (BENCHMARKS.md, "One call
   * at a time"). finishLong adds its constants in the vector, one instruction fewer than fmixBoth.
   */

  /**
   * Hash128.hashLong's end, given {@code k = mixK1(value) ^ 8}: its halves go into {@code into}.
   */
  static void finishLong(long k, Hash128 into) {
    LongVector v = LongVector.broadcast(PAIR, k).add(LongVector.fromArray(PAIR, LONG_PLUS, 0));
    // fmix, written out here and below: a helper taking a vector boxes it if C2 does not inline it.
    v = v.lanewise(VectorOperators.XOR, v.lanewise(VectorOperators.LSHR, 33)).mul(Hash128.F1);
    v = v.lanewise(VectorOperators.XOR, v.lanewise(VectorOperators.LSHR, 33)).mul(Hash128.F2);
    v = v.lanewise(VectorOperators.XOR, v.lanewise(VectorOperators.LSHR, 33));
    long a = v.lane(0) + v.lane(1);
    into.set(a, v.lane(1) + a);
  }

  /** Hash128.fmixBoth(a, b) on a pair: its halves go into {@code into}. */
  static void fmixBoth(long a, long b, Hash128 into) {
    LongVector v = LongVector.broadcast(PAIR, a).withLane(1, b);
    v = v.lanewise(VectorOperators.XOR, v.lanewise(VectorOperators.LSHR, 33)).mul(Hash128.F1);
    v = v.lanewise(VectorOperators.XOR, v.lanewise(VectorOperators.LSHR, 33)).mul(Hash128.F2);
    v = v.lanewise(VectorOperators.XOR, v.lanewise(VectorOperators.LSHR, 33));
    long a2 = v.lane(0) + v.lane(1);
    into.set(a2, v.lane(1) + a2);
  }

  /** Whether this JVM's C2 on this CPU compiles 512-bit long vectors (AVX-512). */
  static boolean native512() {
    return LongVector.SPECIES_PREFERRED.vectorBitSize() >= 512;
  }

  /**
   * Hashes {@code values[offset + i]} into {@code h1[i]}, {@code h2[i]} for i below the largest
   * multiple of {@link #LANES} not above {@code count}; returns that number. Bounds are the
   * caller's to check.
   */
  static int hashLongs(long[] values, int offset, int count, long[] h1, long[] h2) {
    int done = SPECIES.loopBound(count);
    for (int i = 0; i < done; i += LANES) {
      LongVector k = LongVector.fromArray(SPECIES, values, offset + i);
      // The steps of Hash128.hashLong: mix the one block into a (b stays 0), then finish with
      // length 8: a ^= 8, b ^= 8, a += b, b += a.
      LongVector a =
          k.mul(Hash128.C1)
              .lanewise(VectorOperators.ROL, 31)
              .mul(Hash128.C2)
              .lanewise(VectorOperators.XOR, 8L)
              .add(8L);
      LongVector b = a.add(8L);
      // fmix(a) and fmix(b), written out: a helper taking a vector, if C2 declines to inline it,
      // boxes its argument: an allocation and several nanoseconds a key after a recompile.
      a = a.lanewise(VectorOperators.XOR, a.lanewise(VectorOperators.LSHR, 33)).mul(Hash128.F1);
      b = b.lanewise(VectorOperators.XOR, b.lanewise(VectorOperators.LSHR, 33)).mul(Hash128.F1);
      a = a.lanewise(VectorOperators.XOR, a.lanewise(VectorOperators.LSHR, 33)).mul(Hash128.F2);
      b = b.lanewise(VectorOperators.XOR, b.lanewise(VectorOperators.LSHR, 33)).mul(Hash128.F2);
      a = a.lanewise(VectorOperators.XOR, a.lanewise(VectorOperators.LSHR, 33));
      b = b.lanewise(VectorOperators.XOR, b.lanewise(VectorOperators.LSHR, 33));
      a = a.add(b);
      b = b.add(a);
      a.intoArray(h1, i);
      b.intoArray(h2, i);
    }
    return done;
  }
}
