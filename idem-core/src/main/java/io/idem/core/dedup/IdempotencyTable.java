package io.idem.core.dedup;

import io.idem.core.dedup.DedupTable.Mode;
import io.idem.core.dedup.DedupTable.Params;
import io.idem.core.filter.BloomFilter;
import io.idem.core.filter.MembershipFilter;
import io.idem.core.filter.ScalableBloomFilter;
import io.idem.core.hash.Hash128;
import io.idem.core.store.RowChange;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * A table of idempotency keys, as an API keeps them for its clients' retries: a key is free, in
 * progress (a caller holds it under a lease and a token), or done (the first request's result,
 * stored for the retention).
 *
 * <p>Keys in progress live in memory, at most {@link Settings#maxPending} of them; a done key is a
 * row of the store, keyed by the slice of the time it was completed and its id, so the retention
 * drops whole slices of rows by a range, never a scan. Each live slice keeps a Bloom filter of the
 * ids done in it: a begin of a new key reads no row (but for the filter's false positives).
 *
 * <p>A lease that ran out without a completion leaves the key free: the next begin takes it over,
 * whatever its fingerprint, with a new token. Until then the first caller's completion is still
 * taken (as a queue takes an ack after its lease). Tokens rise from the table's creation time over
 * 16 bits, so a table made again never hands out a token the old one did, and every replica of a
 * log hands out the same.
 *
 * <p>Every change is recorded through the {@link ClaimStore} as one of the operations below, with
 * its row changes; {@link #replay} applies them to the memory part (the rows are already stored).
 *
 * <pre>
 * op 1 BEGIN     u64 now | u64 token | u64 lease until | u16 n | id | u8 m | fingerprint
 * op 2 COMPLETE  u64 now | u64 token | u16 n | id          rows: Put(slice | id, the done row)
 * op 3 ABANDON   u64 token | u16 n | id
 * op 4 ADVANCE   u64 floor | u64 now                       rows: DeleteRange(slice 0, floor)
 * done row       u8 1 | u8 m | fingerprint | u64 began | u64 completed | result
 * </pre>
 *
 * Not thread-safe: the caller holds the table's lock.
 */
public final class IdempotencyTable {

  public static final byte BEGIN = 1;
  public static final byte COMPLETE = 2;
  public static final byte ABANDON = 3;
  public static final byte ADVANCE = 4;

  public static final int MAX_ID_BYTES = DedupLimits.MAX_ID_BYTES;
  public static final int MAX_FINGERPRINT_BYTES = 64;

  /** A result fits a cluster's log record with its command. */
  public static final int MAX_RESULT_LIMIT = 1_000_000;

  public static final int DEFAULT_MAX_RESULT = 64 << 10;
  public static final int MAX_PENDING_LIMIT = 10_000_000;
  public static final int DEFAULT_MAX_PENDING = 100_000;
  public static final long DEFAULT_LEASE_MILLIS = 30_000;

  private static final int RECIPE_VERSION = 1;
  private static final int SNAPSHOT_VERSION = 1;
  private static final int ROW_FORMAT = 1;

  /**
   * The recipe's bytes: version, retention, slices, capacity, max result, max pending, lease,
   * created.
   */
  public static final int RECIPE_BYTES = 1 + 8 + 4 + 8 + 4 + 4 + 8 + 8;

  /**
   * Heap bytes of a key in progress beside its id and fingerprint: map and tree entries, record.
   */
  static final int LEASE_OVERHEAD_BYTES = 160;

  /** A table's settings, fixed when it is made. */
  public record Settings(
      long retentionMillis,
      int slices,
      long capacity,
      int maxResultBytes,
      int maxPending,
      long leaseMillis) {

    /** The defaults for a retention. */
    public static Settings of(long retentionMillis) {
      return new Settings(
          retentionMillis,
          DedupLimits.DEFAULT_SLICES,
          DedupLimits.DEFAULT_CAPACITY,
          DEFAULT_MAX_RESULT,
          DEFAULT_MAX_PENDING,
          DEFAULT_LEASE_MILLIS);
    }

    Params params() {
      return new Params(
          Mode.EXACT, retentionMillis, slices, capacity, SliceFilters.EXACT_INDEX_ERROR, 0);
    }

    /** What is wrong with these settings, or null. */
    public @Nullable String problem() {
      DedupLimits.Problem p = DedupLimits.check(params());
      if (p == DedupLimits.Problem.WINDOW) {
        return "retention must be seconds or a duration such as 90s, 15m, 24h or 30d, from 1s to"
            + " 3650d";
      }
      if (p != null) {
        return p.message();
      }
      if (maxResultBytes < 1 || maxResultBytes > MAX_RESULT_LIMIT) {
        return "MAXRESULT must be from 1 to " + MAX_RESULT_LIMIT + " bytes";
      }
      if (maxPending < 1 || maxPending > MAX_PENDING_LIMIT) {
        return "MAXPENDING must be from 1 to " + MAX_PENDING_LIMIT;
      }
      if (leaseMillis < 1 || leaseMillis > retentionMillis) {
        return "a LEASE is from 1 ms to the table's retention";
      }
      return null;
    }
  }

  /** What a begin found. */
  public sealed interface Begun {}

  /** The key is the caller's until {@code leaseUntil}, under this token. */
  public record Started(long token, long leaseUntil) implements Begun {}

  /** The key was done with the same fingerprint: its result. */
  public record Done(byte[] result) implements Begun {}

  /** Another caller holds the key, with the same fingerprint, until {@code leaseUntil}. */
  public record InProgress(long leaseUntil) implements Begun {}

  /** The key was begun or done with another fingerprint. */
  public record Mismatch() implements Begun {}

  /** A key in progress. */
  public record Lease(byte[] id, byte[] fingerprint, long token, long began, long leaseUntil) {}

  /** A done key. */
  public record Completed(byte[] fingerprint, long began, long completed, byte[] result) {}

  /** The table is at its {@link Settings#maxPending} keys in progress, none of them lapsed. */
  public static final class TooManyInProgressException extends RuntimeException {
    TooManyInProgressException(int max) {
      super("too many keys in progress (MAXPENDING " + max + ")");
    }
  }

  /** An id as a map key. */
  private record Id(byte[] bytes) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Id other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes);
    }
  }

  private static final Comparator<Lease> BY_LEASE_END =
      Comparator.comparingLong(Lease::leaseUntil).thenComparingLong(Lease::token);

  private final Settings settings;
  private final long createdMillis;
  private final Params params;
  private final TimeSlices slices;
  private final BloomFilter.Storage storage;
  private final Map<Id, Lease> pending = new HashMap<>();
  private final TreeSet<Lease> byLeaseEnd = new TreeSet<>(BY_LEASE_END);
  private long pendingBytes;
  private long nextToken;

  private IdempotencyTable(Settings settings, long createdMillis, BloomFilter.Storage storage) {
    this.settings = settings;
    this.createdMillis = createdMillis;
    this.params = settings.params();
    this.slices = new TimeSlices(params, TimeSlices.createdAt(params, createdMillis));
    this.storage = storage;
    this.nextToken = Math.max(1, createdMillis << 16);
  }

  /**
   * A new, empty table.
   *
   * @throws IllegalArgumentException if the settings have a {@link Settings#problem}
   */
  public static IdempotencyTable create(Settings settings, long now, BloomFilter.Storage storage) {
    String problem = settings.problem();
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    return new IdempotencyTable(settings, now, storage);
  }

  public Settings settings() {
    return settings;
  }

  public long createdMillis() {
    return createdMillis;
  }

  // ---- commands

  /**
   * Begins the key for a caller: see {@link Begun}. A started key is recorded (op BEGIN); the other
   * answers change nothing.
   *
   * @throws TooManyInProgressException if the key is new and the table holds its most keys in
   *     progress, none lapsed
   */
  public Begun begin(ClaimStore store, byte[] id, byte[] fingerprint, long leaseMillis, long now) {
    checkId(id);
    checkFingerprint(fingerprint);
    if (leaseMillis < 1) {
      throw new IllegalArgumentException("a lease is at least 1 ms, not " + leaseMillis);
    }
    Lease held = pending.get(new Id(id));
    if (held != null && held.leaseUntil() > now) {
      return Arrays.equals(held.fingerprint(), fingerprint)
          ? new InProgress(held.leaseUntil())
          : new Mismatch();
    }
    if (held == null) {
      Completed done = done(store, id, now);
      if (done != null) {
        return Arrays.equals(done.fingerprint(), fingerprint)
            ? new Done(done.result())
            : new Mismatch();
      }
    }
    long leaseUntil = saturatedAdd(now, leaseMillis);
    long token = nextToken;
    applyBegin(id, fingerprint, token, now, leaseUntil);
    ByteBuffer b = ByteBuffer.allocate(8 + 8 + 8 + 2 + id.length + 1 + fingerprint.length);
    b.putLong(now).putLong(token).putLong(leaseUntil);
    b.putShort((short) id.length).put(id).put((byte) fingerprint.length).put(fingerprint);
    store.record(BEGIN, b.array(), List.of());
    return new Started(token, leaseUntil);
  }

  /**
   * Stores the result of the key the token holds, and frees its lease: true; false if the token no
   * longer holds the key (another caller took it over, or it was abandoned or completed).
   *
   * @throws IllegalArgumentException if the result is over the table's {@link
   *     Settings#maxResultBytes}
   */
  public boolean complete(ClaimStore store, byte[] id, long token, byte[] result, long now) {
    checkId(id);
    if (result.length > settings.maxResultBytes()) {
      throw new IllegalArgumentException(
          "the result is "
              + result.length
              + " bytes, over the table's MAXRESULT of "
              + settings.maxResultBytes());
    }
    Lease l = pending.get(new Id(id));
    if (l == null || l.token() != token) {
      return false;
    }
    long slice = applyComplete(l, now);
    ByteBuffer row = ByteBuffer.allocate(2 + l.fingerprint().length + 16 + result.length);
    row.put((byte) ROW_FORMAT).put((byte) l.fingerprint().length).put(l.fingerprint());
    row.putLong(l.began()).putLong(now).put(result);
    ByteBuffer b = ByteBuffer.allocate(8 + 8 + 2 + id.length);
    b.putLong(now).putLong(token).putShort((short) id.length).put(id);
    store.record(COMPLETE, b.array(), List.of(new RowChange.Put(rowKey(slice, id), row.array())));
    return true;
  }

  /** Frees the key the token holds, so the next begin starts it: false if the token does not. */
  public boolean abandon(ClaimStore store, byte[] id, long token) {
    checkId(id);
    Lease l = pending.get(new Id(id));
    if (l == null || l.token() != token) {
      return false;
    }
    remove(l);
    ByteBuffer b = ByteBuffer.allocate(8 + 2 + id.length);
    b.putLong(token).putShort((short) id.length).put(id);
    store.record(ABANDON, b.array(), List.of());
    return true;
  }

  /** The key's lease if it is in progress at {@code now}, else null. */
  public @Nullable Lease inProgress(byte[] id, long now) {
    Lease l = pending.get(new Id(id));
    return l != null && l.leaseUntil() > now ? l : null;
  }

  /** The key's stored result if it is done and within the retention at {@code now}, else null. */
  public @Nullable Completed done(ClaimStore store, byte[] id, long now) {
    checkId(id);
    Hash128 h = new Hash128().hash(id);
    long from = slices.floorAt(now);
    for (Map.Entry<Long, TimeSlices.Slice> e : slices.live().tailMap(from, true).entrySet()) {
      MembershipFilter f = e.getValue().filter();
      if (f != null && f.mightContain(h.h1(), h.h2())) {
        byte[] row = store.row(rowKey(e.getKey(), id));
        if (row != null) {
          return parseRow(row);
        }
      }
    }
    return null;
  }

  /** Keys in progress at {@code now}. */
  public int inProgressCount(long now) {
    return byLeaseEnd.tailSet(new Lease(new byte[0], new byte[0], Long.MAX_VALUE, 0, now)).size();
  }

  /** Up to {@code count} keys in progress at {@code now}, the soonest lease end first. */
  public List<Lease> inProgress(long now, int count) {
    List<Lease> out = new ArrayList<>(Math.min(count, 1024));
    for (Lease l :
        byLeaseEnd.tailSet(new Lease(new byte[0], new byte[0], Long.MAX_VALUE, 0, now))) {
      if (out.size() >= count) {
        break;
      }
      out.add(l);
    }
    return out;
  }

  /** Keys done in the live slices (those completed within about the retention). */
  public long doneCount() {
    return slices.items();
  }

  // ---- the window

  /**
   * Whether {@link #advance} has work at {@code now}: a slice out of the retention, or a lease that
   * ran out more than a slice ago.
   */
  public boolean advanceDue(long now) {
    if (slices.advanceDue(now)) {
      return true;
    }
    return !byLeaseEnd.isEmpty() && byLeaseEnd.first().leaseUntil() <= now - slices.sliceMillis();
  }

  /** When {@link #advanceDue} next becomes true, if nothing changes before. */
  public long nextAdvanceMillis() {
    long nextDrop =
        saturatedAdd((slices.floor() + 1) * slices.sliceMillis(), params.windowMillis());
    if (byLeaseEnd.isEmpty()) {
      return nextDrop;
    }
    return Math.min(nextDrop, saturatedAdd(byLeaseEnd.first().leaseUntil(), slices.sliceMillis()));
  }

  /**
   * Drops the slices out of the retention at {@code now} (their rows by a range) and the leases
   * that ran out by then, recorded as op ADVANCE; false if there was nothing to do.
   */
  public boolean advance(ClaimStore store, long now) {
    if (!advanceDue(now)) {
      return false;
    }
    long floor = Math.max(slices.floor(), slices.floorAt(now));
    applyAdvance(floor, now);
    ByteBuffer b = ByteBuffer.allocate(16).putLong(floor).putLong(now);
    store.record(
        ADVANCE,
        b.array(),
        List.of(new RowChange.DeleteRange(ExactTable.sliceKey(0), ExactTable.sliceKey(floor))));
    return true;
  }

  // ---- replay

  /**
   * Applies a recorded operation to the memory part of the table, as the call that recorded it did:
   * the rows it changed are stored already.
   *
   * @throws IOException if the payload is not such an operation
   */
  public void replay(byte op, byte[] payload) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(payload);
    try {
      switch (op) {
        case BEGIN -> {
          long now = b.getLong();
          long token = b.getLong();
          long leaseUntil = b.getLong();
          byte[] id = bytes(b, b.getShort() & 0xffff, MAX_ID_BYTES);
          byte[] fp = bytes(b, b.get() & 0xff, MAX_FINGERPRINT_BYTES);
          if (id.length == 0 || token < 1 || leaseUntil < now) {
            throw new IOException("corrupt idempotency BEGIN");
          }
          applyBegin(id, fp, token, now, leaseUntil); // a take-over if the key is held
        }
        case COMPLETE -> {
          long now = b.getLong();
          long token = b.getLong();
          byte[] id = bytes(b, b.getShort() & 0xffff, MAX_ID_BYTES);
          Lease l = pending.get(new Id(id));
          if (l == null || l.token() != token) {
            throw new IOException("idempotency COMPLETE of a key its token does not hold");
          }
          applyComplete(l, now);
        }
        case ABANDON -> {
          long token = b.getLong();
          byte[] id = bytes(b, b.getShort() & 0xffff, MAX_ID_BYTES);
          Lease l = pending.get(new Id(id));
          if (l == null || l.token() != token) {
            throw new IOException("idempotency ABANDON of a key its token does not hold");
          }
          remove(l);
        }
        case ADVANCE -> {
          long floor = b.getLong();
          long now = b.getLong();
          if (floor < slices.floor()) {
            throw new IOException("idempotency ADVANCE back to slice " + floor);
          }
          applyAdvance(floor, now);
        }
        default -> throw new IOException("unknown idempotency operation " + op);
      }
    } catch (java.nio.BufferUnderflowException e) {
      throw new IOException("truncated idempotency operation " + op, e);
    }
    if (b.hasRemaining()) {
      throw new IOException(
          "idempotency operation " + op + " with " + b.remaining() + " extra bytes");
    }
  }

  // ---- changes, shared by the commands and replay

  private void applyBegin(byte[] id, byte[] fp, long token, long now, long leaseUntil) {
    Id key = new Id(id);
    Lease old = pending.get(key);
    if (old != null) {
      remove(old);
    } else if (pending.size() >= settings.maxPending()) {
      // Refused before anything changes; else the lapsed leases make room, on replay too.
      if (byLeaseEnd.first().leaseUntil() > now) {
        throw new TooManyInProgressException(settings.maxPending());
      }
      dropLapsed(now);
    }
    Lease l = new Lease(id, fp, token, now, leaseUntil);
    pending.put(key, l);
    byLeaseEnd.add(l);
    pendingBytes += LEASE_OVERHEAD_BYTES + id.length + fp.length;
    nextToken = Math.max(nextToken, token + 1);
  }

  /** Frees the lease and files the id under the slice of {@code now}: that slice. */
  private long applyComplete(Lease l, long now) {
    remove(l);
    long slice = Math.max(slices.sliceOf(now), slices.floor());
    TimeSlices.Slice s = slices.findOrAdd(slice, () -> SliceFilters.create(params, storage));
    Hash128 h = new Hash128().hash(l.id());
    MembershipFilter f = s.filter();
    if (f != null) {
      f.add(h.h1(), h.h2());
    }
    s.items++;
    return slice;
  }

  private void applyAdvance(long floor, long now) {
    slices.dropBelow(floor);
    dropLapsed(now);
  }

  private void dropLapsed(long now) {
    for (Iterator<Lease> it = byLeaseEnd.iterator(); it.hasNext(); ) {
      Lease l = it.next();
      if (l.leaseUntil() > now) {
        break;
      }
      it.remove();
      pending.remove(new Id(l.id()));
      pendingBytes -= LEASE_OVERHEAD_BYTES + l.id().length + l.fingerprint().length;
    }
  }

  private void remove(Lease l) {
    pending.remove(new Id(l.id()));
    byLeaseEnd.remove(l);
    pendingBytes -= LEASE_OVERHEAD_BYTES + l.id().length + l.fingerprint().length;
  }

  // ---- rows

  /** A done key's row: its completion's slice, then the id. */
  public static byte[] rowKey(long slice, byte[] id) {
    return ByteBuffer.allocate(8 + id.length).putLong(slice).put(id).array();
  }

  /**
   * A done row's fields.
   *
   * @throws CorruptRowsException if the bytes are not such a row
   */
  public static Completed parseRow(byte[] row) {
    try {
      ByteBuffer b = ByteBuffer.wrap(row);
      if (b.get() != ROW_FORMAT) {
        throw new CorruptRowsException();
      }
      byte[] fp = new byte[b.get() & 0xff];
      b.get(fp);
      long began = b.getLong();
      long completed = b.getLong();
      byte[] result = new byte[b.remaining()];
      b.get(result);
      return new Completed(fp, began, completed, result);
    } catch (java.nio.BufferUnderflowException e) {
      throw new CorruptRowsException();
    }
  }

  // ---- recipe and snapshot

  /** The bytes that make this table again, empty: its settings and creation time. */
  public byte[] recipe() {
    return ByteBuffer.allocate(RECIPE_BYTES)
        .put((byte) RECIPE_VERSION)
        .putLong(settings.retentionMillis())
        .putInt(settings.slices())
        .putLong(settings.capacity())
        .putInt(settings.maxResultBytes())
        .putInt(settings.maxPending())
        .putLong(settings.leaseMillis())
        .putLong(createdMillis)
        .array();
  }

  /**
   * The empty table of a recipe.
   *
   * @throws IOException if the bytes are not a recipe, or their settings are out of bounds
   */
  public static IdempotencyTable fromRecipe(byte[] recipe, BloomFilter.Storage storage)
      throws IOException {
    if (recipe.length != RECIPE_BYTES || recipe[0] != RECIPE_VERSION) {
      throw new IOException("not an idempotency table's recipe");
    }
    ByteBuffer b = ByteBuffer.wrap(recipe, 1, RECIPE_BYTES - 1);
    Settings s =
        new Settings(b.getLong(), b.getInt(), b.getLong(), b.getInt(), b.getInt(), b.getLong());
    long created = b.getLong();
    String problem = s.problem();
    if (problem != null || created < 0) {
      throw new IOException("idempotency table recipe out of bounds: " + problem);
    }
    return new IdempotencyTable(s, created, storage);
  }

  /** Writes the memory part (the rows are the store's): see {@link #readFrom}. */
  public void writeTo(OutputStream os) throws IOException {
    DataOutputStream out = new DataOutputStream(os);
    out.writeByte(SNAPSHOT_VERSION);
    out.write(recipe());
    out.writeLong(slices.floor());
    out.writeLong(nextToken);
    Map<Long, TimeSlices.Slice> live = slices.live();
    out.writeInt(live.size());
    for (Map.Entry<Long, TimeSlices.Slice> e : live.entrySet()) {
      out.writeLong(e.getKey());
      out.writeLong(e.getValue().items());
      out.flush();
      MembershipFilter f = e.getValue().filter();
      if (f == null) {
        throw new IllegalStateException("an idempotency slice without its filter");
      }
      f.writeTo(os);
    }
    out.writeInt(byLeaseEnd.size());
    for (Lease l : byLeaseEnd) {
      out.writeShort(l.id().length);
      out.write(l.id());
      out.writeByte(l.fingerprint().length);
      out.write(l.fingerprint());
      out.writeLong(l.token());
      out.writeLong(l.began());
      out.writeLong(l.leaseUntil());
    }
    out.flush();
  }

  /**
   * Reads what {@link #writeTo} wrote.
   *
   * @param maxBytes the most memory the table may take: a snapshot asking more is refused
   * @throws IOException if the bytes are not such a snapshot, or ask more than {@code maxBytes}
   */
  public static IdempotencyTable readFrom(
      InputStream is, long maxBytes, BloomFilter.Storage storage) throws IOException {
    DataInputStream in = new DataInputStream(is);
    int version = in.readUnsignedByte();
    if (version != SNAPSHOT_VERSION) {
      throw new IOException(
          "idempotency snapshot version " + version + ", this Idem reads " + SNAPSHOT_VERSION);
    }
    byte[] recipe = new byte[RECIPE_BYTES];
    in.readFully(recipe);
    IdempotencyTable t = fromRecipe(recipe, storage);
    long floor = in.readLong();
    if (floor < t.slices.base()) {
      throw new IOException("idempotency snapshot floor " + floor + " is before the table began");
    }
    t.slices.dropBelow(floor);
    long token = in.readLong();
    if (token < t.nextToken) {
      throw new IOException("idempotency snapshot's next token is before the table's first");
    }
    t.nextToken = token;
    int n = in.readInt();
    if (n < 0 || n > TimeSlices.maxLive(t.params)) {
      throw new IOException("idempotency snapshot with " + n + " live slices");
    }
    long budget = maxBytes;
    for (int i = 0; i < n; i++) {
      long index = in.readLong();
      long items = in.readLong();
      if (index < floor || items < 0) {
        throw new IOException("corrupt idempotency snapshot slice " + index);
      }
      ScalableBloomFilter f = ScalableBloomFilter.readFrom(in, budget, storage);
      budget -= f.sizeInBytes();
      if (!t.slices.restore(index, f, items)) {
        throw new IOException("corrupt idempotency snapshot: slice " + index + " twice");
      }
    }
    int leases = in.readInt();
    if (leases < 0 || leases > t.settings.maxPending()) {
      throw new IOException("idempotency snapshot with " + leases + " keys in progress");
    }
    for (int i = 0; i < leases; i++) {
      byte[] id = new byte[in.readUnsignedShort()];
      in.readFully(id);
      byte[] fp = new byte[in.readUnsignedByte()];
      in.readFully(fp);
      long leaseToken = in.readLong();
      long began = in.readLong();
      long leaseUntil = in.readLong();
      if (id.length == 0
          || id.length > MAX_ID_BYTES
          || fp.length > MAX_FINGERPRINT_BYTES
          || leaseToken < 1
          || leaseToken >= t.nextToken
          || leaseUntil < began
          || t.pending.containsKey(new Id(id))) {
        throw new IOException("corrupt idempotency snapshot: key in progress " + i);
      }
      budget -= LEASE_OVERHEAD_BYTES + id.length + fp.length;
      if (budget < 0) {
        throw new IOException("idempotency snapshot larger than the memory it may take");
      }
      Lease l = new Lease(id, fp, leaseToken, began, leaseUntil);
      t.pending.put(new Id(id), l);
      t.byLeaseEnd.add(l);
      t.pendingBytes += LEASE_OVERHEAD_BYTES + id.length + fp.length;
    }
    return t;
  }

  /** Heap bytes: the slices' filters and the keys in progress. */
  public long memoryBytes() {
    return 128 + slices.memoryBytes() + pendingBytes;
  }

  // ---- checks

  private static void checkId(byte[] id) {
    if (id.length == 0 || id.length > MAX_ID_BYTES) {
      throw new IllegalArgumentException("an id is 1 to " + MAX_ID_BYTES + " bytes");
    }
  }

  private static void checkFingerprint(byte[] fp) {
    if (fp.length > MAX_FINGERPRINT_BYTES) {
      throw new IllegalArgumentException(
          "a fingerprint is at most " + MAX_FINGERPRINT_BYTES + " bytes");
    }
  }

  private static byte[] bytes(ByteBuffer b, int n, int max) throws IOException {
    if (n > max) {
      throw new IOException("idempotency operation with a field of " + n + " bytes");
    }
    byte[] out = new byte[n];
    b.get(out);
    return out;
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }
}
