package io.idem.core.seen;

import io.idem.core.hash.Hash128;

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

  // The codec reads and fills these directly.
  Generation newer = Generation.empty();
  Generation older = new Generation(new int[0], 0);

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
    return newer.indexOf(f) >= 0 || older.indexOf(f) >= 0;
  }

  @Override
  public boolean add(byte[] item) {
    int f = fingerprint(item);
    int at = newer.indexOf(f);
    if (at >= 0) {
      return false;
    }
    int old = older.indexOf(f);
    if (old >= 0) {
      older.remove(old);
    }
    newer.insert(-at - 1, f);
    makeRoom(f);
    return old < 0;
  }

  /** Items held now, in both generations. */
  public int size() {
    return newer.size + older.size;
  }

  /** Items in the older generation, the ones forgotten first. */
  public int olderSize() {
    return older.size;
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

  /** Forgets older items, rotating when there are none, until the cache is within its limits. */
  private void makeRoom(int added) {
    int budget = codec.budget();
    while (size() > codec.capacity() || (budget > 0 && encodedLength() > budget)) {
      if (older.size == 0) {
        if (newer.size == 1) {
          return; // one item always fits: the codec refuses budgets that hold none
        }
        rotate(added);
      } else {
        // Random among the older ones, from the item just added (repeatable for tests).
        long mix = (added + older.size) * 0x9E3779B97F4A7C15L;
        older.remove((int) Long.remainderUnsigned(mix ^ (mix >>> 32), older.size));
      }
    }
  }

  /** The newer generation, less the item just added, becomes the older one. */
  private void rotate(int added) {
    Generation previous = newer;
    previous.remove(previous.indexOf(added));
    older = previous;
    newer = Generation.empty();
    newer.insert(0, added);
  }

  @Override
  public String toString() {
    return "SeenCache[" + size() + " items, " + older.size + " older, " + codec + "]";
  }
}
