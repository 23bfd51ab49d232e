package io.idem.bench;

import com.google.common.hash.Funnels;
import io.idem.core.filter.BloomFilter;
import io.idem.core.hash.Hash128;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;
import org.apache.datasketches.filters.bloomfilter.BloomFilterBuilder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Bloom filters for 10 M long keys at 1 %: Idem's blocked {@link BloomFilter} (keys hashed with
 * {@link Hash128#hashLong}, a batch's with {@link Hash128#hashLongs}), Guava's {@code
 * BloomFilter<Long>} with {@code Funnels.longFunnel()}, and DataSketches' Bloom filter. Each
 * implementation hashes the key itself, so every figure is a whole operation as a caller sees it.
 *
 * <ul>
 *   <li>{@code add}: one invocation adds all 10 M keys to an empty filter (made before the
 *       invocation, outside the timing); the score is the mean over loads from 0 to capacity.
 *   <li>{@code containsPresent}, {@code containsAbsent}: probes of a filter holding the 10 M keys,
 *       by 2^20 added keys or 2^20 keys from another seed, read in turn through a mask.
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms3g", "-Xmx3g", "--add-modules=jdk.incubator.vector"})
public class BloomBenchmark {
  /*
   * Memory: the filters are 12 MB each, larger than this machine's share of the L3 cache, so a
   * probe of a random item mostly misses to DRAM. Guava's keys are boxed in setup (its API takes
   * a Long), so the loop allocates nothing but what the implementation itself allocates.
   */
  static final int CAPACITY = 10_000_000;
  static final double ERROR_RATE = 0.01;
  static final int PROBES = 1 << 20;
  static final int MASK = PROBES - 1;

  /** DataSketches' hash seed, fixed so that its false-positive count is reproducible. */
  static final long DATASKETCHES_SEED = 0x1DE3L;

  public enum Impl {
    /** With the vector module, as {@code ./idem serve} runs: one AVX-512 register a lookup. */
    IDEM {
      @Override
      Subject subject(long[] keys, long[] absent) {
        return new IdemSubject(keys, absent, "auto", true, BloomFilter.Storage.ALIGNED);
      }
    },
    /**
     * As {@link #IDEM}, but its batches hash each key with {@link Hash128#hashLong}, one at a time,
     * as BF.MEXISTS and the dedup table hash their byte strings: {@code hashLongs} is for longs.
     */
    IDEM_HASH_EACH {
      @Override
      Subject subject(long[] keys, long[] absent) {
        return new IdemSubject(keys, absent, "auto", false, BloomFilter.Storage.ALIGNED);
      }
    },
    /**
     * As {@link #IDEM}, with the bits in a long[] ({@code Storage.HEAP}, as the server keeps them):
     * its blocks mostly span two cache lines, where IDEM's sit on one.
     */
    IDEM_HEAP {
      @Override
      Subject subject(long[] keys, long[] absent) {
        return new IdemSubject(keys, absent, "auto", true, BloomFilter.Storage.HEAP);
      }
    },
    /**
     * The scalar lookup ({@code -Didem.bloom.probe=scalar}), as JVMs without the vector module or
     * AVX-512 run it; its batches are still hashed by {@code hashLongs}, with vectors in this fork.
     */
    IDEM_SCALAR {
      @Override
      Subject subject(long[] keys, long[] absent) {
        return new IdemSubject(keys, absent, "scalar", true, BloomFilter.Storage.ALIGNED);
      }
    },
    GUAVA {
      @Override
      Subject subject(long[] keys, long[] absent) {
        return new GuavaSubject(keys, absent);
      }
    },
    DATASKETCHES {
      @Override
      Subject subject(long[] keys, long[] absent) {
        return new DataSketchesSubject(keys, absent);
      }
    };

    /** A subject over {@code keys} (to add) and {@code absent} (never added). */
    abstract Subject subject(long[] keys, long[] absent);
  }

  /**
   * One implementation with its filter and its own copy of the keys, in the form its API takes.
   * Items are named by index, so the measured loop only counts.
   */
  abstract static class Subject {
    final int keyCount;
    final int absentCount;

    Subject(long[] keys, long[] absent) {
      this.keyCount = keys.length;
      this.absentCount = absent.length;
    }

    /** Replaces the filter with an empty one for {@code keyCount} items at 1 %. */
    abstract void reset();

    /** Adds key {@code i}. */
    abstract void add(int i);

