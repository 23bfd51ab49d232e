package io.idem.core.seen;

import io.idem.core.Checks;
import io.idem.core.format.FormatFamily;
import io.idem.core.seen.SeenCacheException.Reason;
import java.util.Base64;
import org.jspecify.annotations.Nullable;

/**
 * Sizes seen-caches and turns them into cookie values and back: RFC 4648 base64url without padding,
 * optionally signed (HMAC-SHA256, {@link SigningKeys}). A cookie is read back by a codec of the
 * same size and rate; one made under another fails the tag if signed ({@link Reason#BAD_TAG}), and
 * is otherwise refused as below, almost always.
 *
 * <p>The format, version 1 (bits most significant first):
 *
 * <pre>
 * byte 0    family id 11 ({@link FormatFamily#SEEN_CACHE})
 * byte 1    bits 7-6: version (1); bit 5: two generations; bits 4-0: the codec's parameter check
 * then      one generation: gamma(capacity - count + 1), a single bit when the cache is full; the
 *             Golomb-coded gaps of its sorted fingerprints, parameter {@code M(count / range)};
 *           two generations: gamma(newer count), gamma(older count), the newer's gaps with
 *             {@code M(newer / range)}, the older's with {@code M(older / range)}
 *           padding: ones to the byte (fewer than eight; a code always holds a zero)
 * then      the tag, if signed: the first tagBytes of HMAC-SHA256 over the capacity and the
 *             range (4 bytes each, big-endian) followed by everything before the tag
 * </pre>
 *
 * <p>M(k / range) is Golomb's parameter for k values spread over the range ({@code
 * GolombBits.parameter}): the least M with (1-p)^M + (1-p)^(M+1) <= 1 for p = k / range, at most
 * 2^30, and 1 for no value. A fingerprint is the high 64 bits of (the item's MurmurHash3 x64 128
 * first half, unsigned) times the range.
 *
 * <p>The header is two bytes rather than Idem's usual eight plus a checksum because the format's
 * point is size: 100 items at 1 % in at most 140 characters leaves room for about two bytes once
 * the set itself is near its entropy. The range is not written, the codec knows it, and the count
 * is written as its distance from the capacity, where a cache spends most of its life. A bad value
 * is caught by its tag when signed (the tag also covers the codec's capacity and range), and
 * otherwise by the parameter check (5 bits: another codec's value passes it once in 32), the range
 * check on every value, the count limit and the padding rule; any of them fails with a {@link
 * SeenCacheException}.
 */
public final class SeenCacheCodec {
  static final int VERSION = 1;
  static final int HEADER_BITS = 16;

  /** The largest capacity: a cookie of a few kilobytes holds a few thousand items. */
  public static final int MAX_CAPACITY = 1 << 20;

  /** The most characters a budget may allow; browsers keep 4096 bytes a cookie. */
  public static final int MAX_BUDGET = 1 << 16;

  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

  private final int capacity;
  private final int range;
  private final double rate;
  private final int budget;
  private final @Nullable SigningKeys keys;
  private final int check;

  /** What a tag covers before the value: the capacity and range, so a size change fails it. */
  private final byte[] context;

  private final int maxChars;

  private SeenCacheCodec(int capacity, double rate, int budget, @Nullable SigningKeys keys) {
    double r = Math.ceil(capacity / rate);
    Checks.checkArgument(
        r < Integer.MAX_VALUE,
        "capacity %s at rate %s needs a fingerprint range of %s, over 2^31",
        capacity,
        rate,
        r);
    this.capacity = capacity;
    this.range = (int) r;
    this.rate = rate;
    this.budget = budget;
    this.keys = keys;
    long mix = range * 0x9E3779B97F4A7C15L ^ capacity * 0xC2B2AE3D27D4EB4FL;
    this.check = (int) ((mix ^ (mix >>> 29)) * 0xBF58476D1CE4E5B9L >>> 59);
    this.maxChars = budget > 0 ? budget : chars(worstCaseBits(), tagBytes());
    this.context = java.nio.ByteBuffer.allocate(8).putInt(capacity).putInt(range).array();
  }

