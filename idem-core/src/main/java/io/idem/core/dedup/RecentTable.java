package io.idem.core.dedup;

import io.idem.core.filter.MembershipFilter;
import io.idem.core.hash.Hash128;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.LongPredicate;
import org.jspecify.annotations.Nullable;

/**
 * RECENT mode: a direct-mapped table of slots, each holding one claim's 128-bit id digest, a 32-bit
 * hash of its owner and its slice: {@link io.idem.core.filter.RecentSet}'s design with an owner and
 * a time. No false positive short of a digest collision; a later claim landing in the same slot
 * forgets the earlier one.
 */
public final class RecentTable extends DedupTable {

  /** Bytes a slot takes: three longs. */
  static final long SLOT_BYTES = 24;

  /** Bytes a new slice takes: its entry in the live map. */
  private static final long SLICE_BYTES = 48;

  /** Slot i is h1 at 3i, h2 at 3i + 1, and owner hash << 32 | slice - base at 3i + 2. */
  private final long[] slots;

  RecentTable(Params params, long createdSlice, int bucketBits) {
    super(params, createdSlice, bucketBits);
    this.slots = new long[Math.toIntExact(params.slots() * 3)];
  }

  /** The slots, as a snapshot writes and reads them. */
  long[] slots() {
    return slots;
  }

  @Override
  boolean batches() {
    return false;
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
    int ownerHash = ownerHash(owner);
    int slot = slot(h1);
    if (holds(slot, h1, h2)) {
      long word = slots[slot * 3 + 2];
      if ((int) (word >>> 32) == ownerHash) {
        return new Claimed(Outcome.RETRY, owner);
      }
      slices.caught(slices.base() + (word & 0xffff_ffffL)); // the slot names its claim's slice
      return new Claimed(Outcome.DUPLICATE, null);
    }
    ensureRoom(slice, fits);
    put(slot, h1, h2, ownerHash, slice);
    payload.putLong(slice).putLong(h1).putLong(h2).putInt(ownerHash);
    return new Claimed(Outcome.NEW, owner);
  }

  @Override
  int payloadBound(byte[][] ids, byte[][] owners) {
    return ids.length * 28;
  }

  @Override
  long growthBytes(long slice) {
    return slices.find(slice) == null ? SLICE_BYTES : 0;
  }

  @Override
  public boolean release(ClaimStore store, byte[] id, byte[] owner, long now) {
    advance(store, now);
    Hash128 h = new Hash128().hash(id);
    int slot = slot(h.h1());
    if (!holds(slot, h.h1(), h.h2()) || (int) (slots[slot * 3 + 2] >>> 32) != ownerHash(owner)) {
      return false;
    }
    clear(slot);
    store.record(DedupOps.RELEASE, DedupOps.releaseRecent(h.h1(), h.h2()), List.of());
    return true;
  }

  @Override
  public boolean contains(ClaimStore store, byte[] id, long now) {
    Hash128 h = new Hash128().hash(id);
    int slot = slot(h.h1());
    return holds(slot, h.h1(), h.h2())
        && slices.base() + (slots[slot * 3 + 2] & 0xffff_ffffL) >= liveFrom(now);
  }

  @Override
  void replayClaim(long slice, ByteBuffer b) {
    long h1 = b.getLong();
    long h2 = b.getLong();
    put(slot(h1), h1, h2, b.getInt(), slice);
  }

  @Override
  void replayRelease(ByteBuffer b) {
    long h1 = b.getLong();
    long h2 = b.getLong();
    int slot = slot(h1);
    if (holds(slot, h1, h2)) {
      clear(slot);
    }
  }

  @Override
  @Nullable MembershipFilter newFilter() {
    return null;
  }

  @Override
  public long memoryBytes() {
    return super.memoryBytes() + slots.length * 8L;
  }

  private int slot(long h1) {
    return slot(h1, params.slots());
  }

  /**
   * The slot of a RECENT table of {@code slots} slots that a claim whose id hashes to {@code h1}
   * takes. Public so that a test can choose ids that never share a slot, and so expect every claim
   * to be remembered.
   */
  public static int slot(long h1, long slots) {
    return (int) Math.multiplyHigh(h1 >>> 1, slots << 1);
  }

  /** Whether the slot holds this digest in a live slice. */
  private boolean holds(int slot, long h1, long h2) {
    int i = slot * 3;
    if (slots[i] != h1 || slots[i + 1] != h2 || (h1 == 0 && h2 == 0)) {
      return false;
    }
    return slices.base() + (slots[i + 2] & 0xffff_ffffL) >= slices.floor();
  }

  private void put(int slot, long h1, long h2, int ownerHash, long slice) {
    int i = slot * 3;
    if (slots[i] != 0 || slots[i + 1] != 0) {
      slices.forget(slices.base() + (slots[i + 2] & 0xffff_ffffL)); // its slice holds one fewer
    }
    if (h1 == 0 && h2 == 0) {
      h2 = 1; // (0, 0) marks a free slot
    }
    slots[i] = h1;
    slots[i + 1] = h2;
    slots[i + 2] = (long) ownerHash << 32 | (slice - slices.base());
    addToSlice(slice, h1, h2, NO_LIMIT);
  }

  private void clear(int slot) {
    int i = slot * 3;
    slices.forget(slices.base() + (slots[i + 2] & 0xffff_ffffL));
    slots[i] = 0;
    slots[i + 1] = 0;
    slots[i + 2] = 0;
  }

  static int ownerHash(byte[] owner) {
    return (int) (new Hash128().hash(owner).h1() >>> 32);
  }
}