    /** Probes key {@code i}, which was added if the filter was filled. */
    abstract boolean containsKey(int i);

    /** Probes absent key {@code i}. */
    abstract boolean containsAbsent(int i);

    /**
     * Probes {@code n} keys from {@code from} (absent ones if {@code absent}) as fast as the API
     * allows, returning how many were reported present. One call at a time unless overridden.
     */
    int containsBatch(int from, int n, boolean absent) {
      int present = 0;
      for (int i = from; i < from + n; i++) {
        if (absent ? containsAbsent(i & MASK) : containsKey(i & MASK)) {
          present++;
        }
      }
      return present;
    }

    /** Memory of the bit array, in bits. */
    abstract long bits();

    /** Number of probes per item. */
    abstract int hashes();

    /** Adds every key. */
    final void fill() {
      for (int i = 0; i < keyCount; i++) {
        add(i);
      }
    }
  }

  static final class IdemSubject extends Subject {
    private final long[] keys;
    private final long[] absent;
    private final Hash128 hash = new Hash128();
    private final boolean hashLongs;
    private final BloomFilter.Storage storage;
    private BloomFilter filter;

    /**
     * {@code probe} is read once, when BloomFilter is first used: JMH runs each {@link Impl} in a
     * fork of its own, and this checks that a scalar subject got the scalar lookup. An auto one
     * gets what this JVM and CPU allow (the vector lookup needs AVX-512). With {@code hashLongs},
     * batches hash their keys with {@link Hash128#hashLongs}, else one {@code hashLong} a key.
     */
    IdemSubject(
        long[] keys, long[] absent, String probe, boolean hashLongs, BloomFilter.Storage storage) {
      super(keys, absent);
      this.keys = keys;
      this.absent = absent;
      this.hashLongs = hashLongs;
      this.storage = storage;
      System.setProperty("idem.bloom.probe", probe);
      this.filter = BloomFilter.create(keyCount, ERROR_RATE, storage);
      String kind = BloomFilter.probeKind();
      if (probe.equals("scalar") && !kind.equals("scalar")) {
        throw new IllegalStateException(
            "asked for the " + probe + " Bloom probe, got " + kind + ": not in a fork of its own?");
      }
      // In the log: -jvmArgsAppend on JMH's command line replaces @Fork's, module and all.
      System.err.println("Idem Bloom probe: " + kind); // not stdout: BloomAccuracy's table is there
    }

    @Override
    void reset() {
      filter = BloomFilter.create(keyCount, ERROR_RATE, storage);
    }

    @Override
    void add(int i) {
      filter.add(hash.hashLong(keys[i]));
    }

    @Override
    boolean containsKey(int i) {
      return filter.mightContain(hash.hashLong(keys[i]));
    }

    @Override
    boolean containsAbsent(int i) {
      return filter.mightContain(hash.hashLong(absent[i]));
    }

    private final long[] h1 = new long[BATCH];
    private final long[] h2 = new long[BATCH];
    private final boolean[] found = new boolean[BATCH];

    /** Hashes the batch, then one {@link BloomFilter#mightContainAll} (as the dedup table does). */
    @Override
    int containsBatch(int from, int n, boolean isAbsent) {
      long[] source = isAbsent ? absent : keys;
      if (from + n > PROBES) {
        throw new IllegalStateException("a batch must not wrap: " + from + " + " + n);
      }
      if (hashLongs) {
        Hash128.hashLongs(source, from, n, h1, h2);
      } else {
        for (int j = 0; j < n; j++) {
          hash.hashLong(source[from + j]);
          h1[j] = hash.h1();
          h2[j] = hash.h2();
        }
      }
      filter.mightContainAll(h1, h2, n, found);
      int present = 0;
      for (int j = 0; j < n; j++) {
        if (found[j]) {
          present++;
        }
      }
      return present;
    }

    @Override
    long bits() {
      return filter.sizeInBytes() * 8;
    }

    @Override
    int hashes() {
      return filter.hashes();
    }
  }

  static final class GuavaSubject extends Subject {
    private final Long[] keys;
    private final Long[] absent;
    private com.google.common.hash.BloomFilter<Long> filter;

    GuavaSubject(long[] keys, long[] absent) {
      super(keys, absent);
      this.keys = Keys.boxed(keys);
      this.absent = Keys.boxed(absent);
      this.filter = create();
    }

