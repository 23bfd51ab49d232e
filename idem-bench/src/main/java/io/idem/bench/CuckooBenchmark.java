package io.idem.bench;

import io.idem.core.filter.CuckooFilter;
import io.idem.core.hash.Hash128;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Idem's {@link CuckooFilter} for 1 M items at 1 % (RedisBloom's defaults: bucket size 2, 20 kicks,
 * expansion 1), keys hashed with {@link Hash128#hashLong} inside each operation. There is no
 * baseline in the same run: neither Guava nor DataSketches has a cuckoo filter.
 *
 * <ul>
 *   <li>{@code addToHalf}, {@code addToCapacity}: one invocation adds 500 k or 1 M new keys to an
 *       empty filter (made before the invocation, outside the timing) with {@code add}, which
 *       probes first and inserts only if absent (CF.ADDNX); the score is per add, the mean over
 *       loads from 0 to half or full capacity, where kicks get more frequent.
 *   <li>{@code containsPresent}, {@code containsAbsent}: probes of a filter holding the 1 M keys.
 *   <li>{@code deleteAndReinsert}: one op is {@code remove} of a present key followed by {@code
 *       insert} of the same key, so the filter keeps its load; it costs two operations.
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
public class CuckooBenchmark {
  static final int CAPACITY = 1_000_000;
  static final double ERROR_RATE = 0.01;
  static final int PROBES = 1 << 20;
  static final int MASK = PROBES - 1;

  /** The keys, generated once per trial. */
  @State(Scope.Thread)
  public static class Inputs {
    long[] keys;
    long[] present;
    long[] absent;

    @Setup(Level.Trial)
    public void generate() {
      keys = Keys.longs(Keys.PRESENT_SEED, CAPACITY);
      present = Keys.cycle(keys, PROBES);
      absent = Keys.longs(Keys.ABSENT_SEED, PROBES);
    }
  }

  /** A filter holding all 1 M keys, filled once per trial. */
  @State(Scope.Thread)
  public static class Filled {
    final Hash128 hash = new Hash128();
    CuckooFilter filter = CuckooFilter.create(CAPACITY, ERROR_RATE);
    long[] present = new long[0];
    long[] absent = new long[0];
    int index;

    @Setup(Level.Trial)
    public void fill(Inputs inputs) {
      for (long key : inputs.keys) {
        filter.add(hash.hashLong(key));
      }
      if (filter.tableCount() != 1) {
        throw new IllegalStateException("filling to capacity grew the filter: " + filter);
      }
      present = inputs.present;
      absent = inputs.absent;
    }
  }

  /** An empty filter before every invocation of an add benchmark. */
  @State(Scope.Thread)
  public static class Empty {
    final Hash128 hash = new Hash128();
    CuckooFilter filter = CuckooFilter.create(CAPACITY, ERROR_RATE);
    long[] keys = new long[0];

    @Setup(Level.Invocation)
    public void reset(Inputs inputs) {
      filter = CuckooFilter.create(CAPACITY, ERROR_RATE);
      keys = inputs.keys;
    }
  }

  @Benchmark
  @OperationsPerInvocation(CAPACITY / 2)
  public long addToHalf(Empty empty) {
    return addAll(empty, CAPACITY / 2);
  }

  @Benchmark
  @OperationsPerInvocation(CAPACITY)
  public long addToCapacity(Empty empty) {
    return addAll(empty, CAPACITY);
  }

  private static long addAll(Empty empty, int count) {
    CuckooFilter filter = empty.filter;
    Hash128 hash = empty.hash;
    long[] keys = empty.keys;
    for (int i = 0; i < count; i++) {
      filter.add(hash.hashLong(keys[i]));
    }
    return filter.itemCount();
  }

  @Benchmark
  public boolean containsPresent(Filled filled) {
    return filled.filter.mightContain(filled.hash.hashLong(filled.present[filled.index++ & MASK]));
  }

  @Benchmark
  public boolean containsAbsent(Filled filled) {
    return filled.filter.mightContain(filled.hash.hashLong(filled.absent[filled.index++ & MASK]));
  }

  /** Removes a present key and inserts it again: two operations, and the load stays the same. */
  @Benchmark
  public boolean deleteAndReinsert(Filled filled) {
    Hash128 h = filled.hash.hashLong(filled.present[filled.index++ & MASK]);
    boolean removed = filled.filter.remove(h.h1(), h.h2());
    filled.filter.insert(h.h1(), h.h2());
    return removed;
  }
}
