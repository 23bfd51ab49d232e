package io.idem.core.dedup;

import io.idem.core.filter.BloomFilter;
import io.idem.core.filter.CuckooFilter;
import io.idem.core.filter.FilterFullException;
import io.idem.core.filter.MembershipFilter;
import io.idem.core.filter.ScalableBloomFilter;
import io.idem.core.hash.Hash128;
import io.idem.core.store.RowChange;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NavigableMap;
import java.util.function.LongPredicate;
import org.jspecify.annotations.Nullable;

/**
 * A dedup table: who claimed which id, over a sliding window of time ({@link TimeSlices}), in one
 * of three modes, one class each: {@link ExactTable} (every id and owner, in rows of a {@link
 * ClaimStore}), {@link FilterTable} (a filter a slice, no owners) and {@link RecentTable} (a slot
 * table that forgets). A claim is checked against every live slice, whatever its event time.
 *
 * <p>Every change is recorded in the store as an operation of {@link DedupOps}, after it is
 * applied: replaying the operations on a table made from the same recipe gives the same table.
 *
 * <p>Not thread-safe: the caller serializes every call on one table.
 */
public abstract sealed class DedupTable permits ExactTable, FilterTable, RecentTable {

  public enum Mode {
    EXACT,
    FILTER,
    RECENT
  }

  public enum Outcome {
    /** First claim: the id is now the caller's. */
    NEW,
    /** The caller already owns the id: a replay, to process again. */
    RETRY,
    /** Someone else owns the id (or, in filter mode, it was seen). */
    DUPLICATE
  }

  /** A claim's outcome and the owner now holding the id, if the mode keeps owners. */
  public record Claimed(Outcome outcome, byte @Nullable [] owner) {}

  /** What a table is created with; its recipe on disk. */
  public record Params(
      Mode mode, long windowMillis, int slices, long capacity, double errorRate, long slots) {}

  /**
   * Ids and their hashes, computed before the table's lock is taken: two callers claiming into one
   * table hash in parallel.
   */
  public record Ids(byte[][] ids, long[] h1, long[] h2) {
    public static Ids of(byte[]... ids) {
      long[] h1 = new long[ids.length];
      long[] h2 = new long[ids.length];
      Hash128 h = new Hash128();
      for (int i = 0; i < ids.length; i++) {
        h.hash(ids[i]);
        h1[i] = h.h1();
        h2[i] = h.h2();
      }
      return new Ids(ids, h1, h2);
    }
  }

  /** The error rate of the in-memory index of an exact table's slice. */
  public static final double EXACT_INDEX_ERROR = SliceFilters.EXACT_INDEX_ERROR;

  /** No memory check: replay allocates what the recorded claim did. */
  static final LongPredicate NO_LIMIT = bytes -> true;

  final Params params;
  final TimeSlices slices;

  /** EXACT: a slice's rows are its claims by this many top bits of their hash; in every recipe. */
  final int bucketBits;

  /**
   * Claims answered duplicate since the table was loaded, those found in slices since dropped
   * included. Counted as claims are answered and never recorded, so snapshots and the log keep
   * their formats and a restart starts it at 0; a cluster node applies a record by running its
   * command, so replicas count alike.
   */
  private long duplicates;

  DedupTable(Params params, long createdSlice, int bucketBits) {
    this.params = params;
    this.slices = new TimeSlices(params, createdSlice);
    this.bucketBits = bucketBits;
  }

  /** An empty table created in {@code createdSlice} (see {@link TimeSlices#createdAt}). */
  public static DedupTable create(Params p, long createdSlice) {
    return create(p, createdSlice, BloomFilter.Storage.HEAP);
  }

  /** An empty table, its Bloom filters kept in {@code storage}. */
  public static DedupTable create(Params p, long createdSlice, BloomFilter.Storage storage) {
    return create(p, createdSlice, ExactTable.rowBucketBits(p), storage);
  }

  /**
   * An empty table, its EXACT rows packed by {@code bucketBits}, its Bloom filters kept in {@code
   * storage}. Parameters must pass {@link DedupLimits#check}.
   */
  public static DedupTable create(
      Params p, long createdSlice, int bucketBits, BloomFilter.Storage storage) {
    return switch (p.mode()) {
      case EXACT -> new ExactTable(p, createdSlice, bucketBits, storage);
      case FILTER -> new FilterTable(p, createdSlice, bucketBits, storage);
      case RECENT -> new RecentTable(p, createdSlice, bucketBits);
    };
  }

