package io.idem.core.hash;

/**
 * Austin Appleby's MurmurHash64A (public domain), the 64-bit hash RedisBloom maps items with: a
 * RedisBloom filter moved into Idem keeps answering as it did only if Idem hashes its items the
 * same way. Written here because the libraries at hand take a 32-bit seed, and RedisBloom seeds the
 * second hash of an item with the first, a 64-bit value.
 */
public final class MurmurHash64A {

  /** The id of this function in Idem's formats (see {@link Hash128#FUNCTION_ID}). */
  public static final int FUNCTION_ID = 2;

  private static final long M = 0xc6a4a7935bd1e995L;
  private static final int R = 47;

  private MurmurHash64A() {}

  /** The hash of {@code data} under {@code seed}, as the reference's unsigned 64-bit result. */
  public static long hash(byte[] data, long seed) {
    int len = data.length;
    long h = seed ^ (len * M);
    int blocks = len >>> 3;
    for (int i = 0; i < blocks; i++) {
      long k = littleEndianLong(data, i << 3);
      k *= M;
      k ^= k >>> R;
      k *= M;
      h ^= k;
      h *= M;
    }
    int tail = blocks << 3;
    int rest = len & 7;
    if (rest > 0) {
      for (int i = rest - 1; i >= 0; i--) {
        h ^= (data[tail + i] & 0xffL) << (8 * i);
      }
      h *= M;
    }
    h ^= h >>> R;
    h *= M;
    h ^= h >>> R;
    return h;
  }

  private static long littleEndianLong(byte[] b, int off) {
    long v = 0;
    for (int i = 7; i >= 0; i--) {
      v = (v << 8) | (b[off + i] & 0xffL);
    }
    return v;
  }
}
