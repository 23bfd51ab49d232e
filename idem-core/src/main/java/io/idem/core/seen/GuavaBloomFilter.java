package io.idem.core.seen;

import io.idem.core.Checks;
import io.idem.core.hash.Hash128;
import io.idem.core.seen.SeenCacheException.Reason;
import java.nio.ByteBuffer;
import java.util.Base64;

/**
 * A Bloom filter in Guava's {@code BloomFilter.writeTo} layout and hashing (strategy
 * MURMUR128_MITZ_64, items funnelled as raw bytes, as {@code Funnels.byteArrayFunnel()} does), so
 * that seen-caches kept as Guava filters, seed 000's cookies among them, can be read, checked and
 * written again. Checked against the real Guava library in the tests.
 *
 * <p>The layout (big-endian): strategy ordinal (1 byte, 1 for MURMUR128_MITZ_64), hash count (1
 * byte, unsigned), word count (4 bytes), then the words (8 bytes each). An item sets bits {@code
 * (h1 + j * h2) mod bits} for j = 0..k-1, each sum masked to 63 bits, where h1 and h2 are the two
 * halves of the item's MurmurHash3 x64 128 ({@link Hash128}, the same function).
 *
 * <p>{@link #mightContain} is safe from many threads at once; {@link #add} is not (one filter a
 * request, as with a cookie, needs no lock).
 */
public final class GuavaBloomFilter implements SeenItems {
  /** Guava's ordinal for MURMUR128_MITZ_64 in {@code BloomFilterStrategies}. */
  static final int MURMUR128_MITZ_64 = 1;

  private final int hashes;
  private final long[] words;
  private final long bitSize;

  private GuavaBloomFilter(int hashes, long[] words) {
    this.hashes = hashes;
    this.words = words;
    this.bitSize = (long) words.length * 64;
  }

  /**
   * An empty filter sized as Guava's {@code BloomFilter.create(funnel, expected, rate)} sizes one:
   * -n ln(rate) / ln(2)^2 bits, rounded up to whole words, and round(-log2(rate)) hashes.
   */
  public static GuavaBloomFilter create(long expectedItems, double rate) {
    Checks.checkArgument(expectedItems >= 1, "expected items (%s) must be >= 1", expectedItems);
    Checks.checkArgument(rate > 0 && rate < 1, "rate (%s) must be in (0, 1)", rate);
    long bits = (long) (-expectedItems * Math.log(rate) / (Math.log(2) * Math.log(2)));
    long wordCount = Math.max(1, (bits + 63) / 64);
    Checks.checkArgument(wordCount <= Integer.MAX_VALUE / 8, "%s bits are too many", bits);
    int k = Math.max(1, (int) Math.round(-Math.log(rate) / Math.log(2)));
    return new GuavaBloomFilter(Math.min(k, 255), new long[(int) wordCount]);
  }

  @Override
  public boolean mightContain(byte[] item) {
    Hash128 hash = new Hash128().hash(item);
    long combined = hash.h1();
    for (int i = 0; i < hashes; i++) {
      long bit = (combined & Long.MAX_VALUE) % bitSize;
      if ((words[(int) (bit >>> 6)] & (1L << bit)) == 0) {
        return false;
      }
      combined += hash.h2();
    }
    return true;
  }

  @Override
  public boolean add(byte[] item) {
    Hash128 hash = new Hash128().hash(item);
    long combined = hash.h1();
    boolean changed = false;
    for (int i = 0; i < hashes; i++) {
      long bit = (combined & Long.MAX_VALUE) % bitSize;
      int w = (int) (bit >>> 6);
      long mask = 1L << bit;
      changed |= (words[w] & mask) == 0;
      words[w] |= mask;
      combined += hash.h2();
    }
    return changed;
  }

  public int hashCount() {
    return hashes;
  }

  public long bitSize() {
    return bitSize;
  }

  /** The bytes Guava's {@code writeTo} writes for this filter. */
  public byte[] toByteArray() {
    ByteBuffer b = ByteBuffer.allocate(6 + words.length * 8);
    b.put((byte) MURMUR128_MITZ_64).put((byte) hashes).putInt(words.length);
    for (long w : words) {
      b.putLong(w);
    }
    return b.array();
  }

  /** {@link #toByteArray()} in base64 with padding, as seed 000 stored its cookies. */
  public String toBase64() {
    return Base64.getEncoder().encodeToString(toByteArray());
  }

  /**
   * Reads Guava's {@code writeTo} bytes.
   *
   * @param maxBytes the most bytes accepted; checked before anything is allocated
   * @throws SeenCacheException if the bytes are too many, cut off, of another strategy, or hold a
   *     length that disagrees with their size
   */
  public static GuavaBloomFilter readFrom(byte[] bytes, int maxBytes) throws SeenCacheException {
    if (bytes.length > maxBytes) {
      throw new SeenCacheException(
          Reason.TOO_LARGE,
          "Guava filter of " + bytes.length + " bytes, over the limit of " + maxBytes);
    }
    if (bytes.length < 6) {
      throw new SeenCacheException(
          Reason.TRUNCATED, "Guava filter of " + bytes.length + " bytes is cut off");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    int strategy = b.get();
    if (strategy != MURMUR128_MITZ_64) {
      throw new SeenCacheException(
          Reason.WRONG_FAMILY,
          "Guava filter strategy "
              + strategy
              + (strategy == 0 ? " (MURMUR128_MITZ_32, not read)" : "")
              + "; only MURMUR128_MITZ_64 (1) is read");
    }
    int k = b.get() & 0xff;
    int wordCount = b.getInt();
    if (k == 0) {
      throw new SeenCacheException(Reason.MALFORMED, "Guava filter with no hash function");
    }
    if (wordCount <= 0 || (long) wordCount * 8 != bytes.length - 6) {
      throw new SeenCacheException(
          wordCount > 0 && (long) wordCount * 8 > bytes.length - 6
              ? Reason.TRUNCATED
              : Reason.MALFORMED,
          "Guava filter declares "
              + wordCount
              + " words but holds "
              + (bytes.length - 6)
              + " bytes of them");
    }
    long[] words = new long[wordCount];
    for (int i = 0; i < wordCount; i++) {
      words[i] = b.getLong();
    }
    return new GuavaBloomFilter(k, words);
  }

  /**
   * Reads a Guava filter stored as base64: the standard alphabet or base64url, with or without
   * padding.
   *
   * @param maxChars the longest value accepted; checked before anything is decoded
   */
  public static GuavaBloomFilter fromBase64(String value, int maxChars) throws SeenCacheException {
    if (value.length() > maxChars) {
      throw new SeenCacheException(
          Reason.TOO_LARGE,
          "Guava filter value of " + value.length() + " characters, over the limit of " + maxChars);
    }
    return readFrom(Base64Url.decode(value, true), Integer.MAX_VALUE);
  }
}