  public final Params params() {
    return params;
  }

  public final TimeSlices slices() {
    return slices;
  }

  /** EXACT: the row bucket bits; every mode keeps the recipe's byte. */
  public final int bucketBits() {
    return bucketBits;
  }

  // ---- time

  /** Whether slices fell out of the window by {@code now}: what {@link #advance} would drop. */
  public final boolean advanceDue(long now) {
    return slices.advanceDue(now);
  }

  /** Drops the slices that fell out of the window by {@code now}, recording the drop. */
  public final void advance(ClaimStore store, long now) {
    long to = slices.floorAt(now);
    if (to <= slices.floor()) {
      return;
    }
    slices.dropBelow(to);
    store.record(DedupOps.ADVANCE, DedupOps.advance(to), droppedRows(to));
  }

  /** The row changes that drop the slices below {@code to}: EXACT's range delete. */
  List<RowChange> droppedRows(long to) {
    return List.of();
  }

  // ---- claims

  /**
   * Claims each (id, owner) at its event time; records what changed as one operation.
   *
   * @param times event times in millis, one per id
   * @param fits whether the caller may spend so many bytes more (a new slice, a filter's layer)
   * @throws TableFullException if a claim needs memory it may not take; the claims before it are
   *     made and recorded
   * @throws CorruptRowsException if a row read is not a row of this table's
   */
  public final List<Claimed> claim(
      ClaimStore store, Ids hashed, byte[][] owners, long[] times, long now, LongPredicate fits) {
    advance(store, now);
    byte[][] ids = hashed.ids();
    int n = ids.length;
    List<Claimed> out = new ArrayList<>(n);
    ByteBuffer payload = ByteBuffer.allocate(payloadBound(ids, owners));
    // A batch asks every slice filter about all its ids first: those lookups wait for memory
    // together, and an id no filter may hold is new unless the batch itself holds it already.
    ClaimBatch batch = batches() && n >= ClaimBatch.MIN ? new ClaimBatch(hashed) : null;
    if (batch != null) {
      for (TimeSlices.Slice s : slices.live().values()) {
        batch.ask(s.filter());
      }
      asked(batch);
    }
    // What was applied is recorded, also when a claim fails half-way: memory and record stay in
    // step, and a caller that retries sees its earlier pairs as retries.
    try {
      for (int i = 0; i < n; i++) {
        long slice = slices.claimSlice(times[i], now);
        int earlier = batch == null || batch.maybe[i] ? -1 : batch.earlier(i, ids);
        Claimed c;
        if (earlier >= 0) {
          c = again(out.get(earlier), owners[i]);
          if (c.outcome() == Outcome.DUPLICATE) {
            // The earlier claim went to the slice of its own event time.
            slices.caught(slices.claimSlice(times[earlier], now));
          }
        } else {
          boolean surelyNew = batch != null && !batch.maybe[i];
          c = claimOne(store, hashed, i, owners[i], slice, surelyNew, payload, now, fits);
        }
        if (c.outcome() == Outcome.DUPLICATE) {
          duplicates++;
        }
        out.add(c);
        if (batch != null && c.outcome() == Outcome.NEW) {
          batch.claimed(i);
        }
      }
    } finally {
      if (payload.position() > 0) {
        store.record(DedupOps.CLAIM, Arrays.copyOf(payload.array(), payload.position()), List.of());
      }
    }
    return out;
  }

  /** A claim of an id this same call claimed new before. */
  private static Claimed again(Claimed first, byte[] owner) {
    byte[] holder = first.owner();
    if (holder == null) {
      return new Claimed(Outcome.DUPLICATE, null);
    }
    return new Claimed(Arrays.equals(holder, owner) ? Outcome.RETRY : Outcome.DUPLICATE, holder);
  }

  /** Whether a call's ids are asked of the slice filters together. */
  boolean batches() {
    return true;
  }

  /** The batch's ids were asked of every slice filter. */
  void asked(ClaimBatch batch) {}

  /**
   * Claims id i of the call into {@code slice}, appending what replay needs to {@code payload} if
   * it is new. A duplicate is counted in the slice found holding the id ({@link
   * TimeSlices#caught}); the table's total is counted by the caller.
   *
   * @param surelyNew the slice filters hold the id nowhere, nor does the call before it
   */
  abstract Claimed claimOne(
      ClaimStore store,
      Ids hashed,
      int i,
      byte[] owner,
      long slice,
      boolean surelyNew,
      ByteBuffer payload,
      long now,
      LongPredicate fits);

