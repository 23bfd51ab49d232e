package io.idem.core.dedup;

import io.idem.core.filter.BloomFilter;
import io.idem.core.filter.MembershipFilter;
import io.idem.core.hash.Hash128;
import io.idem.core.store.RowChange;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.LongPredicate;
import org.jspecify.annotations.Nullable;

/**
 * EXACT mode: every claim is kept, so the table holds every id and owner of the window, bounded by
 * the store's disk.
 *
 * <p>A claim is first recorded whole and kept pending in memory ({@link PendingClaims}); later the
 * caller's background writes the pending claims as rows ({@link #startFlush}, {@link
 * #finishFlush}), and they leave memory. A slice's claims are packed into rows by the top bits of
 * their id hash, about 64 a row ({@link #rowBucketBits}): row {@code slice | bucket} is a run of
 * chunks ({@link ClaimRows}), one appended by each write that has claims for it and one by each
 * release. Packing spares the store's per-row bytes and most of its writes.
 *
 * <p>Each live slice keeps a scalable Bloom filter of its ids in memory (1 % overall, its first
 * layer at 0.5 %: about 1.5 bytes an id) so that a new id, the common case, costs no read: only ids
 * a filter may hold are looked up.
 */
public final class ExactTable extends DedupTable {

  /**
   * When the background writes pending claims: once claims pause this long, so a burst is
   * acknowledged before its rows are written (the write costs more than the claims); at the latest
   * this long after the oldest pending claim, or once pending claims take this many bytes (at most
   * an eighth of the heap: writing them takes about as much again for a moment).
   */
  static final long QUIET_MILLIS = 1000;

