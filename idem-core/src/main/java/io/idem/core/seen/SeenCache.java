package io.idem.core.seen;

import io.idem.core.hash.Hash128;
import java.util.Arrays;

/**
 * A seen-cache small enough for a cookie: the fingerprints of the items added, in [0, range) for a
 * range of capacity / rate, so an item never added matches one of n fingerprints with chance at
 * most n / range = rate. No false negatives for an item it still holds. Made and encoded by a
 * {@link SeenCacheCodec}; not thread-safe (one request owns one).
 *
 * <p><b>Ageing.</b> Items sit in two generations. Adds go to the newer one; when the cache is full
 * (its capacity, or for a budget codec its character budget), an item of the older generation is
 * forgotten, chosen at random among them; if there is none, the newer generation becomes the older
 * one first. So every item added since the last rotation is kept, what is forgotten is always older
 * than that, and the count and the encoded size never pass the limits. An item seen again is moved
 * to the newer generation.
 *
 * <p>Two generations cost about one bit an item more to encode than one (which generation each item
 * is in); a cache that has never rotated pays nothing for them.
 */
public final class SeenCache implements SeenItems {
  private final SeenCacheCodec codec;
  private final Hash128 hash = new Hash128();

  // Sorted distinct fingerprints; the codec reads and fills these directly.
  int[] newer = new int[8];
  int newerSize;
  int[] older = new int[0];
  int olderSize;

  SeenCache(SeenCacheCodec codec) {
    this.codec = codec;
  }

  SeenCacheCodec codec() {
    return codec;
  }

  private int fingerprint(byte[] item) {
    return (int) Math.unsignedMultiplyHigh(hash.hash(item).h1(), codec.range());
  }

  @Override
  public boolean mightContain(byte[] item) {
    int f = fingerprint(item);
    return Arrays.binarySearch(newer, 0, newerSize, f) >= 0
        || Arrays.binarySearch(older, 0, olderSize, f) >= 0;
  }

  @Override
  public boolean add(byte[] item) {
    int f = fingerprint(item);
    int at = Arrays.binarySearch(newer, 0, newerSize, f);
    if (at >= 0) {
      return false;
    }
    int old = Arrays.binarySearch(older, 0, olderSize, f);
    if (old >= 0) {
      removeOlder(old);
    }
    insertNewer(-at - 1, f);
    makeRoom(f);
    return old < 0;
  }

  /** Items held now, in both generations. */
  public int size() {
    return newerSize + olderSize;
  }

  /** Items in the older generation, the ones forgotten first. */
  public int olderSize() {
    return olderSize;
  }

  /**
   * The chance that an item never added is reported seen, now: size / range, at most the codec's
   * rate.
   */
  public double falsePositiveRate() {
    return (double) size() / codec.range();
  }

  /** Characters of this cache's cookie value, computed without encoding it. */
  public int encodedLength() {
    return codec.encodedChars(this);
  }

  /** This cache's cookie value; the same as {@code codec.encode(this)}. */
  public String encode() {
    return codec.encode(this);
  }

  private void insertNewer(int index, int f) {
    if (newerSize == newer.length) {
      newer = Arrays.copyOf(newer, Math.max(8, newerSize * 2));
    }
    System.arraycopy(newer, index, newer, index + 1, newerSize - index);
    newer[index] = f;
    newerSize++;
  }

  private void removeOlder(int index) {
    System.arraycopy(older, index + 1, older, index, olderSize - index - 1);
    olderSize--;
  }

  /** Forgets older items, rotating when there are none, until the cache is within its limits. */
  private void makeRoom(int added) {
    int budget = codec.budget();
    while (size() > codec.capacity() || (budget > 0 && encodedLength() > budget)) {
      if (olderSize == 0) {
        if (newerSize == 1) {
          return; // one item always fits: the codec refuses budgets that hold none
        }
        rotate(added);
      } else {
        // Random among the older ones, from the item just added (repeatable for tests).
        long mix = (added + olderSize) * 0x9E3779B97F4A7C15L;
        removeOlder((int) Long.remainderUnsigned(mix ^ (mix >>> 32), olderSize));
      }
    }
  }

  /** The newer generation, less the item just added, becomes the older one. */
  private void rotate(int added) {
    int[] previous = newer;
    int count = newerSize;
    int at = Arrays.binarySearch(previous, 0, count, added);
    System.arraycopy(previous, at + 1, previous, at, count - at - 1);
    older = previous;
    olderSize = count - 1;
    newer = new int[8];
    newer[0] = added;
    newerSize = 1;
  }

  @Override
  public String toString() {
    return "SeenCache[" + size() + " items, " + olderSize + " older, " + codec + "]";
  }
}
