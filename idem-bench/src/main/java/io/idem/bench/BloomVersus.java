package io.idem.bench;

import io.idem.core.filter.BloomFilter;
import io.idem.core.hash.Hash128;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Idem's Bloom filter against Guava's in one JVM, alternated in rounds of a second ({@link
 * Rounds}): the keys and filters of {@link BloomBenchmark}, 10 M keys at 1 % unless told otherwise.
 * JMH runs each implementation in a fork of its own, minutes apart, and the host's memory speed
 * drifts between them by more than the effects measured; here Guava's time and Idem's are taken
 * seconds apart, so their ratio in a round is what the "10 × Guava in the same run" asks
 * about.
 *
 * <p>Variants, each over 2^20 keys read 64 at a time: Idem batched ({@code hashLongs}, then {@code
 * mightContainAll}), Guava one key at a time (its API has no batch), and Idem one key at a time
 * ({@code hashLong}, then {@code mightContain}) in the same loop as Guava's; for absent keys, then
 * present ones; and the floor under them all, one load from each key's block ({@link #floor}).
 * Guava needs about 8 s to reach its speed (JMH's warm-up), so four rounds are warm-up. A first
 * pass checks that every present key is found by every variant and that Idem's two ways give the
 * same count on every call. Not a JMH benchmark: {@code scripts/bench-jmh.sh BloomVersus [--
 * rounds]}, or {@code java -Xms3g -Xmx3g --add-modules jdk.incubator.vector -cp benchmarks.jar
 * io.idem.bench.BloomVersus [rounds [capacity]]}. A capacity of 100 M (filters of 120 MB, far past
 * the 32 MiB L3 this machine reports, where at 10 M the filters partly stay cached) needs {@code
 * -Xms10g -Xmx10g}: Guava's keys are boxed.
 */
public final class BloomVersus {
  private static final int CALL = Rounds.CALL;
  private static final int PROBES = BloomBenchmark.PROBES;

  private BloomVersus() {}

  /*
   * Keys found among CALL from `from`, one call at a time, as Guava takes them. One loop per
   * subject, on purpose: in the two runs where one loop served both, Guava's lookups took 800-1000
   * ns until round 11, where they take 100-300 once warm; the loop's second receiver, and the
   * recompiling it brings, is the likely cause.
   */

  private static int eachGuava(BloomBenchmark.GuavaSubject s, int from, boolean absent) {
    int found = 0;
    for (int i = from; i < from + CALL; i++) {
      found += (absent ? s.containsAbsent(i) : s.containsKey(i)) ? 1 : 0;
    }
    return found;
  }

  private static int eachIdem(BloomBenchmark.IdemSubject s, int from, boolean absent) {
    int found = 0;
    for (int i = from; i < from + CALL; i++) {
      found += (absent ? s.containsAbsent(i) : s.containsKey(i)) ? 1 : 0;
    }
    return found;
  }

  /**
   * The floor under a batched lookup: one load from each key's block (the same blocks as a filter
   * of this many), precomputed, in memory laid out like the filter's, with nothing else to do.
   * Memory serves these as fast as this machine can serve one random cache line a key.
   */
  static Rounds.Variant floor(long[] keys, int blocks) {
    long[] h1 = new long[keys.length];
    Hash128.hashLongs(keys, 0, keys.length, h1, new long[keys.length]);
    MemorySegment lines = Arena.ofAuto().allocate(blocks * 64L, 64);
    for (long offset = 0; offset < lines.byteSize(); offset += 8) {
      lines.set(ValueLayout.JAVA_LONG, offset, offset); // written, so every page is real
    }
    return from -> {
      long sum = 0;
      for (int i = from; i < from + CALL; i++) {
        sum += lines.get(ValueLayout.JAVA_LONG, Math.unsignedMultiplyHigh(h1[i], blocks) * 64);
      }
      return (int) sum & 1;
    };
  }

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 16;
    int capacity = args.length > 1 ? Integer.parseInt(args[1]) : BloomBenchmark.CAPACITY;
    if (capacity < PROBES) {
      throw new IllegalArgumentException("capacity (" + capacity + ") must be at least " + PROBES);
    }
    long[] keys = Keys.longs(Keys.PRESENT_SEED, capacity);
    long[] absent = Keys.longs(Keys.ABSENT_SEED, PROBES);
    var idem = (BloomBenchmark.IdemSubject) BloomBenchmark.Impl.IDEM.subject(keys, absent);
    var guava = (BloomBenchmark.GuavaSubject) BloomBenchmark.Impl.GUAVA.subject(keys, absent);
    idem.fill();
    guava.fill();
    int blocks = BloomFilter.sizing(capacity, BloomBenchmark.ERROR_RATE).blocks();
    List<String> names =
        List.of(
            "idem-batch-absent",
            "guava-absent",
            "idem-each-absent",
            "idem-batch-present",
            "guava-present",
            "idem-each-present",
            "one-line");
    List<Rounds.Variant> variants =
        List.of(
            from -> idem.containsBatch(from, CALL, true),
            from -> eachGuava(guava, from, true),
            from -> eachIdem(idem, from, true),
            from -> idem.containsBatch(from, CALL, false),
            from -> eachGuava(guava, from, false),
            from -> eachIdem(idem, from, false),
            floor(absent, blocks));

    long[] found = new long[variants.size()];
    for (int from = 0; from < PROBES; from += CALL) {
      int[] call = new int[variants.size()];
      for (int v = 0; v < variants.size(); v++) {
        call[v] = variants.get(v).run(from);
        found[v] += call[v];
      }
      if (call[0] != call[2] || call[3] != CALL || call[4] != CALL || call[5] != CALL) {
        throw new AssertionError(
            "keys " + from + ".." + (from + CALL - 1) + " found: " + Arrays.toString(call));
      }
    }
    System.out.printf(
        Locale.ROOT,
        "Idem Bloom probe %s; %d keys at %.0f %%; %d absent probes: Idem found %d, Guava %d;"
            + " every present key found by all%n",
        BloomFilter.probeKind(),
        capacity,
        BloomBenchmark.ERROR_RATE * 100,
        PROBES,
        found[0],
        found[1]);

    Rounds r = new Rounds(names, variants, PROBES, 4);
    double[][] ns = r.run(rounds);
    System.out.println(r.summary(ns, 0));
    ratios(r, ns, "absent", 0);
    ratios(r, ns, "present", 3);
    double[] overFloor = new double[ns[0].length];
    for (int round = 0; round < overFloor.length; round++) {
      overFloor[round] = ns[0][round] / ns[6][round];
    }
    System.out.printf(
        Locale.ROOT,
        "Idem batched absent / one-line floor, round by round: median %.2f%n",
        r.median(overFloor));
  }

  /**
   * Guava's time over Idem's, round by round: batched (variant {@code first}) and one at a time
   * ({@code first + 2}), with how many measured rounds reach 10 × and 25 ns.
   */
  private static void ratios(Rounds r, double[][] ns, String keys, int first) {
    int measured = ns[first].length - r.warmup;
    double[] batch = new double[ns[first].length];
    double[] each = new double[batch.length];
    int batchTen = 0;
    int eachTen = 0;
    int batch25 = 0;
    for (int round = 0; round < batch.length; round++) {
      batch[round] = ns[first + 1][round] / ns[first][round];
      each[round] = ns[first + 1][round] / ns[first + 2][round];
      if (round >= r.warmup) {
        batchTen += batch[round] >= 10 ? 1 : 0;
        eachTen += each[round] >= 10 ? 1 : 0;
        batch25 += ns[first][round] <= 25 ? 1 : 0;
      }
    }
    System.out.printf(
        Locale.ROOT,
        "%s: Guava / Idem batched, median %.1f x (min %.1f x), %d of %d rounds at least 10 x and"
            + " %d of %d at most 25 ns; Guava / Idem one at a time, median %.1f x, %d of %d at"
            + " least 10 x%n",
        keys,
        r.median(batch),
        min(batch, r.warmup),
        batchTen,
        measured,
        batch25,
        measured,
        r.median(each),
        eachTen,
        measured);
  }

  private static double min(double[] values, int from) {
    double m = Double.POSITIVE_INFINITY;
    for (int i = from; i < values.length; i++) {
      m = Math.min(m, values[i]);
    }
    return m;
  }
}