  static final long MAX_PENDING_MILLIS = 10_000;
  static final long MAX_PENDING_BYTES = Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 8);

  /** Claims a row holds, about: enough that the store's per-row bytes are small beside them. */
  static final int CLAIMS_PER_ROW = 64;

  private final BloomFilter.Storage storage;

  /** Claims recorded, not yet rows; then, while the background writes them, flushing. */
  PendingClaims pending = new PendingClaims();

  @Nullable PendingClaims flushing;

  /** The floor when the flushing claims were handed over. */
  private long flushFloor;

  /** When the last claim came, and when the oldest pending one did (the caller's clock). */
  private long lastClaimMillis;

  private long pendingSinceMillis;

  ExactTable(Params params, long createdSlice, int bucketBits, BloomFilter.Storage storage) {
    super(params, createdSlice, bucketBits);
    this.storage = storage;
  }

  /** The bucket bits a new table's rows use: its slice capacity over {@link #CLAIMS_PER_ROW}. */
  static int rowBucketBits(Params p) {
    long rows = Math.ceilDiv(SliceFilters.sliceCapacity(p), CLAIMS_PER_ROW);
    return rows <= 1 ? 0 : Math.min(32, 64 - Long.numberOfLeadingZeros(rows - 1));
  }

  @Override
  void asked(ClaimBatch batch) {
    pending.touch(batch.h1);
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
    byte[] id = hashed.ids()[i];
    long h1 = hashed.h1()[i];
    long h2 = hashed.h2()[i];
    Held held = surelyNew ? null : findHeld(store, id, h1, h2, slices.floor());
    if (held != null) {
      if (Arrays.equals(held.owner(), owner)) {
        return new Claimed(Outcome.RETRY, held.owner());
      }
      slices.caught(held.slice());
      return new Claimed(Outcome.DUPLICATE, held.owner());
    }
    ensureRoom(slice, fits);
    addToSlice(slice, h1, h2, fits);
    if (pending.count() == 0) {
      pendingSinceMillis = now;
    }
    lastClaimMillis = now;
    pending.add(slice, h1, id, owner);
    // The id itself is recorded, so its hash is not: replay hashes it again.
    payload.putLong(slice);
    payload.putShort((short) id.length).put(id);
    payload.put((byte) owner.length).put(owner);
    return new Claimed(Outcome.NEW, owner);
  }

  @Override
  int payloadBound(byte[][] ids, byte[][] owners) {
    int bytes = 0;
    for (int i = 0; i < ids.length; i++) {
      bytes += 11 + ids[i].length + owners[i].length;
    }
    return bytes;
  }

  @Override
  List<RowChange> droppedRows(long to) {
    return List.of(new RowChange.DeleteRange(sliceKey(0), sliceKey(to)));
  }

  @Override
  public boolean release(ClaimStore store, byte[] id, byte[] owner, long now) {
    advance(store, now);
    Hash128 h = new Hash128().hash(id);
    Held held = findHeld(store, id, h.h1(), h.h2(), slices.floor());
    if (held == null || !Arrays.equals(held.owner(), owner)) {
      return false;
    }
    if (held.in() != null) {
      held.in().release(held.offset());
    }
    slices.forget(held.slice());
    // The row goes too, in case the background wrote it already.
    store.record(
        DedupOps.RELEASE,
        DedupOps.releaseExact(held.slice(), h.h1(), h.h2(), id),
        List.of(released(held.slice(), h.h1(), id)));
    return true;
  }

  @Override
  public boolean contains(ClaimStore store, byte[] id, long now) {
    Hash128 h = new Hash128().hash(id);
    return findHeld(store, id, h.h1(), h.h2(), liveFrom(now)) != null;
  }

  @Override
  void replayClaim(long slice, ByteBuffer b) {
    byte[] id = readBytes(b, b.getShort() & 0xffff, DedupLimits.MAX_ID_BYTES);
    byte[] owner = readBytes(b, b.get() & 0xff, DedupLimits.MAX_OWNER_BYTES);
    Hash128 h = new Hash128().hash(id);
    addToSlice(slice, h.h1(), h.h2(), NO_LIMIT);
    pending.add(slice, h.h1(), id, owner);
  }

  @Override
  void replayRelease(ByteBuffer b) {
    long slice = b.getLong();
    long h1 = b.getLong();
    b.getLong(); // h2: the id is compared whole
    byte[] id = readBytes(b, b.getShort() & 0xffff, DedupLimits.MAX_ID_BYTES);
    slices.forget(slice);
    int off = pending.find(h1, id, slice);
    if (off >= 0 && pending.slice(off) == slice) {
      pending.release(off);
    }
  }

  @Override
  MembershipFilter newFilter() {
    return SliceFilters.create(params, storage);
  }

  /** Where the table holds an id: a pending claim ({@code in} set) or a row. */
  private record Held(long slice, byte[] owner, @Nullable PendingClaims in, int offset) {}

  /**
   * Finds who holds the id in a slice at or above {@code minSlice}. Only slices whose filter may
   * hold it are looked at; pending claims before rows. A released pending claim of the id hides its
   * row: the claim may have been written by the background after the release's record.
   */
  private @Nullable Held findHeld(ClaimStore store, byte[] id, long h1, long h2, long minSlice) {
    boolean pendingChecked = false;
    for (Map.Entry<Long, TimeSlices.Slice> e :
        slices.live().tailMap(minSlice, true).descendingMap().entrySet()) {
      MembershipFilter f = e.getValue().filter();
      if (f == null || !f.mightContain(h1, h2)) {
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
      byte[] row = store.row(rowKeyOf(slice, h1));
      byte[] owner = row == null ? null : ClaimRows.holderIn(row, id);
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

  // ---- the background: pending claims become rows

  /**
   * Step 1, serialized with the table's other calls: hands the pending claims over to be written
   * and returns their rows, or null if there is nothing to write, a write is under way, or it is
   * not yet time (see {@link #QUIET_MILLIS}) unless {@code force}.
   */
  public @Nullable List<RowChange> startFlush(long now, boolean force) {
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
    flushFloor = slices.floor();
    // One append a row of the claims that go to it, in key order (RocksDB's memtable then inserts
    // each key next to the one before, much cheaper than a search from the top). Grouped by slice
    // (few), then sorted as one long a claim, its row's bucket over its place in the slice's
    // list: a burst's millions of claims cost 12 bytes each here, no object.
    long floor = flushFloor;
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
                rowKey(e.getKey(), (int) (row ^ 0x8000_0000L)), ClaimRows.claims(ids, owners)));
      }
    }
    return appends;
  }

  /**
   * Step 2 done (the rows are in the store), serialized with the table's other calls: returns the
   * row changes that undo what the write raced with (claims released, slices dropped meanwhile), to
   * be recorded after it as a {@link DedupOps#ROWS} operation.
   */
  public List<RowChange> finishFlush() {
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
    if (slices.floor() > flushFloor) {
      fix.add(new RowChange.DeleteRange(sliceKey(0), sliceKey(slices.floor())));
    }
    return fix;
  }

  /** The write failed, serialized with the table's other calls: the claims are pending again. */
  public void abortFlush() {
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

  /** Claims recorded and not yet written as rows, those being written included. */
  public int unwrittenClaims() {
    return pending.live() + (flushing == null ? 0 : flushing.live());
  }

  /** Heap bytes those claims take. */
  public long unwrittenBytes() {
    return pending.bytes() + (flushing == null ? 0 : flushing.bytes());
  }

  /** The claims not yet rows, those being written first: what a snapshot keeps. */
  List<PendingClaims> unwritten() {
    return flushing == null ? List.of(pending) : List.of(flushing, pending);
  }

  /**
   * Who holds each id, by live slice, from the rows and the claims not written yet: the table's
   * content however much of it the background has written.
   *
   * @param rows calls its argument with each of the table's rows, key and value
   */
  public TreeMap<Long, TreeMap<byte[], byte[]>> holders(Consumer<BiConsumer<byte[], byte[]>> rows) {
    TreeMap<Long, TreeMap<byte[], byte[]>> out = new TreeMap<>();
    long floor = slices.floor();
    rows.accept(
        (key, row) -> {
          long slice = ByteBuffer.wrap(key).getLong();
          if (slice >= floor) {
            TreeMap<byte[], byte[]> held =
                out.computeIfAbsent(slice, x -> new TreeMap<>(Arrays::compareUnsigned));
            ClaimRows.records(row, (id, owner) -> record(held, id, owner));
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

  @Override
  public long memoryBytes() {
    return super.memoryBytes() + pending.bytes() + (flushing == null ? 0 : flushing.bytes());
  }

  // ---- rows: key u64 slice | u32 bucket, value a run of claim and release records

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
    return new RowChange.Append(rowKeyOf(slice, h1), ClaimRows.release(id));
  }
}
