package io.idem.core.dedup;

import io.idem.core.filter.BloomFilter;
import io.idem.core.filter.MembershipFilter;
import io.idem.core.hash.Hash128;
import java.nio.ByteBuffer;
import java.util.function.LongPredicate;

/**
 * FILTER mode: each live slice is a filter at the table's rate divided among the live slices, a
 * cuckoo filter or a scalable Bloom filter, whichever is smaller ({@link SliceFilters#cuckoo}). No
 * owners: a repeated id is a duplicate, never a retry, and a claim cannot be released.
 */
public final class FilterTable extends DedupTable {

  private final BloomFilter.Storage storage;

  FilterTable(Params params, long createdSlice, int bucketBits, BloomFilter.Storage storage) {
    super(params, createdSlice, bucketBits);
    this.storage = storage;
  }

  @Override
  Claimed claimOne(
      ClaimStore store,
      Ids hashed,
      int i,
      byte[] owner,
      long slice,
      boolean surelyNew,
      ByteBuffer payload,
      long now,
      LongPredicate fits) {
    long h1 = hashed.h1()[i];
    long h2 = hashed.h2()[i];
    if (!surelyNew) {
      // An id is added to one slice only, so the filter that answers is the slice it was seen in
      // (or a false positive, which the answer is then too).
      TimeSlices.Slice seen = slices.holding(h1, h2, Long.MIN_VALUE);
      if (seen != null) {
        seen.duplicates++;
        return new Claimed(Outcome.DUPLICATE, null);
      }
    }
    ensureRoom(slice, fits);
    addToSlice(slice, h1, h2, fits);
    payload.putLong(slice).putLong(h1).putLong(h2);
    return new Claimed(Outcome.NEW, null);
  }

  @Override
  int payloadBound(byte[][] ids, byte[][] owners) {
    return ids.length * 24;
  }

  @Override
  public boolean releases() {
    return false;
  }

  @Override
  public boolean release(ClaimStore store, byte[] id, byte[] owner, long now) {
    throw new UnsupportedOperationException("a FILTER table keeps no owners");
  }

  @Override
  public boolean contains(ClaimStore store, byte[] id, long now) {
    Hash128 h = new Hash128().hash(id);
    return slices.mightHold(h.h1(), h.h2(), liveFrom(now));
  }

  @Override
  void replayClaim(long slice, ByteBuffer b) {
    addToSlice(slice, b.getLong(), b.getLong(), NO_LIMIT);
  }

  @Override
  void replayRelease(ByteBuffer b) {
    throw new IllegalArgumentException("a FILTER table records no release");
  }

  @Override
  MembershipFilter newFilter() {
    return SliceFilters.create(params, storage);
  }

  @Override
  public double estimatedFalsePositiveRate() {
    double none = 1;
    for (TimeSlices.Slice s : slices.live().values()) {
      MembershipFilter f = s.filter();
      if (f != null) {
        none *= 1 - f.estimatedFalsePositiveRate();
      }
    }
    return 1 - none;
  }
}
