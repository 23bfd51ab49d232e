package io.idem.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Variants of one measurement run in turn for a second each, round after round, in one JVM, so that
 * a host that slows down (the machine is shared) slows every variant alike and figures taken in the
 * same round can be compared. The plain-main benchmarks BloomLayout and BloomVersus use it.
 */
final class Rounds {
  /** One variant: looks up {@code CALL} keys from {@code from}, returning how many were found. */
  interface Variant {
    int run(int from);
  }

  /** Keys a variant looks up per call; every variant's keys are read 64 at a time. */
  static final int CALL = 64;

  /** The rounds before this index are warm-up: the compiler may still be at work in them. */
  final int warmup;

  private final List<String> names;
  private final List<Variant> variants;
  private final int keys;
  private long sink;

  /** Variants named {@code names}, each over {@code keys} keys (a power of two, from 0). */
  Rounds(List<String> names, List<Variant> variants, int keys, int warmup) {
    if (names.size() != variants.size() || Integer.bitCount(keys) != 1 || keys < CALL) {
      throw new IllegalArgumentException("names, variants and keys do not fit together");
    }
    this.names = List.copyOf(names);
    this.variants = List.copyOf(variants);
    this.keys = keys;
    this.warmup = warmup;
  }

  /**
   * Runs {@code rounds} rounds, printing each as it ends, and returns ns a key by variant, then
   * round. Each round gives every variant one second, in the order given.
   */
  double[][] run(int rounds) {
    if (rounds <= warmup) {
      throw new IllegalArgumentException(
          "rounds (" + rounds + ") must be more than the " + warmup + " of warm-up");
    }
    double[][] ns = new double[variants.size()][rounds];
    int from = 0;
    for (int round = 0; round < rounds; round++) {
      StringBuilder line = new StringBuilder("round " + (round + 1) + ":");
      for (int v = 0; v < variants.size(); v++) {
        Variant variant = variants.get(v);
        long start = System.nanoTime();
        long calls = 0;
        while (System.nanoTime() - start < 1_000_000_000L) {
          for (int c = 0; c < 256; c++, from = (from + CALL) & (keys - 1)) {
            sink += variant.run(from);
          }
          calls += 256;
        }
        ns[v][round] = (System.nanoTime() - start) / (double) (calls * CALL);
        line.append(String.format(Locale.ROOT, " %s %.1f", names.get(v), ns[v][round]));
      }
      System.out.println(line);
    }
    return ns;
  }

  /** The median of {@code values} after the warm-up rounds. */
  double median(double[] values) {
    double[] measured = Arrays.copyOfRange(values, warmup, values.length);
    Arrays.sort(measured);
    int n = measured.length;
    return n % 2 == 1 ? measured[n / 2] : (measured[n / 2 - 1] + measured[n / 2]) / 2;
  }

  /** "median of rounds a-b:" and each variant's median; {@code tail} keeps the results alive. */
  String summary(double[][] ns, long tail) {
    StringBuilder s =
        new StringBuilder("median of rounds " + (warmup + 1) + "-" + ns[0].length + ", ns a key:");
    for (int v = 0; v < ns.length; v++) {
      s.append(String.format(Locale.ROOT, " %s %.1f", names.get(v), median(ns[v])));
    }
    return s + (sink + tail == 42 ? " " : "");
  }
}
