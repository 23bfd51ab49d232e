package io.idem.core.hash;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A reusable holder for the 128-bit hash of one item: two 64-bit halves, {@link #h1()} and {@link
 * #h2()}. Not thread-safe: each thread keeps its own and refills it with {@link #hash}; nothing is
 * allocated per call once C2 has compiled the hash (where it ends in VectorHash, the interpreter
 * and C1 run the vector API in Java, which allocates).
 *
 * <p>The function is MurmurHash3 x64 128 with seed 0, byte for byte the same as Guava's {@code
 * Hashing.murmur3_128()} (checked in Hash128Test). Every persisted structure records {@link
 * #FUNCTION_ID}, so a change of function can never be read back silently.
 */
public final class Hash128 {
  /*
   * Why our own Murmur3 and not a library: see BENCHMARKS.md "Hashing". In short, on 16- to
   * 256-byte items it measured faster than zero-allocation-hashing's XXH3, and that library reads
   * memory through sun.misc.Unsafe, whose memory-access methods print a warning on JDK 24+ and are
   * being removed (JEP 471). A VarHandle view of the byte array compiles to the same plain loads.
   */

  /** Append-only id of the hash function, written into every persisted format. */
  public static final int FUNCTION_ID = 1;

  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  static final long C1 = 0x87c37b91114253d5L;
  static final long C2 = 0x4cf5ad432745937fL;
  static final long F1 = 0xff51afd7ed558ccdL;
  static final long F2 = 0xc4ceb9fe1a85ec53L;

  /**
   * Whether every hash ends in VectorHash ({@link #hashLong} and {@link #hash}: both halves' fmix
   * at once) and {@link #hashLongs} takes it for eight keys at once: when the JVM has the module
   * jdk.incubator.vector and a C2 that compiles 512-bit vectors (AVX-512). Both paths give the same
   * hashes (tested). The module is the only switch ({@code -Didem.bloom.probe} is the Bloom
   * lookup's): a JVM without C2 (-Xint, C1 only) should not add it, as the vector API then runs in
   * Java.
   */
  static final boolean VECTOR =
      ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent() && VectorHash.native512();

  private long h1;
  private long h2;

  /** The first 64 bits (Guava's bytes 0..7, little-endian). */
  public long h1() {
    return h1;
  }

  /** The second 64 bits (Guava's bytes 8..15, little-endian). */
  public long h2() {
    return h2;
  }

  /** Writes the two halves into {@code pair[0]} and {@code pair[1]}. */
  public void into(long[] pair) {
    pair[0] = h1;
    pair[1] = h2;
  }

  /** Hashes all of {@code bytes}; returns this holder. */
  public Hash128 hash(byte[] bytes) {
    return hash(bytes, 0, bytes.length);
  }

  /** Hashes the UTF-8 bytes of {@code s}. Allocates the byte array: for tests and tools only. */
  public Hash128 hash(String s) {
    return hash(s.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Hashes the eight little-endian bytes of {@code value}, with no allocation once C2 has compiled
   * it (the vector path allocates in the interpreter and C1).
   */
  public Hash128 hashLong(long value) {
    // finish(mixK1(value), 0, 8), its first steps done here: a ^= 8, b = 0 ^ 8, a += b, b += a.
    long a = mixK1(value) ^ 8;
    if (VECTOR) {
      VectorHash.finishLong(a, this);
      return this;
    }
    return scalarFinishLong(a);
  }

  /** hashLong's end on the scalar path, given {@code k = mixK1(value) ^ 8}. */
  Hash128 scalarFinishLong(long k) {
    return fmixBoth(k + 8, k + 16);
  }

  /**
   * Hashes {@code count} longs at once: {@code h1[i]} and {@code h2[i]} become {@code
   * hashLong(values[offset + i])}'s halves. Where the JVM has the module jdk.incubator.vector and
   * AVX-512, eight keys a vector instruction, several times faster a key than {@link #hashLong}
   * (BENCHMARKS.md); the same hashes either way. Allocates nothing; static, so any thread may call
   * it with its own arrays.
   */
  public static void hashLongs(long[] values, int offset, int count, long[] h1, long[] h2) {
    Objects.checkFromIndexSize(offset, count, values.length);
    Objects.checkFromIndexSize(0, count, Math.min(h1.length, h2.length));
    int done = VECTOR ? VectorHash.hashLongs(values, offset, count, h1, h2) : 0;
    scalarHashLongs(values, offset, done, count, h1, h2);
  }

  /** hashLongs one key at a time, for keys {@code from} to {@code count}: the scalar path. */
  static void scalarHashLongs(
      long[] values, int offset, int from, int count, long[] h1, long[] h2) {
    for (int i = from; i < count; i++) {
      long a = mixK1(values[offset + i]) ^ 8;
      long b = 8;
      a += b;
      b += a;
      a = fmix(a);
      b = fmix(b);
      a += b;
      b += a;
      h1[i] = a;
      h2[i] = b;
    }
  }

  /** Hashes {@code bytes[offset .. offset+length)}; returns this holder. */
  public Hash128 hash(byte[] bytes, int offset, int length) {
    Objects.checkFromIndexSize(offset, length, bytes.length);
    long a = 0;
    long b = 0;
    int end = offset + length;
    int i = offset;
    for (; end - i >= 16; i += 16) {
      long k1 = (long) LONG_LE.get(bytes, i);
      long k2 = (long) LONG_LE.get(bytes, i + 8);
      a ^= mixK1(k1);
      a = Long.rotateLeft(a, 27) + b;
      a = a * 5 + 0x52dce729;
      b ^= mixK2(k2);
      b = Long.rotateLeft(b, 31) + a;
      b = b * 5 + 0x38495ab5;
    }
    int rest = end - i;
    if (rest > 0) {
      long k1 = 0;
      long k2 = 0;
      if (rest > 8) {
        k1 = (long) LONG_LE.get(bytes, i);
        for (int j = rest - 1; j >= 8; j--) {
          k2 = (k2 << 8) | (bytes[i + j] & 0xffL);
        }
        b ^= mixK2(k2);
      } else if (rest == 8) {
        k1 = (long) LONG_LE.get(bytes, i);
      } else {
        for (int j = rest - 1; j >= 0; j--) {
          k1 = (k1 << 8) | (bytes[i + j] & 0xffL);
        }
      }
      a ^= mixK1(k1);
    }
    return finish(a, b, length);
  }

  private Hash128 finish(long a, long b, long length) {
    a ^= length;
    b ^= length;
    a += b;
    b += a;
    if (VECTOR) {
      VectorHash.fmixBoth(a, b, this);
      return this;
    }
    return fmixBoth(a, b);
  }

  /**
   * The end of every hash: fmix each half, then a += b, b += a. The scalar path, tested as such.
   */
  Hash128 fmixBoth(long a, long b) {
    a = fmix(a);
    b = fmix(b);
    a += b;
    return set(a, b + a);
  }

  /** Sets both halves (VectorHash ends here); returns this holder. */
  Hash128 set(long h1, long h2) {
    this.h1 = h1;
    this.h2 = h2;
    return this;
  }

  static long mixK1(long k1) {
    return Long.rotateLeft(k1 * C1, 31) * C2;
  }

  private static long mixK2(long k2) {
    return Long.rotateLeft(k2 * C2, 33) * C1;
  }

  private static long fmix(long k) {
    k ^= k >>> 33;
    k *= F1;
    k ^= k >>> 33;
    k *= F2;
    k ^= k >>> 33;
    return k;
  }

  @Override
  public String toString() {
    return String.format("%016x%016x", h1, h2);
  }
}
