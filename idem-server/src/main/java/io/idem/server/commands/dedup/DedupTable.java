package io.idem.server.commands.dedup;

import io.idem.core.dedup.PendingClaims;
import io.idem.core.filter.CuckooFilter;
import io.idem.core.filter.FilterFullException;
import io.idem.core.filter.MembershipFilter;
import io.idem.core.filter.ScalableBloomFilter;
import io.idem.core.hash.Hash128;
import io.idem.core.store.RowChange;
import io.idem.server.commands.bloom.BloomCodec;
import io.idem.server.dispatch.CommandException;
import io.idem.server.engine.KeyTx;
import io.idem.server.engine.Rows;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongPredicate;
import org.jspecify.annotations.Nullable;

/**
 * A dedup table: who claimed which id, over a sliding window of time, in one of three modes.
 *
 * <p>Time is cut into slices of {@code window / slices}. An id is claimed into the slice of its
 * event time, clamped into [now - window, now]: a time in the future counts as now, one older than
 * the window as the window's start. The slice holding {@code now - window} and every later one are
 * live; older slices are dropped whole (their filters freed, their rows range-deleted), never
 * scanned. So a claim is remembered for at least the window after its (clamped) event time, and at
 * most one slice longer. A claim is checked against every live slice, whatever its event time.
 *
 * <ul>
 *   <li>EXACT: every claim is kept in the store, so the table holds every id and owner of the
 *       window, bounded by disk. A slice's claims are packed into rows by the top bits of their id
 *       hash, about 64 a row ({@link #rowBucketBits}): row {@code slice | bucket} is a run of
 *       chunks ({@link DedupRows}), one appended by each background write that has claims for it
 *       and one by each release. Packing spares the store's per-row bytes and most of its writes.
 *       Each live slice keeps a scalable Bloom filter of its ids in memory (1 % overall, its first
 *       layer at 0.5 %: about 1.5 bytes an id) so that a new id, the common case, costs no read:
 *       only ids a filter may hold (a few percent of new ids, with several live slices) are looked
 *       up.
 *   <li>FILTER: each live slice is a filter at the table's rate divided among the live slices: a
 *       cuckoo filter (4 fingerprints a bucket), or a scalable Bloom filter where that is smaller
 *       (rates near 0.5) or the rate needs fingerprints over 32 bits. No owners: a repeated id is a
 *       duplicate, never a retry; a claim cannot be released.
 *   <li>RECENT: a direct-mapped table of slots, each holding one claim's 128-bit id digest, a
 *       32-bit hash of its owner and its slice: {@link io.idem.core.filter.RecentSet}'s design with
 *       an owner and a time. No false positive short of a digest collision; a later claim landing
 *       in the same slot forgets the earlier one.
 * </ul>
 *
 * <p>Not thread-safe: every method runs under the key's lock.
 */
public final class DedupTable {

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

  /** The error rate of the in-memory index of an exact table's slice. */
  static final double EXACT_INDEX_ERROR = 0.01;

  final Params params;
  final long sliceMillis;

  /** Live slices by index; a slice absent from the map is live and empty. */
  private final TreeMap<Long, Slice> slices = new TreeMap<>();

  /**
   * The slice the last claim went to, and its index: claims arrive in about time order, so most
   * find their slice here, without a boxed key and a tree walk per claim. Cleared when slices drop.
   */
  private @Nullable Slice recentSlice;

  private long recentSliceIndex;

  /** The lowest slice index still live. */
  private long floor;

  /** FILTER: whether new slices get cuckoo filters (see {@link #cuckooSlices}). */
  private final boolean cuckoo;

  /** EXACT: a slice's rows are its claims by the top this many bits of their id hash. */
  final int bucketBits;

  /** RECENT: slot i is h1 at 3i, h2 at 3i + 1, and owner hash << 32 | slice - base at 3i + 2. */
  private final long @Nullable [] slots;

  /** RECENT: the slice index that 0 in a slot stands for (slots store it 32-bit relative). */
  private final long base;

  /** EXACT: claims in the log, not yet rows; then, while the background writes them, flushing. */
  PendingClaims pending = new PendingClaims();

  @Nullable PendingClaims flushing;

  /** The floor when the flushing claims were handed over. */
  private long flushFloor;

  /** EXACT: when the last claim came, and when the oldest pending one did (engine time). */
  private long lastClaimMillis;

  private long pendingSinceMillis;