  /**
   * A codec for caches that hold up to {@code capacity} items with a false-positive rate of at most
   * {@code rate}. Past capacity a cache forgets older items to stay within both.
   */
  public static SeenCacheCodec forCount(int capacity, double rate) {
    checkRate(rate);
    Checks.checkArgument(
        capacity >= 1 && capacity <= MAX_CAPACITY,
        "capacity (%s) must be in [1, %s]",
        capacity,
        MAX_CAPACITY);
    return new SeenCacheCodec(capacity, rate, 0, null);
  }

  /**
   * A codec for caches whose cookie value never exceeds {@code maxChars} characters (tag included),
   * at a false-positive rate of at most {@code rate}. A full cache forgets older items to stay
   * within both; how many it holds is {@link #capacity()} at most, and see {@code idem size
   * --cookie} for what it keeps once it ages.
   */
  public static SeenCacheCodec forBudget(int maxChars, double rate) {
    return forBudget(maxChars, rate, null);
  }

  private static SeenCacheCodec forBudget(int maxChars, double rate, @Nullable SigningKeys keys) {
    checkRate(rate);
    Checks.checkArgument(
        maxChars >= 8 && maxChars <= MAX_BUDGET,
        "budget (%s characters) must be in [8, %s]",
        maxChars,
        MAX_BUDGET);
    int tag = keys == null ? 0 : keys.tagBytes();
    long dataBits = ((long) maxChars * 6 / 8 - tag) * 8 - HEADER_BITS;
    // The set's entropy, log2(1/rate) + log2(e) bits an item, is what a Golomb code comes near.
    double perItem = -Math.log(rate) / Math.log(2) + 1.4427;
    long items = (long) (dataBits / perItem);
    Checks.checkArgument(
        items >= 1,
        "a budget of %s characters holds no item at rate %s%s",
        maxChars,
        rate,
        tag > 0 ? " with a " + tag + "-byte tag" : "");
    SeenCacheCodec codec =
        new SeenCacheCodec((int) Math.min(items, MAX_CAPACITY), rate, maxChars, keys);
    // A cache never forgets its newest item, so the longest one-item value must fit as well.
    Checks.checkArgument(
        chars(codec.oneItemBits(), tag) <= maxChars,
        "a budget of %s characters holds no item at rate %s%s",
        maxChars,
        rate,
        tag > 0 ? " with a " + tag + "-byte tag" : "");
    return codec;
  }

  /** The longest a cache of one item encodes to: its fingerprint at the end of the range. */
  private long oneItemBits() {
    return HEADER_BITS
        + GolombBits.gammaBits(capacity)
        + GolombBits.codeLength(range - 1L, GolombBits.parameter(1, range));
  }

  private static void checkRate(double rate) {
    Checks.checkArgument(rate > 0 && rate <= 0.5, "rate (%s) must be in (0, 0.5]", rate);
  }

  /** The same sizes, signing values with {@code keys} and accepting only values they signed. */
  public SeenCacheCodec signedWith(SigningKeys keys) {
    return budget > 0 ? forBudget(budget, rate, keys) : new SeenCacheCodec(capacity, rate, 0, keys);
  }

  /** An empty cache of this codec's size. */
  public SeenCache newCache() {
    return new SeenCache(this);
  }

  /** The most items a cache holds. */
  public int capacity() {
    return capacity;
  }

  /** The false-positive rate a full cache stays within. */
  public double rate() {
    return rate;
  }

  /** The character budget, or 0 for a codec made for a count. */
  public int budget() {
    return budget;
  }

  /** The longest value {@link #decode} reads; longer ones are refused unread. */
  public int maxChars() {
    return maxChars;
  }

  /** Fingerprints are in [0, range): a non-member matches one of n of them with chance n/range. */
  int range() {
    return range;
  }

  int tagBytes() {
    return keys == null ? 0 : keys.tagBytes();
  }