  /** The most bytes a CLAIM operation's payload takes for these claims. */
  abstract int payloadBound(byte[][] ids, byte[][] owners);

  /** Whether the table keeps owners, so that a claim can be released. */
  public boolean releases() {
    return true;
  }

  /**
   * Releases the id if {@code owner} holds it: true if released, false if not held by that owner.
   *
   * @throws UnsupportedOperationException in filter mode, which keeps no owners
   */
  public abstract boolean release(ClaimStore store, byte[] id, byte[] owner, long now);

  /** Whether the id is claimed in a live slice (in filter mode: may be). Changes nothing. */
  public abstract boolean contains(ClaimStore store, byte[] id, long now);

  /** The slice lowest in the window at {@code now}, or the floor if the window has not moved. */
  final long liveFrom(long now) {
    return Math.max(slices.floor(), slices.floorAt(now));
  }

  // ---- replay (DedupOps)

  /** Replays one recorded claim in {@code slice}, reading the rest of it from {@code b}. */
  abstract void replayClaim(long slice, ByteBuffer b);

  /** Replays a RELEASE operation. */
  abstract void replayRelease(ByteBuffer b);

  // ---- slices

  /** A new slice's filter: null if the mode keeps none. */
  abstract @Nullable MembershipFilter newFilter();

  /**
   * Bytes that adding to the slice would allocate now: a new slice or a Bloom filter's next layer.
   * A cuckoo filter knows only when an insert fails: {@link #addToSlice} asks then.
   */
  long growthBytes(long slice) {
    TimeSlices.Slice s = slices.find(slice);
    if (s == null) {
      return SliceFilters.firstBytes(params);
    }
    MembershipFilter f = s.filter();
    return f == null ? 0 : SliceFilters.growthBytes(f);
  }

  final void ensureRoom(long slice, LongPredicate fits) {
    long bytes = growthBytes(slice);
    if (bytes > 0 && !fits.test(bytes)) {
      throw new TableFullException(TableFullException.Reason.MEMORY);
    }
  }

  /**
   * Adds a claim the filters were asked about (and found absent, or hold in no other slice) to its
   * slice.
   *
   * @param fits whether a cuckoo filter may add a table when its kicks fail
   * @throws TableFullException if it needs a table it may not add; nothing is changed then
   */
  final void addToSlice(long slice, long h1, long h2, LongPredicate fits) {
    TimeSlices.Slice s = slices.findOrAdd(slice, this::newFilter);
    switch (s.filter()) {
      case ScalableBloomFilter f -> f.addUnchecked(h1, h2);
      case CuckooFilter f -> {
        try {
          f.insert(h1, h2, false);
        } catch (FilterFullException e) {
          long bytes = f.growthBytes();
          if (bytes < 0) {
            throw new TableFullException(TableFullException.Reason.SLICE);
          }
          if (!fits.test(bytes)) {
            throw new TableFullException(TableFullException.Reason.MEMORY);
          }
          f.insert(h1, h2, true);
        }
      }
      case null -> {} // RECENT: the slots are the table
      default -> throw new IllegalStateException("slice filter " + s.filter().getClass());
    }
    s.items++;
  }

  // ---- figures

  /** Claims held in live slices. */
  public final long items() {
    return slices.items();
  }

  /**
   * Claims answered duplicate since the table was loaded: in memory only, so a restart or a load
   * starts it at 0.
   */
  public final long duplicatesCaught() {
    return duplicates;
  }

  /**
   * The slices live at {@code now} that hold claims, oldest first: those past the window are left
   * out before the table's next change drops them, as {@link #contains} treats them.
   */
  public final NavigableMap<Long, TimeSlices.Slice> liveSlices(long now) {
    return slices.live().tailMap(liveFrom(now), true);
  }

  public long memoryBytes() {
    return 64 + slices.memoryBytes();
  }

  /** Filter mode: the chance that an id never claimed is taken for a duplicate now; else 0. */
  public double estimatedFalsePositiveRate() {
    return 0;
  }

  /** What a table holds from its creation: RECENT's slots. */
  public static long initialBytes(Params p) {
    return p.mode() == Mode.RECENT ? RecentTable.SLOT_BYTES * p.slots() : 0;
  }

  static byte[] readBytes(ByteBuffer b, int n, int max) {
    if (n > max || n > b.remaining()) {
      throw new IllegalArgumentException("length " + n);
    }
    byte[] out = new byte[n];
    b.get(out);
    return out;
  }
}
