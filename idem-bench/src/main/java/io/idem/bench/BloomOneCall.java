package io.idem.bench;

import io.idem.core.filter.BloomFilter;
import io.idem.core.hash.Hash128;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Where the time of a Bloom lookup made one call at a time goes, out of cache: the filter and keys
 * of {@link BloomVersus} (10 M keys at 1 % unless told otherwise), absent keys only, alternated in
 * rounds of a second ({@link Rounds}).
 *
 * <p>Variants, each over 2^20 absent keys read 64 at a time:
 *
 * <ul>
 *   <li>{@code hash+lookup}: what a caller with a key does, {@code hashLong} then {@code
 *       mightContain}, one key at a time ({@link BloomVersus}'s "one at a time");
 *   <li>{@code scalar-hash+lookup}: the same with the same hash computed in scalar code, as {@code
 *       hashLong} did before it ended in a two-lane vector (and still does without AVX-512);
 *   <li>{@code lookup}: the filter's own operation, {@code mightContain(h1, h2)}, one key at a
 *       time, the hashes computed before the rounds (every filter takes the item's hash);
 *   <li>{@code hash}: {@code hashLong} alone, no memory touched;
 *   <li>{@code mul-hash+lookup}: a what-if, not Idem's function: one 64 × 64 → 128-bit multiply and
 *       a light mix of each half (the shape of XXH3's 8-byte path), then {@code mightContain}. Its
 *       answers are not Idem's, but for absent keys any well-mixed hash reads a random block and
 *       random bits, as Idem's does, so its time is what a cheaper function would give;
 *   <li>{@code batched}: {@code hashLongs}, then {@code mightContainAll};
 *   <li>{@code hashLongs}: {@code hashLongs} alone, eight keys a vector instruction;
 *   <li>{@code one-line}: {@link BloomVersus}'s floor, one load from each key's block.
 * </ul>
 *
 * A first pass checks that the four variants that use Idem's hash and look up give the same count
 * on every call, the same hash and the same answer for every key. Not a JMH benchmark: {@code
 * scripts/bench-jmh.sh BloomOneCall [-- rounds [capacity [storage]]]}; 100 M keys fit the script's
 * 3 GB heap. BENCHMARKS.md, "One call at a time", says what the figures show.
 */
public final class BloomOneCall {
  private static final int CALL = Rounds.CALL;

  private BloomOneCall() {}

  private static int hashThenLookup(BloomFilter f, Hash128 hash, long[] keys, int from) {
    int found = 0;
    for (int i = from; i < from + CALL; i++) {
      found += f.mightContain(hash.hashLong(keys[i])) ? 1 : 0;
    }
    return found;
  }

  /** Murmur3 of one long as Hash128's scalar path computes it, halves into {@code pair}. */
  private static void scalarHashLong(long value, long[] pair) {
    long a = Long.rotateLeft(value * 0x87c37b91114253d5L, 31) * 0x4cf5ad432745937fL ^ 8;
    long b = a + 16;
    a = fmix(a + 8);
    b = fmix(b);
    a += b;
    pair[0] = a;
    pair[1] = b + a;
  }

  private static long fmix(long k) {
    k = (k ^ k >>> 33) * 0xff51afd7ed558ccdL;
    k = (k ^ k >>> 33) * 0xc4ceb9fe1a85ec53L;
    return k ^ k >>> 33;
  }

  private static int scalarHashThenLookup(BloomFilter f, long[] pair, long[] keys, int from) {
    int found = 0;
    for (int i = from; i < from + CALL; i++) {
      scalarHashLong(keys[i], pair);
      found += f.mightContain(pair[0], pair[1]) ? 1 : 0;
    }
    return found;
  }

  private static int lookup(BloomFilter f, long[] h1, long[] h2, int from) {
    int found = 0;
    for (int i = from; i < from + CALL; i++) {
      found += f.mightContain(h1[i], h2[i]) ? 1 : 0;
    }
    return found;
  }

  private static int hashOnly(Hash128 hash, long[] keys, int from) {
    long mixed = 0;
    for (int i = from; i < from + CALL; i++) {
      mixed ^= hash.hashLong(keys[i]).h1();
    }
    return (int) mixed & 1;
  }

  private static final long SECRET = 0x9E3779B97F4A7C15L;
  private static final long PRIME = 0xC2B2AE3D27D4EB4FL;
  private static final long MIX = 0x9FB21C651E98DF25L;

  private static int mulHashThenLookup(BloomFilter f, long[] keys, int from) {
    int found = 0;
    for (int i = from; i < from + CALL; i++) {
      long k = keys[i] ^ SECRET;
      long lo = k * PRIME;
      long hi = Math.unsignedMultiplyHigh(k, PRIME) + (lo << 1);
      lo ^= hi >>> 3;
      lo ^= lo >>> 35;
      lo *= MIX;
      lo ^= lo >>> 28;
      found += f.mightContain(hi ^ (hi >>> 37), lo) ? 1 : 0;
    }
    return found;
  }

  private static int batched(
      BloomFilter f, long[] keys, int from, long[] h1, long[] h2, boolean[] out) {
    Hash128.hashLongs(keys, from, CALL, h1, h2);
    f.mightContainAll(h1, h2, CALL, out);
    int found = 0;
    for (int i = 0; i < CALL; i++) {
      found += out[i] ? 1 : 0;
    }
    return found;
  }

  private static int hashLongsOnly(long[] keys, int from, long[] h1, long[] h2) {
    Hash128.hashLongs(keys, from, CALL, h1, h2);
    return (int) h1[CALL - 1] & 1;
  }

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 12;
    int capacity = args.length > 1 ? Integer.parseInt(args[1]) : BloomBenchmark.CAPACITY;
    BloomFilter.Storage storage =
        args.length > 2 ? BloomFilter.Storage.valueOf(args[2]) : BloomFilter.Storage.ALIGNED;
    BloomFilter filter = BloomFilter.create(capacity, BloomBenchmark.ERROR_RATE, storage);
    Hash128 hash = new Hash128();
    for (long key : Keys.longs(Keys.PRESENT_SEED, capacity)) {
      filter.add(hash.hashLong(key));
    }
    long[] absent = Keys.longs(Keys.ABSENT_SEED, BloomBenchmark.PROBES);
    long[] h1 = new long[absent.length];
    long[] h2 = new long[absent.length];
    Hash128.hashLongs(absent, 0, absent.length, h1, h2);
    long[] pair = new long[2];
    long[] batchH1 = new long[CALL];
    long[] batchH2 = new long[CALL];
    boolean[] out = new boolean[CALL];
    int blocks = BloomFilter.sizing(capacity, BloomBenchmark.ERROR_RATE).blocks();
    List<String> names =
        List.of(
            "hash+lookup",
            "scalar-hash+lookup",
            "lookup",
            "hash",
            "mul-hash+lookup",
            "batched",
            "hashLongs",
            "one-line");
    List<Rounds.Variant> variants =
        List.of(
            from -> hashThenLookup(filter, hash, absent, from),
            from -> scalarHashThenLookup(filter, pair, absent, from),
            from -> lookup(filter, h1, h2, from),
            from -> hashOnly(hash, absent, from),
            from -> mulHashThenLookup(filter, absent, from),
            from -> batched(filter, absent, from, batchH1, batchH2, out),
            from -> hashLongsOnly(absent, from, batchH1, batchH2),
            BloomVersus.floor(absent, blocks));

    long found = 0;
    for (int from = 0; from < absent.length; from += CALL) {
      int[] counts = {
        variants.get(0).run(from),
        variants.get(1).run(from),
        variants.get(2).run(from),
        variants.get(5).run(from)
      };
      if (Arrays.stream(counts).distinct().count() != 1) {
        throw new AssertionError(
            "keys " + from + ".." + (from + CALL - 1) + " found: " + Arrays.toString(counts));
      }
      for (int i = 0; i < CALL; i++) { // out holds the batch's answers, key by key
        int key = from + i;
        boolean each = filter.mightContain(hash.hashLong(absent[key]));
        scalarHashLong(absent[key], pair);
        if (pair[0] != hash.h1() || pair[1] != hash.h2()) {
          throw new AssertionError("key " + key + " hashed otherwise in scalar code");
        }
        if (out[i] != each || filter.mightContain(h1[key], h2[key]) != each) {
          throw new AssertionError("key " + key + " answered otherwise by the batch");
        }
      }
      found += counts[0];
    }
    System.out.printf(
        Locale.ROOT,
        "Idem Bloom probe %s, storage %s; %d keys at %.0f %%; %d absent probes, %d found by all"
            + " four ways%n",
        BloomFilter.probeKind(),
        storage,
        capacity,
        BloomBenchmark.ERROR_RATE * 100,
        absent.length,
        found);

    Rounds r = new Rounds(names, variants, absent.length, 4);
    System.out.println(r.summary(r.run(rounds), 0));
  }
}