    private com.google.common.hash.BloomFilter<Long> create() {
      return com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), keyCount, ERROR_RATE);
    }

    @Override
    void reset() {
      filter = create();
    }

    @Override
    void add(int i) {
      filter.put(keys[i]);
    }

    @Override
    boolean containsKey(int i) {
      return filter.mightContain(keys[i]);
    }

    @Override
    boolean containsAbsent(int i) {
      return filter.mightContain(absent[i]);
    }

    /**
     * Guava keeps its bit count private; its serial form is a 6-byte header (strategy ordinal: 1
     * byte, hash count: 1 byte, word count: 4 bytes) followed by the words, so the bits are
     * (serialized bytes - 6) * 8.
     */
    @Override
    long bits() {
      long[] count = new long[1];
      try {
        filter.writeTo(
            new OutputStream() {
              @Override
              public void write(int b) {
                count[0]++;
              }

              @Override
              public void write(byte[] b, int off, int len) {
                count[0] += len;
              }
            });
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return (count[0] - 6) * 8;
    }

    /** Guava's k for a rate p is round(-log2 p) for the bit count it chose: 7 at 1 %. */
    @Override
    int hashes() {
      return (int) Math.max(1, Math.round((double) bits() / keyCount * Math.log(2)));
    }
  }

  static final class DataSketchesSubject extends Subject {
    private final long[] keys;
    private final long[] absent;
    private org.apache.datasketches.filters.bloomfilter.BloomFilter filter;

    DataSketchesSubject(long[] keys, long[] absent) {
      super(keys, absent);
      this.keys = keys;
      this.absent = absent;
      this.filter = create();
    }

    private org.apache.datasketches.filters.bloomfilter.BloomFilter create() {
      return BloomFilterBuilder.createByAccuracy(keyCount, ERROR_RATE, DATASKETCHES_SEED);
    }

    @Override
    void reset() {
      filter = create();
    }

    @Override
    void add(int i) {
      filter.update(keys[i]);
    }

    @Override
    boolean containsKey(int i) {
      return filter.query(keys[i]);
    }

    @Override
    boolean containsAbsent(int i) {
      return filter.query(absent[i]);
    }

    /** getCapacity() is the size of the bit array in bits. */
    @Override
    long bits() {
      return filter.getCapacity();
    }

    @Override
    int hashes() {
      return filter.getNumHashes();
    }
  }

  /** The keys, generated once per trial, and the implementation under test. */
  @State(Scope.Thread)
  public static class Inputs {
    @Param Impl impl;

    Subject subject;

    @Setup(Level.Trial)
    public void generate() {
      subject =
          impl.subject(
              Keys.longs(Keys.PRESENT_SEED, CAPACITY), Keys.longs(Keys.ABSENT_SEED, PROBES));
    }
  }

  /** A filter holding all 10 M keys, filled once per trial. */
  @State(Scope.Thread)
  public static class Filled {
    Subject subject;
    int index;

    @Setup(Level.Trial)
    public void fill(Inputs inputs) {
      subject = inputs.subject;
      subject.reset();
      subject.fill();
    }
  }

  /** An empty filter before every invocation of {@link #add}. */
  @State(Scope.Thread)
  public static class Empty {
    Subject subject;

    @Setup(Level.Invocation)
    public void reset(Inputs inputs) {
      subject = inputs.subject;
      subject.reset();
    }
  }

  /** Fills an empty filter to capacity; the score is per add. */
  @Benchmark
  @OperationsPerInvocation(CAPACITY)
  public void add(Empty empty) {
    Subject s = empty.subject;
    for (int i = 0; i < CAPACITY; i++) {
      s.add(i);
    }
  }

  @Benchmark
  public boolean containsPresent(Filled filled) {
    return filled.subject.containsKey(filled.index++ & MASK);
  }

  @Benchmark
  public boolean containsAbsent(Filled filled) {
    return filled.subject.containsAbsent(filled.index++ & MASK);
  }

  /** Lookups per batch call: a consumer's poll, as the dedup table checks one. */
  static final int BATCH = 64;

  /** {@link #BATCH} present keys per call; Idem's batch API, the others one at a time. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int containsPresentBatch(Filled filled) {
    int from = filled.index;
    filled.index += BATCH;
    return filled.subject.containsBatch(from & MASK, BATCH, false);
  }

  /** {@link #BATCH} absent keys per call; Idem's batch API, the others one at a time. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int containsAbsentBatch(Filled filled) {
    int from = filled.index;
    filled.index += BATCH;
    return filled.subject.containsBatch(from & MASK, BATCH, true);
  }
}