  /**
   * When the background writes pending claims: once claims pause this long, so a burst is
   * acknowledged before its rows are written (the write costs more than the claims); at the latest
   * this long after the oldest pending claim, or once pending claims take this many bytes (256 MiB,
   * or an eighth of the heap if less: writing them takes about as much again for a moment).
   */
  static final long QUIET_MILLIS = 1000;

  static final long MAX_PENDING_MILLIS = 10_000;
  static final long MAX_PENDING_BYTES = Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 8);

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

  static final class Slice {
    /** A {@link ScalableBloomFilter} or a {@link CuckooFilter}; null in RECENT mode. */
    final @Nullable MembershipFilter filter;

    long items;

    Slice(@Nullable MembershipFilter filter) {
      this.filter = filter;
    }
  }

  DedupTable(Params params, long createdSlice) {
    this(params, createdSlice, rowBucketBits(params));
  }

  DedupTable(Params params, long createdSlice, int bucketBits) {
    this.params = params;
    this.bucketBits = bucketBits;
    this.sliceMillis = params.windowMillis() / params.slices();
    this.base = createdSlice;
    this.floor = createdSlice;
    this.cuckoo = cuckooSlices(params);
    this.slots =
        params.mode() == Mode.RECENT ? new long[Math.toIntExact(params.slots() * 3)] : null;
  }

  long sliceOf(long millis) {
    return Math.floorDiv(millis, sliceMillis);
  }

  /** The lowest slice still live at {@code now}: the one holding now - window. */
  long floorAt(long now) {
    return sliceOf(now - params.windowMillis());
  }

  long floor() {
    return floor;
  }

  Map<Long, Slice> liveSlices() {
    return slices;
  }

  long base() {
    return base;
  }

  long @Nullable [] slots() {
    return slots;
  }

  /** Where a claim at {@code eventMillis} lands at {@code now}: see the class comment. */
  long claimSlice(long eventMillis, long now) {
    long t = Math.min(Math.max(eventMillis, now - params.windowMillis()), now);
    return Math.max(sliceOf(t), floor);
  }

  // ---- time

  /** Whether slices fell out of the window by {@code now}: what {@link #advance} would drop. */
  boolean advanceDue(long now) {
    return floorAt(now) > floor;
  }

  /** Drops the slices that fell out of the window by {@code now}, logging the drop. */
  void advance(KeyTx tx, long now) {
    long to = floorAt(now);
    if (to <= floor) {
      return;
    }
    dropBelow(to);
    byte[] payload = ByteBuffer.allocate(8).putLong(to).array();
    List<RowChange> rows =
        params.mode() == Mode.EXACT
            ? List.of(new RowChange.DeleteRange(sliceKey(0), sliceKey(to)))
            : List.of();
    tx.log(DedupCodec.OP_ADVANCE, payload, rows);
  }

  void dropBelow(long to) {
    slices.headMap(to).clear();
    recentSlice = null;
    floor = Math.max(floor, to);
  }

  // ---- claims

  /**
   * Claims each (id, owner) at its event time; logs what changed as one operation.
   *
   * @param times event times in millis, one per id
   * @param fits whether the server may spend so many bytes more (a new slice, a filter's layer)
   * @throws CommandException if a claim needs memory the server may not spend; the claims before it
   *     are made and logged
   */
  List<Claimed> claim(
      KeyTx tx,
      Rows rows,
      long valueId,
      Ids hashed,
      byte[][] owners,
      long[] times,
      long now,
      LongPredicate fits) {
    advance(tx, now);
    byte[][] ids = hashed.ids();
    int n = ids.length;
    List<Claimed> out = new ArrayList<>(n);
    ByteBuffer payload = ByteBuffer.allocate(payloadBound(ids, owners));
    // A batch asks every slice filter about all its ids first: those lookups wait for memory
    // together, and an id no filter may hold is new unless the batch itself holds it already.
    Batch batch = params.mode() != Mode.RECENT && n >= Batch.MIN ? new Batch(hashed) : null;
    if (batch != null) {
      for (Slice s : slices.values()) {
        batch.ask(s.filter);
      }
      if (params.mode() == Mode.EXACT) {
        pending.touch(batch.h1);
      }
    }
    // What was applied is logged, also when a claim fails half-way: memory and log stay in step,
    // and a client that retries the command sees its earlier pairs as retries.
    try {
      for (int i = 0; i < n; i++) {
        long x1 = hashed.h1()[i];
        long x2 = hashed.h2()[i];
        long slice = claimSlice(times[i], now);
        int earlier = batch == null || batch.maybe[i] ? -1 : batch.earlier(i, ids);
        boolean surelyNew = batch != null && !batch.maybe[i] && earlier < 0;
        Claimed c =
            switch (params.mode()) {
              case EXACT -> {
                byte[] holder =
                    earlier >= 0
                        ? out.get(earlier).owner()
                        : surelyNew ? null : findExact(rows, valueId, ids[i], x1, x2);
                if (holder != null) {
                  yield new Claimed(
                      Arrays.equals(holder, owners[i]) ? Outcome.RETRY : Outcome.DUPLICATE, holder);
                }
                ensureRoom(slice, fits);
                addToSlice(slice, x1, x2, fits);
                if (pending.count() == 0) {
                  pendingSinceMillis = now;
                }
                lastClaimMillis = now;
                pending.add(slice, x1, ids[i], owners[i]);
                // The id itself is logged, so its hash is not: replay hashes it again.
                payload.putLong(slice);
                payload.putShort((short) ids[i].length).put(ids[i]);
                payload.put((byte) owners[i].length).put(owners[i]);
                yield new Claimed(Outcome.NEW, owners[i]);
              }
              case FILTER -> {
                if (earlier >= 0 || !surelyNew && findInFilters(x1, x2)) {
                  yield new Claimed(Outcome.DUPLICATE, null);
                }
                ensureRoom(slice, fits);
                addToSlice(slice, x1, x2, fits);
                payload.putLong(slice).putLong(x1).putLong(x2);
                yield new Claimed(Outcome.NEW, null);
              }
              case RECENT -> {
                int ownerHash = ownerHash(owners[i]);
                int slot = slot(x1);
                if (recentHolds(slot, x1, x2)) {
                  boolean mine = (int) (slots[slot * 3 + 2] >>> 32) == ownerHash;
                  yield new Claimed(
                      mine ? Outcome.RETRY : Outcome.DUPLICATE, mine ? owners[i] : null);
                }
                ensureRoom(slice, fits);
                putSlot(slot, x1, x2, ownerHash, slice);
                payload.putLong(slice).putLong(x1).putLong(x2).putInt(ownerHash);
                yield new Claimed(Outcome.NEW, owners[i]);
              }
            };
        out.add(c);
        if (batch != null && c.outcome() == Outcome.NEW) {
          batch.claimed(i);
        }
      }
    } finally {
      if (payload.position() > 0) {
        tx.log(DedupCodec.OP_CLAIM, Arrays.copyOf(payload.array(), payload.position()));
      }
    }
    return out;
  }

  /**
   * Bytes that adding to the slice would allocate now: a new slice or a Bloom filter's next layer.
   * A cuckoo filter knows only when an insert fails: {@link #addToSlice} asks then.
   */
  long growthBytes(long slice) {
    Slice s = findSlice(slice);
    if (s == null) {
      return params.mode() == Mode.RECENT ? 48 : firstLayerBytes();
    }
    if (!(s.filter instanceof ScalableBloomFilter f) || !f.layer(f.layerCount() - 1).isFull()) {
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

  long firstLayerBytes() {
    return firstLayerBytes(params);
  }

  /** The bytes of a new slice's filter, or Long.MAX_VALUE if no array holds it. */
  static long firstLayerBytes(Params p) {
    return cuckooSlices(p) ? cuckooBytes(p) : bloomBytes(p);
  }

  /**
   * Whether a FILTER table's slices are cuckoo filters: when one is no larger than the Bloom filter
   * for the same share of claims and rate. Bloom is kept where it is smaller (rates near 0.5) and
   * for rates whose fingerprints would pass 32 bits.
   */
  static boolean cuckooSlices(Params p) {
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

  /** What the table holds from its creation: RECENT's slots. */
  static long initialBytes(Params p) {
    return p.mode() == Mode.RECENT ? p.slots() * 24 : 0;
  }

  private void ensureRoom(long slice, LongPredicate fits) {
    long bytes = growthBytes(slice);
    if (bytes > 0 && !fits.test(bytes)) {
      throw new CommandException(DedupArgs.NO_MEMORY);
    }
  }

  /** The most bytes a CLAIM operation's payload takes for these claims. */
  private int payloadBound(byte[][] ids, byte[][] owners) {
    int n = ids.length;
    if (params.mode() != Mode.EXACT) {
      return n * (params.mode() == Mode.RECENT ? 28 : 24);
    }
    int bytes = 0;
    for (int i = 0; i < n; i++) {
      bytes += 11 + ids[i].length + owners[i].length;
    }
    return bytes;
  }

  /**
   * Replays one claim of a CLAIM operation.
   *
   * @throws IllegalArgumentException if a length in it is out of bounds
   */
  void replayClaim(ByteBuffer b) {
    long slice = b.getLong();
    // A logged claim landed in a live slice: anything else is a corrupt record, and must not make
    // the table allocate a filter per invented slice.
    if (slice < floor || slice >= floor + maxLiveSlices(params)) {
      throw new IllegalArgumentException("claim in slice " + slice + ", live from " + floor);
    }
    if (params.mode() == Mode.EXACT) {
      byte[] id = readBytes(b, b.getShort() & 0xffff, DedupArgs.MAX_ID_BYTES);
      byte[] owner = readBytes(b, b.get() & 0xff, DedupArgs.MAX_OWNER_BYTES);
      Hash128 h = new Hash128().hash(id);
      addToSlice(slice, h.h1(), h.h2(), NO_LIMIT);
      pending.add(slice, h.h1(), id, owner);
      return;
    }
    long h1 = b.getLong();
    long h2 = b.getLong();
    if (params.mode() == Mode.RECENT) {
      putSlot(slot(h1), h1, h2, b.getInt(), slice);
    } else {
      addToSlice(slice, h1, h2, NO_LIMIT);
    }
  }

  /** No memory check: replay allocates what the logged claim did; RECENT allocates nothing. */
  private static final LongPredicate NO_LIMIT = bytes -> true;

  static byte[] readBytes(ByteBuffer b, int n, int max) {
    if (n > max || n > b.remaining()) {
      throw new IllegalArgumentException("length " + n);
    }
    byte[] out = new byte[n];
    b.get(out);
    return out;
  }

  /**
   * Releases the id if {@code owner} holds it. 1 if released, 0 if not held by that owner.
   *
   * @throws UnsupportedOperationException in filter mode, which keeps no owners
   */
  boolean release(KeyTx tx, Rows rows, long valueId, byte[] id, byte[] owner, long now) {
    if (params.mode() == Mode.FILTER) {
      throw new UnsupportedOperationException();
    }
    advance(tx, now);
    Hash128 h = new Hash128().hash(id);
    if (params.mode() == Mode.EXACT) {
      Held held = findHeld(rows, valueId, id, h.h1(), h.h2(), floor);
      if (held == null || !Arrays.equals(held.owner(), owner)) {
        return false;
      }
      if (held.in() != null) {
        held.in().release(held.offset());
      }
      Slice s = slices.get(held.slice());
      if (s != null) {
        s.items--;
      }
      // The row goes too, in case the background wrote it already.
      ByteBuffer payload = ByteBuffer.allocate(26 + id.length);
      payload.putLong(held.slice()).putLong(h.h1()).putLong(h.h2());
      payload.putShort((short) id.length).put(id);
      tx.log(DedupCodec.OP_RELEASE, payload.array(), List.of(released(held.slice(), h.h1(), id)));
      return true;
    }
    int slot = slot(h.h1());
    if (!recentHolds(slot, h.h1(), h.h2())
        || (int) (slots[slot * 3 + 2] >>> 32) != ownerHash(owner)) {
      return false;
    }
    clearSlot(slot);
    tx.log(
        DedupCodec.OP_RELEASE,
        ByteBuffer.allocate(16).putLong(h.h1()).putLong(h.h2()).array(),
        List.of());
    return true;
  }

  /** Replays a RELEASE operation. */
  void replayRelease(ByteBuffer b) {
    if (params.mode() == Mode.EXACT) {
      long slice = b.getLong();
      long h1 = b.getLong();
      long h2 = b.getLong();
      byte[] id = readBytes(b, b.getShort() & 0xffff, DedupArgs.MAX_ID_BYTES);
      Slice s = slices.get(slice);
      if (s != null) {
        s.items--;
      }
      int off = pending.find(h1, id, slice);
      if (off >= 0 && pending.slice(off) == slice) {
        pending.release(off);
      }
    } else {
      long h1 = b.getLong();
      long h2 = b.getLong();
      int slot = slot(h1);
      if (recentHolds(slot, h1, h2)) {
        clearSlot(slot);
      }
    }
  }

  /** Where an exact table holds an id: a pending claim ({@code in} set) or a row. */
  private record Held(long slice, byte[] owner, @Nullable PendingClaims in, int offset) {}

  /**
   * Finds who holds the id in a slice at or above {@code minSlice}. Only slices whose filter may
   * hold it are looked at; pending claims before rows. A released pending claim of the id hides its
   * row: the claim may have been written by the background after the release's record.
   */
  private @Nullable Held findHeld(
      Rows rows, long valueId, byte[] id, long h1, long h2, long minSlice) {
    boolean pendingChecked = false;
    for (Map.Entry<Long, Slice> e : slices.tailMap(minSlice, true).descendingMap().entrySet()) {
      if (!e.getValue().filter.mightContain(h1, h2)) {
        continue;
      }
      long slice = e.getKey();
      if (!pendingChecked) {
        pendingChecked = true;
        Held held = heldIn(pending, id, h1, minSlice);
        if (held == null && flushing != null) {
          held = heldIn(flushing, id, h1, minSlice);
        }
        if (held != null) {
          return held;
        }
        if (pending.releasedHere(h1, id, minSlice)
            || flushing != null && flushing.releasedHere(h1, id, minSlice)) {
          return null;
        }
      }
      byte[] row = rows.get(valueId, rowKeyOf(slice, h1));
      byte[] owner = row == null ? null : DedupRows.holderIn(row, id);
      if (owner != null) {
        return new Held(slice, owner, null, -1);
      }
    }
    return null;
  }

  private static @Nullable Held heldIn(PendingClaims p, byte[] id, long h1, long minSlice) {
    int off = p.find(h1, id, minSlice);
    return off < 0 ? null : new Held(p.slice(off), p.owner(off), p, off);
  }

  /** Whether the id is claimed in a live slice (in filter mode: may be). Changes nothing. */
  boolean contains(Rows rows, long valueId, byte[] id, long now) {
    long live = Math.max(floor, floorAt(now));
    Hash128 h = new Hash128().hash(id);
    return switch (params.mode()) {
      case EXACT -> findHeld(rows, valueId, id, h.h1(), h.h2(), live) != null;
      case FILTER -> {
        for (Slice s : slices.tailMap(live).values()) {
          if (s.filter.mightContain(h.h1(), h.h2())) {
            yield true;
          }
        }
        yield false;
      }
      case RECENT -> {
        int slot = slot(h.h1());
        yield recentHolds(slot, h.h1(), h.h2())
            && base + (slots[slot * 3 + 2] & 0xffff_ffffL) >= live;
      }
    };
  }

  private byte @Nullable [] findExact(Rows rows, long valueId, byte[] id, long h1, long h2) {
    Held held = findHeld(rows, valueId, id, h1, h2, floor);
    return held == null ? null : held.owner();
  }

  private boolean findInFilters(long h1, long h2) {
    for (Slice s : slices.values()) {
      if (s.filter.mightContain(h1, h2)) {
        return true;
      }
    }
    return false;
  }

  /** The live slice of this index, or null: the last claim's slice first, then the map. */
  private @Nullable Slice findSlice(long slice) {
    return recentSlice != null && recentSliceIndex == slice ? recentSlice : slices.get(slice);
  }

  /**
   * Adds a claim the filters were asked about (and found absent, or hold in no other slice) to its
   * slice's filter.
   *
   * @param fits whether a cuckoo filter may add a table when its kicks fail
   * @throws CommandException if it needs a table it may not add; nothing is changed then
   */
  private void addToSlice(long slice, long h1, long h2, LongPredicate fits) {
    Slice s = findSlice(slice);
    if (s == null) {
      s = newSlice();
      slices.put(slice, s);
    }
    recentSlice = s;
    recentSliceIndex = slice;
    switch (s.filter) {
      case ScalableBloomFilter f -> f.addUnchecked(h1, h2);
      case CuckooFilter f -> {
        try {
          f.insert(h1, h2, false);
        } catch (FilterFullException e) {
          long bytes = f.growthBytes();
          if (bytes < 0) {
            throw new CommandException(DedupArgs.SLICE_FULL);
          }
          if (!fits.test(bytes)) {
            throw new CommandException(DedupArgs.NO_MEMORY);
          }
          f.insert(h1, h2, true);
        }
      }
      case null -> {} // RECENT: the slots are the table
      default -> throw new IllegalStateException("slice filter " + s.filter.getClass());
    }
    s.items++;
  }

  Slice newSlice() {
    if (params.mode() == Mode.RECENT) {
      return new Slice(null);
    }
    if (cuckoo) {
      return new Slice(
          CuckooFilter.create(
              sliceCapacity(params),
              sliceErrorRate(params),
              CUCKOO_BUCKET_SIZE,
              CUCKOO_KICKS,
              CUCKOO_EXPANSION));
    }
    return new Slice(
        ScalableBloomFilter.create(
            sliceCapacity(params),
            sliceErrorRate(params),
            ScalableBloomFilter.DEFAULT_EXPANSION,
            BloomCodec.STORAGE));
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
    return p.mode() == Mode.EXACT ? EXACT_INDEX_ERROR : p.errorRate() / maxLiveSlices(p);
  }

  /**
   * The most slices live at once: those a window spans, plus the one it starts in. Slices are
   * {@code window / slices} rounded down, so a window that does not divide evenly spans one more.
   */
  static int maxLiveSlices(Params p) {
    long sliceMillis = p.windowMillis() / p.slices();
    return (int) Math.ceilDiv(p.windowMillis(), sliceMillis) + 1;
  }

  /**
   * A command's ids and their hashes, computed before the key's lock is taken: two connections
   * claiming into one table hash in parallel.
   */
  record Ids(byte[][] ids, long[] h1, long[] h2) {
    static Ids of(byte[][] ids) {
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

  /** A command's ids, hashed, with what the slice filters say of them and the new ones so far. */
  private static final class Batch {
    static final int MIN = 8;

    final long[] h1;
    final long[] h2;
    final boolean[] maybe;
    private final boolean[] answer;
    private final boolean[] scratch;

    /** Open addressing over the ids claimed new so far in this command: index + 1, 0 empty. */
    private final int[] table;

    Batch(Ids hashed) {
      int n = hashed.ids().length;
      h1 = hashed.h1();
      h2 = hashed.h2();
      maybe = new boolean[n];
      answer = new boolean[n];
      scratch = new boolean[n];
      table = new int[Integer.highestOneBit(n) * 4];
    }

    void ask(MembershipFilter filter) {
      switch (filter) {
        case ScalableBloomFilter f -> {
          f.mightContainAll(h1, h2, h1.length, answer, scratch);
          for (int i = 0; i < answer.length; i++) {
            maybe[i] |= answer[i];
          }
        }
        default -> {
          for (int i = 0; i < maybe.length; i++) {
            maybe[i] = maybe[i] || filter.mightContain(h1[i], h2[i]);
          }
        }
      }
    }

    /** The index of an earlier id of this command claimed new and equal to id i, or -1. */
    int earlier(int i, byte[][] ids) {
      int mask = table.length - 1;
      for (int k = (int) h1[i] & mask; table[k] != 0; k = (k + 1) & mask) {
        int j = table[k] - 1;
        if (h1[j] == h1[i] && h2[j] == h2[i] && Arrays.equals(ids[j], ids[i])) {
          return j;
        }
      }
      return -1;
    }

    void claimed(int i) {
      int mask = table.length - 1;
      int k = (int) h1[i] & mask;
      while (table[k] != 0) {
        k = (k + 1) & mask;
      }
      table[k] = i + 1;
    }
  }

  // ---- background: pending claims become rows

  /**
   * Step 1, under the key's lock: hands the pending claims over to be written and returns their
   * rows, or null if there is nothing to write, a write is under way, or it is not yet time (see
   * {@link #QUIET_MILLIS}) unless {@code force}.
   */
  @Nullable List<RowChange> startFlush(long now, boolean force) {
    if (flushing != null || pending.count() == 0) {
      return null;
    }
    boolean due =
        force
            || now - lastClaimMillis >= QUIET_MILLIS
            || now - pendingSinceMillis >= MAX_PENDING_MILLIS
            || pending.bytes() >= MAX_PENDING_BYTES;
    if (!due) {
      return null;
    }
    PendingClaims p = pending;
    pending = new PendingClaims();
    flushing = p;
    flushFloor = floor;
    // One append a row of the claims that go to it, in key order (RocksDB's memtable then inserts
    // each key next to the one before, much cheaper than a search from the top). Grouped by slice
    // (few), then sorted as one long a claim, its row's bucket over its place in the slice's
    // list: a burst's millions of claims cost 12 bytes each here, no object.
    TreeMap<Long, int[]> bySlice = new TreeMap<>();
    p.forEach(
        off -> {
          if (!p.isReleased(off) && p.slice(off) >= floor) {
            bySlice.computeIfAbsent(p.slice(off), k -> new int[1])[0]++;
          }
        });
    for (Map.Entry<Long, int[]> e : bySlice.entrySet()) {
      e.setValue(new int[e.getValue()[0] + 1]); // [0]: how many are in so far
    }
    p.forEach(
        off -> {
          if (!p.isReleased(off) && p.slice(off) >= floor) {
            int[] offs = bySlice.get(p.slice(off));
            offs[++offs[0]] = off;
          }
        });
    List<RowChange> appends = new ArrayList<>();
    Hash128 h = new Hash128();
    for (Map.Entry<Long, int[]> e : bySlice.entrySet()) {
      int[] offs = e.getValue();
      int n = offs[0];
      long[] keys = new long[n];
      for (int i = 0; i < n; i++) {
        // The bucket's top bit flipped: signed order is then the key's unsigned order.
        keys[i] = (bucket(p.h1(offs[i + 1], h)) ^ 0x8000_0000L) << 32 | i;
      }
      Arrays.sort(keys);
      for (int from = 0, to; from < n; from = to) {
        long row = keys[from] >>> 32;
        to = from + 1;
        while (to < n && keys[to] >>> 32 == row) {
          to++;
        }
        byte[][] ids = new byte[to - from][];
        byte[][] owners = new byte[to - from][];
        for (int i = from; i < to; i++) {
          int off = offs[(int) keys[i] + 1];
          ids[i - from] = p.id(off);
          owners[i - from] = p.owner(off);
        }
        appends.add(
            new RowChange.Append(
                rowKey(e.getKey(), (int) (row ^ 0x8000_0000L)), DedupRows.claims(ids, owners)));
      }
    }
    return appends;
  }

  /**
   * Step 2 done (the rows are in the store), under the key's lock: returns the row changes that
   * undo what the write raced with (claims released, slices dropped meanwhile), to be logged after
   * it.
   */
  List<RowChange> finishFlush() {
    PendingClaims p = flushing;
    flushing = null;
    List<RowChange> fix = new ArrayList<>();
    if (p == null) {
      return fix;
    }
    // A released claim may be in the store: written by this write after the release's record, or
    // by one before a crash. It is released again, unless this write has a later claim of the id
    // in the same slice.
    Hash128 h = new Hash128();
    p.forEach(
        off -> {
          if (p.isReleased(off) && p.slice(off) >= flushFloor) {
            byte[] id = p.id(off);
            h.hash(id);
            if (!p.holds(h.h1(), id, p.slice(off))) {
              fix.add(released(p.slice(off), h.h1(), id));
            }
          }
        });
    if (floor > flushFloor) {
      fix.add(new RowChange.DeleteRange(sliceKey(0), sliceKey(floor)));
    }
    return fix;
  }

  /** The write failed, under the key's lock: the claims are pending again. */
  void abortFlush() {
    PendingClaims p = flushing;
    flushing = null;
    if (p != null) {
      Hash128 h = new Hash128();
      p.forEach(
          off -> {
            byte[] id = p.id(off);
            h.hash(id);
            int at = pending.add(p.slice(off), h.h1(), id, p.owner(off));
            if (p.isReleased(off)) {
              pending.release(at); // kept: it may be in the store, the next write releases it
            }
          });
    }
  }

  /** The claims not yet rows (EXACT), those being written first: what a snapshot keeps. */
  /**
   * EXACT: who holds each id, by live slice, from the rows and the claims not written yet: the
   * table's content however much of it the background has written (DEBUG DIGEST).
   */
  TreeMap<Long, TreeMap<byte[], byte[]>> holders(Rows rows, long valueId) {
    TreeMap<Long, TreeMap<byte[], byte[]>> out = new TreeMap<>();
    rows.scan(
        valueId,
        (key, row) -> {
          long slice = ByteBuffer.wrap(key).getLong();
          if (slice >= floor) {
            TreeMap<byte[], byte[]> held =
                out.computeIfAbsent(slice, x -> new TreeMap<>(Arrays::compareUnsigned));
            DedupRows.records(row, (id, owner) -> record(held, id, owner));
          }
        });
    for (PendingClaims p : unwritten()) { // the flushing ones first: they are older
      for (int off : p.offsets()) {
        long slice = p.slice(off);
        if (slice >= floor) {
          TreeMap<byte[], byte[]> held =
              out.computeIfAbsent(slice, x -> new TreeMap<>(Arrays::compareUnsigned));
          record(held, p.id(off), p.isReleased(off) ? null : p.owner(off));
        }
      }
    }
    out.values().removeIf(Map::isEmpty);
    return out;
  }

  private static void record(TreeMap<byte[], byte[]> held, byte[] id, byte @Nullable [] owner) {
    if (owner == null) {
      held.remove(id);
    } else {
      held.put(id, owner);
    }
  }

  List<PendingClaims> unwritten() {
    return flushing == null ? List.of(pending) : List.of(flushing, pending);
  }

  // ---- recent slots

  private int slot(long h1) {
    return recentSlot(h1, params.slots());
  }

  /**
   * The slot of a RECENT table of {@code slots} slots that a claim whose id hashes to {@code h1}
   * takes. Public so that a test can choose ids that never share a slot, and so expect every claim
   * to be remembered.
   */
  public static int recentSlot(long h1, long slots) {
    return (int) Math.multiplyHigh(h1 >>> 1, slots << 1);
  }

  /** Whether the slot holds this digest in a live slice. */
  private boolean recentHolds(int slot, long h1, long h2) {
    int i = slot * 3;
    if (slots[i] != h1 || slots[i + 1] != h2 || (h1 == 0 && h2 == 0)) {
      return false;
    }
    return base + (slots[i + 2] & 0xffff_ffffL) >= floor;
  }

  private void putSlot(int slot, long h1, long h2, int ownerHash, long slice) {
    int i = slot * 3;
    if (slots[i] != 0 || slots[i + 1] != 0) {
      Slice old = slices.get(base + (slots[i + 2] & 0xffff_ffffL));
      if (old != null) {
        old.items--; // forgotten: its slice holds one item fewer
      }
    }
    if (h1 == 0 && h2 == 0) {
      h2 = 1; // (0, 0) marks a free slot
    }
    slots[i] = h1;
    slots[i + 1] = h2;
    slots[i + 2] = (long) ownerHash << 32 | (slice - base);
    addToSlice(slice, h1, h2, NO_LIMIT);
  }

  private void clearSlot(int slot) {
    int i = slot * 3;
    Slice old = slices.get(base + (slots[i + 2] & 0xffff_ffffL));
    if (old != null) {
      old.items--;
    }
    slots[i] = 0;
    slots[i + 1] = 0;
    slots[i + 2] = 0;
  }

  static int ownerHash(byte[] owner) {
    return (int) (new Hash128().hash(owner).h1() >>> 32);
  }

  // ---- figures

  /** Claims held in live slices. */
  long items() {
    long n = 0;
    for (Slice s : slices.values()) {
      n += s.items;
    }
    return n;
  }

  long memoryBytes() {
    long n = 64 + slices.size() * 48L;
    for (Slice s : slices.values()) {
      if (s.filter != null) {
        n += s.filter.sizeInBytes();
      }
    }
    n += pending.bytes() + (flushing == null ? 0 : flushing.bytes());
    return n + (slots == null ? 0 : slots.length * 8L);
  }

  /** Filter mode: the chance that an id never claimed is taken for a duplicate now. */
  double estimatedFalsePositiveRate() {
    double none = 1;
    for (Slice s : slices.values()) {
      if (s.filter != null) {
        none *= 1 - s.filter.estimatedFalsePositiveRate();
      }
    }
    return params.mode() == Mode.FILTER ? 1 - none : 0;
  }

  // ---- rows: key u64 slice | u32 bucket, value a run of claim and release records

  /** Claims a row holds, about: enough that the store's per-row bytes are small beside them. */
  static final int CLAIMS_PER_ROW = 64;

  /** The bucket bits a new table's rows use: its slice capacity over {@link #CLAIMS_PER_ROW}. */
  static int rowBucketBits(Params p) {
    long rows = Math.ceilDiv(sliceCapacity(p), CLAIMS_PER_ROW);
    return rows <= 1 ? 0 : Math.min(32, 64 - Long.numberOfLeadingZeros(rows - 1));
  }

  private long bucket(long h1) {
    return bucketBits == 0 ? 0 : h1 >>> (64 - bucketBits);
  }

  static byte[] sliceKey(long slice) {
    return ByteBuffer.allocate(8).putLong(slice).array();
  }

  static byte[] rowKey(long slice, int bucket) {
    return ByteBuffer.allocate(12).putLong(slice).putInt(bucket).array();
  }

  /** The row of a claim of an id with hash h1 in the slice. */
  byte[] rowKeyOf(long slice, long h1) {
    return rowKey(slice, (int) bucket(h1));
  }

  /** The append that releases the id in its slice's row. */
  private RowChange released(long slice, long h1, byte[] id) {
    return new RowChange.Append(rowKeyOf(slice, h1), DedupRows.release(id));
  }
}
