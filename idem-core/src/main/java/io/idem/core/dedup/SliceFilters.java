package io.idem.core.dedup;

import io.idem.core.dedup.DedupTable.Mode;
import io.idem.core.dedup.DedupTable.Params;
import io.idem.core.filter.BloomFilter;
import io.idem.core.filter.CuckooFilter;
import io.idem.core.filter.MembershipFilter;
import io.idem.core.filter.ScalableBloomFilter;

/**
 * The filter each time slice of an EXACT or FILTER table keeps, and what it costs: one place, so
 * that the table, its snapshot and {@code idem size} agree.
 */
final class SliceFilters {

  /** The error rate of the in-memory index of an exact table's slice. */
  static final double EXACT_INDEX_ERROR = 0.01;

  /**
   * FILTER slices' cuckoo filters: 4 fingerprints a bucket filled to 94 % with 500 kicks, the
   * densest of the usual shapes; a slice past its share grows by a table of the same size, so the
   * rate stays within the table's while the window holds at most its capacity, however the claims
   * spread over the slices (a lookup's chance of a false match grows with the fingerprints it
   * compares, which is the claims held over the buckets of one table).
   */
  static final int CUCKOO_BUCKET_SIZE = 4;

  static final int CUCKOO_KICKS = 500;
  static final int CUCKOO_EXPANSION = 1;

  private SliceFilters() {}

  /** A new slice's filter. */
  static MembershipFilter create(Params p, BloomFilter.Storage storage) {
    if (cuckoo(p)) {
      return CuckooFilter.create(
          sliceCapacity(p), sliceErrorRate(p), CUCKOO_BUCKET_SIZE, CUCKOO_KICKS, CUCKOO_EXPANSION);
    }
    return ScalableBloomFilter.create(
        sliceCapacity(p), sliceErrorRate(p), ScalableBloomFilter.DEFAULT_EXPANSION, storage);
  }

  /**
   * Bytes that adding to this filter would allocate now: a Bloom filter's next layer, or
   * Long.MAX_VALUE if no array holds it. A cuckoo filter knows only when an insert fails.
   */
  static long growthBytes(MembershipFilter filter) {
    if (!(filter instanceof ScalableBloomFilter f) || !f.layer(f.layerCount() - 1).isFull()) {
      return 0;
    }
    try {
      return ScalableBloomFilter.layerSizing(
              f.initialCapacity(), f.configuredErrorRate(), f.expansion(), true, f.layerCount())
          .bytes();
    } catch (IllegalArgumentException e) {
      return Long.MAX_VALUE; // larger than any array
    }
  }

  /** The bytes of a new slice's filter, or Long.MAX_VALUE if no array holds it. */
  static long firstBytes(Params p) {
    return cuckoo(p) ? cuckooBytes(p) : bloomBytes(p);
  }

  /**
   * Whether a FILTER table's slices are cuckoo filters: when one is no larger than the Bloom filter
   * for the same share of claims and rate. Bloom is kept where it is smaller (rates near 0.5) and
   * for rates whose fingerprints would pass 32 bits.
   */
  static boolean cuckoo(Params p) {
    if (p.mode() != Mode.FILTER) {
      return false;
    }
    long cuckoo = cuckooBytes(p);
    return cuckoo != Long.MAX_VALUE && cuckoo <= bloomBytes(p);
  }

  private static long bloomBytes(Params p) {
    try {
      return ScalableBloomFilter.layerSizing(
              sliceCapacity(p), sliceErrorRate(p), ScalableBloomFilter.DEFAULT_EXPANSION, true, 0)
          .bytes();
    } catch (IllegalArgumentException e) {
      return Long.MAX_VALUE;
    }
  }

  private static long cuckooBytes(Params p) {
    try {
      return CuckooFilter.sizing(
              sliceCapacity(p), sliceErrorRate(p), CUCKOO_BUCKET_SIZE, CUCKOO_KICKS)
          .bytes();
    } catch (IllegalArgumentException e) {
      return Long.MAX_VALUE;
    }
  }

  /** Expected claims per slice: the window's capacity spread over its slices. */
  static long sliceCapacity(Params p) {
    return Math.max(1, (p.capacity() + p.slices() - 1) / p.slices());
  }

  /**
   * A slice filter's rate. FILTER: a claim is checked against every live slice, so each gets an
   * equal share of the table's rate and the union stays within it. EXACT: the index's rate, which
   * only costs reads.
   */
  static double sliceErrorRate(Params p) {
    return p.mode() == Mode.EXACT ? EXACT_INDEX_ERROR : p.errorRate() / TimeSlices.maxLive(p);
  }
}
