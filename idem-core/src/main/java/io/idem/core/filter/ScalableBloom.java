package io.idem.core.filter;

/**
 * A scalable Bloom filter in either layout, item by item: RedisBloom's chain of classic filters
 * ({@link RedisBloomChain}) or Idem's blocked layers ({@link ScalableBloomFilter}). What BF.* asks
 * of a filter goes through here, so a handler has one path whichever layout a key holds.
 *
 * <p>An item is known by a pair of 64-bit hashes of the layout's own function ({@link #hash}); the
 * pair is also what a log keeps of an add, so a replay needs no items. The answers are the layout's
 * own: no false negatives, and the false-positive rate it was sized for.
 */
public interface ScalableBloom {

  /** The item's hash pair, by this layout's function, into {@code pair[0]} and {@code pair[1]}. */
  void hash(byte[] item, long[] pair);

  /** False only if the item of this hash pair was certainly never added. */
  boolean mightContain(long a, long b);

  /**
   * {@link #mightContain} for the first {@code n} pairs {@code (a[i], b[i])}, into {@code
   * found[i]}: the same answers, with the items' memory reads overlapped.
   */
  void mightContainAll(long[] a, long[] b, int n, boolean[] found);

  /**
   * Adds the item of this hash pair unless the filter may hold it already.
   *
   * @return true if the item was certainly new
   * @throws FilterFullException if it is new and the filter cannot take it: non-scaling and full,
   *     or at its limit of layers
   */
  boolean add(long a, long b);

  /** Whether a new item would need a new layer first (the only add that allocates). */
  boolean needsNewLayer();

  /**
   * Bytes the next layer would take, for a memory check before an add that needs it: 0 if an add
   * needs none, {@link Long#MAX_VALUE} if no array can hold it (the add would refuse it as well).
   */
  long bytesOfNextLayer();

  boolean isScaling();

  /** The items the filter is sized for, summed over its layers. */
  long capacity();

  /** The items added: those that were certainly new. */
  long itemCount();

  /** Bytes the filter holds. */
  long sizeInBytes();

  int layerCount();

  /** How much larger each new layer is than the one before. */
  int expansion();

  /** The false-positive rate asked for at creation. */
  double configuredErrorRate();

  /** The false-positive rate the filter has now, from its layers' fill. */
  double estimatedFalsePositiveRate();

  /** As {@link #mightContain(long, long)}, for the item itself. */
  default boolean mightContainItem(byte[] item) {
    long[] pair = new long[2];
    hash(item, pair);
    return mightContain(pair[0], pair[1]);
  }
}
