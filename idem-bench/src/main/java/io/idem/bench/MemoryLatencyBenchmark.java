package io.idem.bench;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Random loads from a working set of the given size. A filter operation on a random item costs at
 * least one such load, so these figures say roughly how much of a {@link BloomBenchmark} or {@link
 * CuckooBenchmark} score is memory and not code. (BloomVersus's "one line", a bare loop of loads
 * from the filter's own blocks, is the floor under a batched lookup.)
 *
 * <ul>
 *   <li>{@code dependentLoad}: a pointer chase, one hop per 64-byte line; each load waits for the
 *       previous one, so the score is the full latency of one miss at that size.
 *   <li>{@code independentLoad}: loads at precomputed random offsets that do not depend on each
 *       other, so the core overlaps their misses, one load a JMH invocation. 12,800 KiB is the size
 *       of the 10 M-item Bloom filters.
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class MemoryLatencyBenchmark {
  static final int OFFSETS = 1 << 20;
  static final int MASK = OFFSETS - 1;
  static final int INTS_PER_LINE = 16;

  @Param({"256", "4096", "12800", "65536"})
  int kib;

  private int[] next;
  private int at;
  private long[] words;
  private int[] offsets;
  private int index;

  @Setup
  public void setup() {
    SplittableRandom random = new SplittableRandom(Keys.PRESENT_SEED);
    // A random cycle through the first int of every 64-byte line.
    int lines = kib * 1024 / 64;
    int[] order = new int[lines];
    for (int i = 0; i < lines; i++) {
      order[i] = i * INTS_PER_LINE;
    }
    for (int i = lines - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    next = new int[lines * INTS_PER_LINE];
    for (int i = 0; i < lines; i++) {
      next[order[i]] = order[(i + 1) % lines];
    }
    at = order[0];

    words = new long[kib * 1024 / 8];
    offsets = new int[OFFSETS];
    for (int i = 0; i < OFFSETS; i++) {
      offsets[i] = random.nextInt(words.length);
    }
  }

  @Benchmark
  public int dependentLoad() {
    return at = next[at];
  }

  @Benchmark
  public long independentLoad() {
    return words[offsets[index++ & MASK]];
  }
}