  /** Base64url characters for {@code dataBits} of header and codes plus the tag. */
  static int chars(long dataBits, int tagBytes) {
    long bytes = (dataBits + 7) / 8 + tagBytes;
    return (int) ((bytes * 8 + 5) / 6);
  }

  /** The length of {@code cache}'s value, computed without encoding it. */
  int encodedChars(SeenCache cache) {
    return chars(encodedBits(cache), tagBytes());
  }

  private long encodedBits(SeenCache c) {
    if (c.older.size == 0) {
      return HEADER_BITS
          + GolombBits.gammaBits(capacity - c.newer.size + 1L)
          + c.newer.codeBits(range);
    }
    return HEADER_BITS
        + GolombBits.gammaBits(c.newer.size)
        + GolombBits.gammaBits(c.older.size)
        + c.newer.codeBits(range)
        + c.older.codeBits(range);
  }

  /**
   * An upper bound on what {@link #encode} writes for any cache of this codec: per generation of k
   * values with parameter M, the unary parts sum to at most k + range / M and the remainders to k
   * bits each beyond log2(range).
   */
  private long worstCaseBits() {
    int widthR = 64 - Long.numberOfLeadingZeros(range);
    long perGeneration =
        (long) capacity * (widthR + 2) + range / GolombBits.parameter(capacity, range) + 1;
    return HEADER_BITS + 2 * GolombBits.gammaBits(capacity) + 2 * perGeneration + 8;
  }

  /** The cookie value of {@code cache}, which must come from this codec. */
  public String encode(SeenCache cache) {
    Checks.checkArgument(cache.codec() == this, "the cache was made by another codec");
    int tag = tagBytes();
    GolombBits.Writer w = new GolombBits.Writer(2 * cache.size() + 8); // grows if it must
    w.bits(FormatFamily.SEEN_CACHE.id(), 8);
    w.bits(VERSION, 2);
    Generation newer = cache.newer;
    Generation older = cache.older;
    boolean two = older.size > 0;
    w.bit(two ? 1 : 0);
    w.bits(check, 5);
    if (two) {
      w.gamma(newer.size);
      w.gamma(older.size);
      w.golomb(newer.values, newer.size, newer.parameter(range));
      w.golomb(older.values, older.size, older.parameter(range));
    } else {
      w.gamma(capacity - newer.size + 1L);
      w.golomb(newer.values, newer.size, newer.parameter(range));
    }
    byte[] bytes = w.finish(tag);
    if (keys != null) {
      byte[] t = keys.sign(context, bytes, bytes.length - tag);
      System.arraycopy(t, 0, bytes, bytes.length - tag, tag);
    }
    return ENCODER.encodeToString(bytes);
  }

