package io.idem.bench;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import io.idem.core.hash.Hash128;
import java.util.concurrent.TimeUnit;
import net.openhft.hashing.LongTupleHashFunction;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The 128-bit hash of one long, the first step of every Bloom operation in {@link BloomBenchmark}:
 * this is the part of those figures that is hashing, not memory. {@code hashLongBatch} hashes
 * {@link #BATCH} keys a call: Idem with {@link Hash128#hashLongs} (eight keys a vector instruction
 * where the JVM has the vector module and AVX-512, as this fork does), the others one at a time.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
// The flag silences zero-allocation-hashing's sun.misc.Unsafe warning: see HashBenchmark.
@Fork(
    value = 1,
    jvmArgsAppend = {"--sun-misc-unsafe-memory-access=allow", "--add-modules=jdk.incubator.vector"})
public class HashLongBenchmark {
  static final int INPUTS = 1 << 10;
  static final int MASK = INPUTS - 1;

  /** A 128-bit hash of a long, folded to a long. */
  interface LongHasher {
    long hash(long value);
  }

  static final int BATCH = 64;

  public enum Impl {
    IDEM {
      @Override
      boolean batches() {
        return true;
      }

      @Override
      LongHasher create() {
        Hash128 h = new Hash128();
        return value -> {
          h.hashLong(value);
          return h.h1() ^ h.h2();
        };
      }
    },
    /** Idem's {@code hashLong}, in {@code hashLongBatch} too: one call a key, in a loop. */
    IDEM_EACH {
      @Override
      LongHasher create() {
        return IDEM.create();
      }
    },
    ZAH_XX128 {
      @Override
      LongHasher create() {
        return zah(LongTupleHashFunction.xx128());
      }
    },
    ZAH_MURMUR3 {
      @Override
      LongHasher create() {
        return zah(LongTupleHashFunction.murmur_3());
      }
    },
    GUAVA_MURMUR3 {
      @Override
      LongHasher create() {
        HashFunction f = Hashing.murmur3_128();
        return value -> f.hashLong(value).asLong();
      }
    };

    abstract LongHasher create();

    /** Whether {@code hashLongBatch} calls {@link Hash128#hashLongs}, not the hasher per key. */
    boolean batches() {
      return false;
    }

    private static LongHasher zah(LongTupleHashFunction f) {
      long[] out = new long[2];
      return value -> {
        f.hashLong(value, out);
        return out[0] ^ out[1];
      };
    }
  }

  @Param Impl impl;

  private long[] inputs;
  private LongHasher hasher;
  private int index;
  private final long[] h1 = new long[BATCH];
  private final long[] h2 = new long[BATCH];

  @Setup
  public void setup() {
    inputs = Keys.longs(Keys.PRESENT_SEED, INPUTS);
    hasher = impl.create();
  }

  @Benchmark
  public long hashLong() {
    return hasher.hash(inputs[index++ & MASK]);
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long hashLongBatch() {
    int from = index & MASK; // a multiple of BATCH, which divides INPUTS: a batch never wraps
    index += BATCH;
    if (impl.batches()) {
      Hash128.hashLongs(inputs, from, BATCH, h1, h2);
      return h1[0] ^ h2[BATCH - 1];
    }
    long folded = 0;
    for (int i = 0; i < BATCH; i++) {
      folded ^= hasher.hash(inputs[from + i]);
    }
    return folded;
  }
}
