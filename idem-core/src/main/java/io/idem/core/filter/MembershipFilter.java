package io.idem.core.filter;

import io.idem.core.format.FormatFamily;
import io.idem.core.hash.Hash128;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A set of items, each known by its 128-bit hash ({@link Hash128}), that answers "might this item
 * be present?". What a filter may get wrong is part of its contract: a Bloom or cuckoo filter may
 * answer yes for an absent item (a false positive) but never no for an added one; a {@link
 * RecentSet} may forget an item but never answers yes for one it was not given.
 *
 * <p>Optional operations are announced by {@link #supports}; calling one that is not supported
 * throws {@link UnsupportedOperationException}.
 */
public interface MembershipFilter {

  /** Operations only some filters support. */
  enum Capability {
    /** {@link #remove}: forget one item. */
    REMOVE,
    /** {@link #count}: how many times an item's fingerprint is present. */
    COUNT,
    /** {@link #mergeFrom}: take the union with a filter of the same shape. */
    MERGE
  }

  /**
   * Adds the item if it is not already (maybe) present.
   *
   * @return true if the item was certainly new before this call; false if it may have been present
   * @throws FilterFullException if the filter can take no more items
   */
  boolean add(long h1, long h2);

  /** Returns false only if the item is certainly absent. */
  boolean mightContain(long h1, long h2);

  default boolean add(Hash128 hash) {
    return add(hash.h1(), hash.h2());
  }

  default boolean mightContain(Hash128 hash) {
    return mightContain(hash.h1(), hash.h2());
  }

  /** Whether this filter supports the optional operation. */
  boolean supports(Capability capability);

  /**
   * Removes one copy of the item. Supported by {@link Capability#REMOVE}.
   *
   * @return true if something was removed
   */
  default boolean remove(long h1, long h2) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not remove");
  }

  /**
   * How many copies of the item's fingerprint are present. Supported by {@link Capability#COUNT}.
   */
  default long count(long h1, long h2) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not count");
  }

  /**
   * Adds every item of {@code other}, which must have the same shape. Supported by {@link
   * Capability#MERGE}.
   *
   * @throws IllegalArgumentException if the shapes differ
   */
  default void mergeFrom(MembershipFilter other) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not merge");
  }

  /**
   * The number of items the filter was sized for: a scalable filter sums its layers; a cuckoo
   * filter reports what it was created for, not the sub-tables it grew; a RecentSet its slots.
   */
  long capacity();

  /**
   * Items held: for Bloom filters the adds that were certainly new; for a cuckoo filter the
   * fingerprints stored (copies included); for a RecentSet the occupied slots.
   */
  long itemCount();

  /** Memory the filter's tables occupy, in bytes; the figure {@code MEMORY USAGE} reports. */
  long sizeInBytes();

  /** The false-positive rate the filter was configured for, at capacity. */
  double configuredErrorRate();

  /** The false-positive rate expected now, given the items it holds. */
  double estimatedFalsePositiveRate();

  /** The persisted family, written at byte 4 of {@link #writeTo}. */
  FormatFamily family();

  /** Writes the filter in its versioned binary format (see the byte table beside each writer). */
  void writeTo(OutputStream out) throws IOException;
}
