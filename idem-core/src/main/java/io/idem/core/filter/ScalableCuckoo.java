package io.idem.core.filter;

/**
 * A growing cuckoo filter in either layout, item by item: RedisBloom's ({@link RedisBloomCuckoo})
 * or Idem's ({@link CuckooFilter}). What CF.* asks of a filter goes through here, so a handler has
 * one path whichever layout a key holds; only the dumps keep each layout's own bytes.
 *
 * <p>An item is known by a hash pair of the layout's own function ({@link #hash}; RedisBloom's uses
 * the first half only), which is also what a log keeps of a change.
 */
public interface ScalableCuckoo {

  /** What an insert did, as RedisBloom's CuckooInsertStatus. */
  enum Insert {
    INSERTED,
    /** An insert-if-absent found the item. */
    EXISTS,
    /** No room, and the filter does not grow (expansion 0). */
    NO_SPACE,
    /** No room, and the filter may not grow further (or the caller may not spend its memory). */
    TOO_LARGE
  }

  /** The item's hash pair, by this layout's function, into {@code pair[0]} and {@code pair[1]}. */
  void hash(byte[] item, long[] pair);

  /** False only if the item of this hash pair is certainly absent. */
  boolean mightContain(long a, long b);

  /** How many copies of the item's fingerprint the filter holds (CF.COUNT). */
  long count(long a, long b);

  /**
   * Inserts the item; nothing changes unless it answers {@link Insert#INSERTED}.
   *
   * @param unique insert only if the item may not be present (CF.ADDNX)
   * @param mayGrow whether a new sub-filter may be made (the caller can spend {@link
   *     #bytesOfNextFilter})
   */
  Insert insert(long a, long b, boolean unique, boolean mayGrow);

  /** Bytes the next sub-filter would take, or -1 if the filter cannot grow. */
  long bytesOfNextFilter();

  /** Whether the filter has as many sub-filters as an insert command accepts. */
  boolean atFilterLimit();

  /**
   * Removes one copy of the item, then compacts as RedisBloom's CF.DEL does once deletes pass a
   * tenth of the items in a grown filter.
   */
  boolean delete(long a, long b);

  /** CF.COMPACT: moves fingerprints into older sub-filters; whether anything may have changed. */
  boolean compact();

  long itemCount();

  long deleteCount();

  int filterCount();

  long bucketCount();

  int bucketSize();

  int maxIterations();

  int expansion();

  long sizeInBytes();

  /** As {@link #mightContain(long, long)}, for the item itself. */
  default boolean mightContainItem(byte[] item) {
    long[] pair = new long[2];
    hash(item, pair);
    return mightContain(pair[0], pair[1]);
  }
}
