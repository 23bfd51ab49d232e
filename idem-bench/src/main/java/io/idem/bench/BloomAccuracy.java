package io.idem.bench;

import java.util.Locale;

/**
 * Memory and measured false-positive rate of the Bloom filters of {@link BloomBenchmark}: each is
 * made for 10 M items at 1 %, filled with the 10 M benchmark keys, then probed with 10 M keys from
 * another seed. Prints a markdown table. Not a JMH benchmark: run with {@code java -cp
 * benchmarks.jar io.idem.bench.BloomAccuracy}.
 */
public final class BloomAccuracy {
  private BloomAccuracy() {}

  public static void main(String[] args) {
    int n = BloomBenchmark.CAPACITY;
    long[] keys = Keys.longs(Keys.PRESENT_SEED, n);
    long[] absent = Keys.longs(Keys.ABSENT_SEED, n);
    System.out.printf(
        Locale.ROOT,
        "%d items at configured rate %s; %d absent probes%n%n",
        n,
        BloomBenchmark.ERROR_RATE,
        absent.length);
    System.out.println("| implementation | bits | bits per item | k | false positives | FPR |");
    System.out.println("|---|---:|---:|---:|---:|---:|");
    for (BloomBenchmark.Impl impl : BloomBenchmark.Impl.values()) {
      if (impl == BloomBenchmark.Impl.IDEM_SCALAR
          || impl == BloomBenchmark.Impl.IDEM_HASH_EACH
          || impl == BloomBenchmark.Impl.IDEM_HEAP) {
        continue; // the same bits and answers as IDEM (VectorProbeTest, Hash128Test, the format)
      }
      BloomBenchmark.Subject subject = impl.subject(keys, absent);
      subject.fill();
      for (int i = 0; i < n; i++) {
        if (!subject.containsKey(i)) {
          throw new AssertionError(impl + " lost key " + i);
        }
      }
      long falsePositives = 0;
      for (int i = 0; i < absent.length; i++) {
        if (subject.containsAbsent(i)) {
          falsePositives++;
        }
      }
      long bits = subject.bits();
      System.out.printf(
          Locale.ROOT,
          "| %s | %d | %.3f | %d | %d | %.4f %% |%n",
          impl,
          bits,
          (double) bits / n,
          subject.hashes(),
          falsePositives,
          100.0 * falsePositives / absent.length);
    }
  }
}
