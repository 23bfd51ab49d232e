package io.idem.bench.claims;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.HexFormat;

/**
 * Checks the duplicates a side reports against the workload's: each reported id must be one that
 * was delivered twice, reported once, with the owner of either delivery; at the end the count must
 * be exact. One {@link Tally} per connection, so readers share nothing while they run.
 */
public final class DuplicateCheck {
  private final Workload workload;
  private final int[] slots; // open addressing: duplicate index + 1, 0 = empty
  private final int mask;

  public DuplicateCheck(Workload workload) {
    this.workload = workload;
    int capacity = Integer.highestOneBit(Math.max(2, workload.duplicates) * 2 - 1) << 1;
    this.slots = new int[capacity];
    this.mask = capacity - 1;
    for (int d = 0; d < workload.duplicates; d++) {
      int at = workload.duplicatePositions[d];
      int slot = (int) workload.idHash(at) & mask;
      while (slots[slot] != 0) {
        slot = (slot + 1) & mask;
      }
      slots[slot] = d + 1;
    }
  }

  /** The duplicates one connection saw. */
  public final class Tally {
    private final BitSet found = new BitSet(workload.duplicates);
    private long holderOwners;
    private long claimantOwners;

    /** Records one reported duplicate: a 16-byte id and an 8-byte owner. */
    public void report(Resp id, Resp owner) throws IOException {
      if (!(id instanceof Resp.Bulk(byte[] idBytes)) || idBytes.length != 16) {
        throw new IOException("a duplicate's id is " + Resp.describe(id) + ", not 16 bytes");
      }
      if (!(owner instanceof Resp.Bulk(byte[] ownerBytes)) || ownerBytes.length != 8) {
        throw new IOException("a duplicate's owner is " + Resp.describe(owner) + ", not 8 bytes");
      }
      ByteBuffer b = ByteBuffer.wrap(idBytes);
      long hi = b.getLong();
      long lo = b.getLong();
      long reportedOwner = ByteBuffer.wrap(ownerBytes).getLong();
      int d = find(hi, lo);
      if (d < 0) {
        throw new IOException(
            "reported id " + HexFormat.of().formatHex(idBytes) + " as a duplicate; it is not one");
      }
      if (found.get(d)) {
        throw new IOException("reported id " + HexFormat.of().formatHex(idBytes) + " twice");
      }
      found.set(d);
      if (reportedOwner == workload.originalOwner[d]) {
        holderOwners++;
      } else if (reportedOwner == workload.owner[workload.duplicatePositions[d]]) {
        claimantOwners++;
      } else {
        throw new IOException(
            String.format(
                "reported id %s with owner %016x; its deliveries are owned by %016x and %016x",
                HexFormat.of().formatHex(idBytes),
                reportedOwner,
                workload.originalOwner[d],
                workload.owner[workload.duplicatePositions[d]]));
      }
    }
  }

  public Tally tally() {
    return new Tally();
  }

  /** The outcome of a whole run: fails unless the tallies found every duplicate exactly once. */
  public Result total(Iterable<Tally> tallies) throws IOException {
    BitSet all = new BitSet(workload.duplicates);
    long reported = 0;
    long holders = 0;
    long claimants = 0;
    for (Tally t : tallies) {
      if (all.intersects(t.found)) {
        throw new IOException("two connections reported the same duplicate");
      }
      all.or(t.found);
      reported += t.found.cardinality();
      holders += t.holderOwners;
      claimants += t.claimantOwners;
    }
    if (reported != workload.duplicates) {
      throw new IOException(
          "found " + reported + " duplicates; the workload has exactly " + workload.duplicates);
    }
    return new Result(reported, holders, claimants);
  }

  /** Duplicates found, and how many came with the original's owner or with their own. */
  public record Result(long found, long withHolderOwner, long withOwnOwner) {}

  private int find(long hi, long lo) {
    long h = Workload.mix(hi ^ Long.rotateLeft(lo, 29));
    int slot = (int) h & mask;
    while (true) {
      int v = slots[slot];
      if (v == 0) {
        return -1;
      }
      int at = workload.duplicatePositions[v - 1];
      if (workload.idHi[at] == hi && workload.idLo[at] == lo) {
        return v - 1;
      }
      slot = (slot + 1) & mask;
    }
  }
}
