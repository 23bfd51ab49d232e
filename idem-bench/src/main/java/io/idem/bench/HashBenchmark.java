package io.idem.bench;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import io.idem.core.hash.Hash128;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import net.openhft.hashing.LongTupleHashFunction;
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
 * The 128-bit hash of one byte array, by implementation and length: Idem's {@link Hash128}
 * (MurmurHash3 x64 128 over a VarHandle view), zero-allocation-hashing's XXH3-128 and MurmurHash3
 * into a reused {@code long[2]}, and Guava's {@code murmur3_128().hashBytes}, which allocates a
 * HashCode per call (the baseline).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"--sun-misc-unsafe-memory-access=allow", "--add-modules=jdk.incubator.vector"})
public class HashBenchmark {
  /*
   * Inputs: 1024 arrays of the given length, read in turn through a mask; at 256 bytes that is
   * 256 KiB, which stays in L2, so the figure is the hash, not memory. Length 36 holds the text of a
   * random UUID, the commonest idempotency key.
   *
   * JVM flag: zero-allocation-hashing reads byte arrays through sun.misc.Unsafe, whose memory-access
   * methods print a deprecation warning on first use from JDK 24 on (JEP 471);
   * --sun-misc-unsafe-memory-access=allow silences it and changes nothing else. The vector module,
   * as ./idem serve adds it: with it and AVX-512 Hash128 ends each hash in VectorHash.fmixBoth.
   */
  static final int INPUTS = 1 << 10;
  static final int MASK = INPUTS - 1;

  /** A 128-bit hash of a byte array, folded to a long so no half can be optimised away. */
  interface Hasher {
    long hash(byte[] bytes);
  }

  public enum Impl {
    IDEM {
      @Override
      Hasher create() {
        Hash128 h = new Hash128();
        return bytes -> {
          h.hash(bytes);
          return h.h1() ^ h.h2();
        };
      }
    },
    ZAH_XX128 {
      @Override
      Hasher create() {
        return zah(LongTupleHashFunction.xx128());
      }
    },
    ZAH_MURMUR3 {
      @Override
      Hasher create() {
        return zah(LongTupleHashFunction.murmur_3());
      }
    },
    GUAVA_MURMUR3 {
      @Override
      Hasher create() {
        HashFunction f = Hashing.murmur3_128();
        return bytes -> f.hashBytes(bytes).asLong();
      }
    };

    abstract Hasher create();

    private static Hasher zah(LongTupleHashFunction f) {
      long[] out = new long[2];
      return bytes -> {
        f.hashBytes(bytes, out);
        return out[0] ^ out[1];
      };
    }
  }

  @Param({"16", "36", "64", "256"})
  int length;

  @Param Impl impl;

  private byte[][] inputs;
  private Hasher hasher;
  private int index;

  @Setup
  public void setup() {
    SplittableRandom random = new SplittableRandom(Keys.PRESENT_SEED);
    inputs = new byte[INPUTS][];
    for (int i = 0; i < INPUTS; i++) {
      if (length == 36) {
        UUID uuid = new UUID(random.nextLong(), random.nextLong());
        inputs[i] = uuid.toString().getBytes(StandardCharsets.US_ASCII);
      } else {
        inputs[i] = new byte[length];
        random.nextBytes(inputs[i]);
      }
    }
    hasher = impl.create();
  }

  @Benchmark
  public long hash() {
    return hasher.hash(inputs[index++ & MASK]);
  }
}