  /**
   * Reads a cookie value. Its length is checked before anything is decoded, and nothing allocated
   * is larger than {@link #maxChars()} or {@link #capacity()} allows, whatever the value claims.
   *
   * @throws SeenCacheException if the value is too long, not base64url, cut off, of another family,
   *     version or codec, wrongly signed, or breaks a rule of the format
   */
  public SeenCache decode(@Nullable String value) throws SeenCacheException {
    if (value == null || value.isEmpty()) {
      throw new SeenCacheException(Reason.TRUNCATED, "empty seen-cache value");
    }
    if (value.length() > maxChars) {
      throw new SeenCacheException(
          Reason.TOO_LARGE,
          "seen-cache value of " + value.length() + " characters, over the limit of " + maxChars);
    }
    byte[] bytes = Base64Url.decode(value);
    int tag = tagBytes();
    if (bytes.length < 2 + tag) {
      throw new SeenCacheException(
          Reason.TRUNCATED, "seen-cache value of " + bytes.length + " bytes is cut off");
    }
    int dataLength = bytes.length - tag;
    if (keys != null && !keys.verify(context, bytes, dataLength)) {
      throw new SeenCacheException(
          Reason.BAD_TAG,
          "seen-cache tag matches none of the keys (or the value was made for another size)");
    }
    int family = bytes[0] & 0xff;
    if (family != FormatFamily.SEEN_CACHE.id()) {
      throw new SeenCacheException(
          Reason.WRONG_FAMILY,
          "not a seen-cache: family id "
              + family
              + (family <= 1
                  ? " (a Guava BloomFilter's bytes? read them with GuavaBloomFilter)"
                  : ""));
    }
    int version = (bytes[1] & 0xff) >>> 6;
    if (version != VERSION) {
      throw new SeenCacheException(
          Reason.WRONG_VERSION,
          "seen-cache format version " + version + " (this build reads " + VERSION + ")");
    }
    if ((bytes[1] & 31) != check) {
      throw new SeenCacheException(
          Reason.WRONG_SPEC, "seen-cache made for another size or rate than " + describe());
    }
    boolean two = (bytes[1] & 0x20) != 0;
    GolombBits.Reader r = new GolombBits.Reader(bytes, 2, dataLength);
    SeenCache cache = new SeenCache(this);
    if (two) {
      long newer = r.gamma();
      long older = r.gamma();
      if (newer < 0 || older < 0) {
        throw new SeenCacheException(Reason.TRUNCATED, "seen-cache generation counts cut off");
      }
      if (newer + older > capacity) {
        throw malformed(newer + older + " items, over the capacity of " + capacity);
      }
      cache.newer =
          new Generation(
              readGeneration(r, (int) newer, GolombBits.parameter(newer, range)), (int) newer);
      cache.older =
          new Generation(
              readGeneration(r, (int) older, GolombBits.parameter(older, range)), (int) older);
      if (!r.atPadding()) {
        throw malformed("bits left after both generations");
      }
      if (!disjoint(cache.newer.values, (int) newer, cache.older.values, (int) older)) {
        throw malformed("an item in both generations");
      }
    } else {
      long distance = r.gamma();
      if (distance < 0) {
        throw new SeenCacheException(Reason.TRUNCATED, "seen-cache count cut off");
      }
      if (distance > capacity + 1L) {
        throw malformed(
            "a count below zero (capacity " + capacity + ", distance " + distance + ")");
      }
      int count = (int) (capacity + 1L - distance);
      cache.newer =
          new Generation(readGeneration(r, count, GolombBits.parameter(count, range)), count);
      if (!r.atPadding()) {
        throw malformed("bits left after the items");
      }
    }
    return cache;
  }

  private int[] readGeneration(GolombBits.Reader r, int count, int m) throws SeenCacheException {
    if (count > r.remaining()) {
      // Every code takes a bit at least: a count the bits cannot hold is refused unallocated.
      throw new SeenCacheException(Reason.TRUNCATED, "seen-cache of " + count + " items cut off");
    }
    int[] values = new int[count];
    long previous = -1;
    for (int i = 0; i < count; i++) {
      previous = next(r, previous, m);
      values[i] = (int) previous;
    }
    return values;
  }

  private long next(GolombBits.Reader r, long previous, int m) throws SeenCacheException {
    long v = r.golombNext(previous, m, range);
    if (v == -1) {
      throw new SeenCacheException(Reason.TRUNCATED, "seen-cache code cut off");
    }
    if (v == -2) {
      throw malformed("a fingerprint past the range " + range);
    }
    return v;
  }

  private static boolean disjoint(int[] a, int na, int[] b, int nb) {
    int i = 0;
    int j = 0;
    while (i < na && j < nb) {
      if (a[i] == b[j]) {
        return false;
      }
      if (a[i] < b[j]) {
        i++;
      } else {
        j++;
      }
    }
    return true;
  }

  private static SeenCacheException malformed(String why) {
    return new SeenCacheException(Reason.MALFORMED, "malformed seen-cache: " + why);
  }

  private String describe() {
    return (budget > 0 ? "a budget of " + budget + " characters" : "capacity " + capacity)
        + " at rate "
        + rate;
  }

  @Override
  public String toString() {
    return "SeenCacheCodec["
        + describe()
        + ", capacity "
        + capacity
        + (keys != null ? ", signed]" : "]");
  }
}
