package io.idem.bench;

import io.idem.core.filter.BloomFilter;
import io.idem.core.filter.RedisBloomChain;
import io.idem.core.filter.ScalableBloomFilter;
import io.idem.core.hash.Hash128;
import java.util.Locale;

/**
 * The two layouts of the server's Bloom filters at every error rate from 0.1 to 1e-10: bytes, and
 * the false-positive rate measured when the filter holds its capacity. Each filter is made as
 * BF.RESERVE makes it (non-scaling, then scaling), filled with {@link #CAPACITY} items of 8 bytes
 * hashed as the server hashes items, then probed with absent items until the expected count of
 * false positives is large enough to measure, within a budget of probes. The classic layout is
 * RedisBloom's: its size equals RedisBloom's (RedisBloomRepliesTest checks BF.INFO SIZE against
 * RedisBloom at these rates). Prints a markdown table. Not a JMH benchmark: run with {@code java
 * -cp benchmarks.jar io.idem.bench.BloomRates [probe budget]}.
 */
public final class BloomRates {
  private BloomRates() {}

  static final int CAPACITY = 1_000_000;

  static final double[] RATES = {
    0.1, 0.05, 0.01, 0.005, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10
  };

  /** One layout: add an item, look one up. */
  interface Filter {
    void add(byte[] item);

    boolean mightContain(byte[] item);

    long bytes();
  }

  static Filter classic(double rate, boolean scaling) {
    RedisBloomChain c = RedisBloomChain.create(CAPACITY, rate, 2, !scaling);
    return new Filter() {
      @Override
      public void add(byte[] item) {
        c.add(item);
      }

      @Override
      public boolean mightContain(byte[] item) {
        return c.mightContain(item);
      }

      @Override
      public long bytes() {
        return c.sizeInBytes() - 32 - 64L * c.linkCount(); // the bit arrays, as for blocked
      }
    };
  }

  static Filter blocked(double rate, boolean scaling) {
    ScalableBloomFilter f =
        scaling
            ? ScalableBloomFilter.create(CAPACITY, rate, 2, BloomFilter.Storage.HEAP)
            : ScalableBloomFilter.createNonScaling(CAPACITY, rate, BloomFilter.Storage.HEAP);
    Hash128 h = new Hash128();
    return new Filter() {
      @Override
      public void add(byte[] item) {
        h.hash(item);
        f.add(h.h1(), h.h2());
      }

      @Override
      public boolean mightContain(byte[] item) {
        h.hash(item);
        return f.mightContain(h.h1(), h.h2());
      }

      @Override
      public long bytes() {
        return f.sizeInBytes();
      }
    };
  }

  /** Item i of a set: its 8 bytes, the set's tag in the top byte. */
  static byte[] item(byte[] buf, long tag, long i) {
    long v = tag << 56 | i;
    for (int b = 0; b < 8; b++) {
      buf[b] = (byte) (v >>> (8 * b));
    }
    return buf;
  }

  /** False positives among {@code probes} absent items. */
  static long measure(Filter f, long probes) {
    byte[] buf = new byte[8];
    for (long i = 0; i < CAPACITY; i++) {
      f.add(item(buf, 1, i));
    }
    for (long i = 0; i < CAPACITY; i++) {
      if (!f.mightContain(item(buf, 1, i))) {
        throw new AssertionError("lost item " + i);
      }
    }
    long fp = 0;
    for (long i = 0; i < probes; i++) {
      if (f.mightContain(item(buf, 2, i))) {
        fp++;
      }
    }
    return fp;
  }

  public static void main(String[] args) {
    long budget = args.length > 0 ? Long.parseLong(args[0]) : 100_000_000L;
    System.out.printf(
        Locale.ROOT,
        "%d items of 8 bytes; up to %d absent probes a filter, enough for about 2,000 false"
            + " positives where the budget allows%n%n",
        CAPACITY,
        budget);
    System.out.println(
        "| rate | scaling | classic bytes | blocked bytes | blocked / classic | probes"
            + " | classic measured | classic / rate | blocked measured | blocked / rate |");
    System.out.println("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (double rate : RATES) {
      for (boolean scaling : new boolean[] {false, true}) {
        long probes = (long) Math.min(budget, Math.max(10_000_000, 2000 / rate));
        Filter c = classic(rate, scaling);
        long cfp = measure(c, probes);
        long cBytes = c.bytes();
        c = null; // let the next filter have the memory
        Filter b = blocked(rate, scaling);
        long bfp = measure(b, probes);
        double cr = (double) cfp / probes;
        double br = (double) bfp / probes;
        System.out.printf(
            Locale.ROOT,
            "| %s | %s | %d | %d | %.3f | %d | %.3g (%d) | %.3f | %.3g (%d) | %.3f |%n",
            rate,
            scaling ? "yes" : "no",
            cBytes,
            b.bytes(),
            (double) b.bytes() / cBytes,
            probes,
            cr,
            cfp,
            cr / rate,
            br,
            bfp,
            br / rate);
      }
    }
  }
}
