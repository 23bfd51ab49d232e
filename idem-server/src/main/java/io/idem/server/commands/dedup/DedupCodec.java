package io.idem.server.commands.dedup;

import io.idem.core.dedup.PendingClaims;
import io.idem.core.filter.CuckooFilter;
import io.idem.core.filter.MembershipFilter;
import io.idem.core.filter.ScalableBloomFilter;
import io.idem.core.store.RowChange;
import io.idem.server.commands.bloom.BloomCodec;
import io.idem.server.commands.dedup.DedupTable.Mode;
import io.idem.server.commands.dedup.DedupTable.Params;
import io.idem.server.engine.Engine;
import io.idem.server.engine.Entry;
import io.idem.server.engine.Rows;
import io.idem.server.engine.ValueCodec;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/**
 * How the engine keeps dedup tables durable. The resident part (slice filters, recent slots,
 * counts) is snapshotted and logged. An exact table's claims are logged whole, so the reply waits
 * for one log record per command, and kept pending in memory; the background writes them as rows (a
 * slice's claims packed by id hash, see {@link DedupTable}) and drops them from memory. Until then
 * they are in every snapshot, and replay makes logged ones pending again: writing a row twice is
 * harmless.
 *
 * <p>Recipe (big-endian): u8 mode (0 exact, 1 filter, 2 recent) | u64 window millis | u32 slices |
 * u64 capacity | f64 error rate | u64 slots | u64 slice the table was created in | u8 row bucket
 * bits (EXACT: a slice's rows are its claims by that many top bits of their id hash). Tables made
 * before rows were packed have no last byte: FILTER and RECENT ones are still read (they have no
 * rows), EXACT ones are refused.
 *
 * <p>Operations:
 *
 * <pre>
 * op  name     payload (big-endian)
 * 1   CLAIM    per new claim: u64 slice, then by mode: exact u16 n | n bytes id | u8 m | m
 *              bytes owner; filter u64 h1 | u64 h2; recent u64 h1 | u64 h2 | i32 owner hash
 * 2   RELEASE  exact: u64 slice | u64 h1 | u64 h2 | u16 n | id, with the release's record
 *              appended to the row;
 *              recent: u64 h1 | u64 h2
 * 3   ADVANCE  u64 the new lowest live slice (older ones dropped, their rows range-deleted)
 * 4   ROWS     nothing resident: release records that undo a background write's races
 * </pre>
 *
 * <p>Snapshot, version 3: u8 3 | recipe | u64 floor | u32 live slices | per slice: u64 index | u64
 * items | u8 filter kind (0 none, 1 scalable Bloom, 2 cuckoo) | the filter in its own format | by
 * mode: recent u64 slot count, then three u64 per slot; exact u8 arenas (1 or 2: the claims being
 * written, then the pending) | per arena u32 bytes | the claims as {@link PendingClaims} lays them
 * out, released ones included. Version 2 had the recipe without its last byte, and version 1 also
 * no kind 2 (FILTER slices were Bloom filters then); both are read, but for EXACT tables.
 */
public final class DedupCodec implements ValueCodec<DedupTable> {

  public static final DedupCodec INSTANCE = new DedupCodec();

  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(DedupCodec.class);

  static final byte TYPE_ID = 16;
  static final byte OP_CLAIM = 1;
  static final byte OP_RELEASE = 2;
  static final byte OP_ADVANCE = 3;
  static final byte OP_ROWS = 4;
  private static final int SNAPSHOT_VERSION = 3;
  private static final int NO_FILTER = 0;
  private static final int BLOOM = 1;
  private static final int CUCKOO = 2;
  static final int RECIPE_BYTES = 1 + 8 + 4 + 8 + 8 + 8 + 8 + 1;

  /** The recipe before EXACT rows were packed: without the bucket bits. */
  static final int UNPACKED_RECIPE_BYTES = RECIPE_BYTES - 1;

  private DedupCodec() {}

  @Override
  public byte typeId() {
    return TYPE_ID;
  }

  @Override
  public String typeName() {
    return "dedup";
  }

  @Override
  public Class<DedupTable> valueClass() {
    return DedupTable.class;
  }

  @Override
  public boolean hasRows() {
    return true;
  }

  static byte[] recipe(Params p, long createdSlice) {
    return recipe(p, createdSlice, DedupTable.rowBucketBits(p));
  }

  static byte[] recipe(Params p, long createdSlice, int bucketBits) {
    return ByteBuffer.allocate(RECIPE_BYTES)
        .put((byte) p.mode().ordinal())
        .putLong(p.windowMillis())
        .putInt(p.slices())
        .putLong(p.capacity())
        .putDouble(p.errorRate())
        .putLong(p.slots())
        .putLong(createdSlice)
        .put((byte) bucketBits)
        .array();
  }

  @Override
  public DedupTable create(byte[] recipe) throws IOException {
    if (recipe.length != RECIPE_BYTES && recipe.length != UNPACKED_RECIPE_BYTES) {
      throw new IOException("dedup recipe of " + recipe.length + " bytes, not " + RECIPE_BYTES);
    }
    ByteBuffer b = ByteBuffer.wrap(recipe);
    int mode = b.get();
    if (mode < 0 || mode >= Mode.values().length) {
      throw new IOException("unknown dedup mode " + mode);
    }
    Params p =
        new Params(
            Mode.values()[mode], b.getLong(), b.getInt(), b.getLong(), b.getDouble(), b.getLong());
    long created = b.getLong();
    String bad = DedupArgs.check(p);
    if (bad != null || created < 0) {
      throw new IOException(
          "invalid dedup table: " + (bad != null ? bad : "created slice " + created));
    }
    if (!b.hasRemaining()) {
      if (p.mode() == Mode.EXACT) {
        throw new IOException(
            "an EXACT dedup table from before rows were packed (a row per claim): this Idem cannot"
                + " read its rows; start the Idem that made it, DEL the table, and reserve it again"
                + " here");
      }
      return new DedupTable(p, created);
    }
    int bucketBits = b.get();
    if (bucketBits < 0 || bucketBits > 32) {
      throw new IOException("invalid dedup table: " + bucketBits + " row bucket bits");
    }
    return new DedupTable(p, created, bucketBits);
  }

  @Override
  public void apply(DedupTable t, byte op, byte[] payload) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(payload);
    try {
      switch (op) {
        case OP_CLAIM -> {
          if (payload.length == 0) {
            throw new IOException("empty CLAIM payload");
          }
          while (b.hasRemaining()) {
            t.replayClaim(b);
          }
        }
        case OP_RELEASE -> t.replayRelease(b);
        case OP_ADVANCE -> t.dropBelow(b.getLong());
        case OP_ROWS -> {
          // rows only: already in the store
        }
        default -> throw new IOException("unknown dedup operation " + op);
      }
    } catch (BufferUnderflowException
        | IndexOutOfBoundsException
        | IllegalArgumentException
        | io.idem.core.filter.FilterFullException
        | io.idem.server.dispatch.CommandException e) {
      throw new IOException("short dedup operation " + op + " of " + payload.length + " bytes", e);
    }
  }

  @Override
  public void write(DedupTable t, OutputStream os) throws IOException {
    write(t, os, true);
  }

  /**
   * The snapshot without the claims not yet written as rows, then, for an exact table, every live
   * slice's holders, id by id in order, from rows and pending claims alike: when a node writes its
   * claims as rows is its own affair, so two nodes holding the same claims may hold them pending or
   * written, in rows packed differently.
   */
  @Override
  public void writeDigest(DedupTable t, long valueId, Rows rows, OutputStream os)
      throws IOException {
    write(t, os, false);
    if (t.params.mode() != Mode.EXACT) {
      return;
    }
    DataOutputStream out = new DataOutputStream(os);
    for (Map.Entry<Long, java.util.TreeMap<byte[], byte[]>> slice :
        t.holders(rows, valueId).entrySet()) {
      out.writeLong(slice.getKey());
      out.writeInt(slice.getValue().size());
      for (Map.Entry<byte[], byte[]> claim : slice.getValue().entrySet()) {
        out.writeShort(claim.getKey().length);
        out.write(claim.getKey());
        out.writeByte(claim.getValue().length);
        out.write(claim.getValue());
      }
    }
    out.flush();
  }

  private void write(DedupTable t, OutputStream os, boolean pending) throws IOException {
    DataOutputStream out = new DataOutputStream(os);
    out.writeByte(SNAPSHOT_VERSION);
    out.write(recipe(t.params, t.base(), t.bucketBits));
    out.writeLong(t.floor());
    Map<Long, DedupTable.Slice> live = t.liveSlices();
    out.writeInt(live.size());
    for (Map.Entry<Long, DedupTable.Slice> e : live.entrySet()) {
      out.writeLong(e.getKey());
      out.writeLong(e.getValue().items);
      MembershipFilter f = e.getValue().filter;
      out.writeByte(
          switch (f) {
            case null -> NO_FILTER;
            case ScalableBloomFilter b -> BLOOM;
            case CuckooFilter c -> CUCKOO;
            default -> throw new IllegalStateException("slice filter " + f.getClass());
          });
      if (f != null) {
        out.flush();
        f.writeTo(os);
      }
    }
    long[] slots = t.slots();
    if (slots != null) {
      out.writeLong(slots.length / 3);
      for (long v : slots) {
        out.writeLong(v);
      }
    }
    if (t.params.mode() == Mode.EXACT && pending) {
      List<PendingClaims> unwritten = t.unwritten();
      out.writeByte(unwritten.size());
      for (PendingClaims p : unwritten) {
        p.writeTo(out);
      }
    }
    out.flush();
  }

  @Override
  public DedupTable read(InputStream is, long maxBytes) throws IOException {
    DataInputStream in = new DataInputStream(is);
    int version = in.readUnsignedByte();
    if (version < 1 || version > SNAPSHOT_VERSION) {
      throw new IOException(
          "dedup snapshot version " + version + ", this Idem reads 1 to " + SNAPSHOT_VERSION);
    }
    byte[] recipe = new byte[version >= 3 ? RECIPE_BYTES : UNPACKED_RECIPE_BYTES];
    in.readFully(recipe);
    long slotCount = ByteBuffer.wrap(recipe, 29, 8).getLong();
    if (slotCount < 0 || slotCount > maxBytes / 24) {
      throw new IOException("dedup snapshot with " + slotCount + " slots, more than it may hold");
    }
    DedupTable t = create(recipe);
    long floor = in.readLong();
    if (floor < t.base()) {
      throw new IOException("dedup snapshot floor " + floor + " is before the table began");
    }
    t.dropBelow(floor);
    int n = in.readInt();
    if (n < 0 || n > DedupTable.maxLiveSlices(t.params)) {
      throw new IOException(
          "dedup snapshot with " + n + " live slices, more than the window holds");
    }
    long budget = maxBytes;
    for (int i = 0; i < n; i++) {
      long index = in.readLong();
      long items = in.readLong();
      int kind = in.readUnsignedByte();
      boolean kindFits =
          t.slots() != null
              ? kind == NO_FILTER
              : kind == BLOOM || kind == CUCKOO && version >= 2 && t.params.mode() == Mode.FILTER;
      if (index < floor || items < 0 || !kindFits) {
        throw new IOException("corrupt dedup snapshot slice " + index);
      }
      MembershipFilter f =
          switch (kind) {
            case BLOOM -> ScalableBloomFilter.readFrom(in, budget, BloomCodec.STORAGE);
            case CUCKOO -> CuckooFilter.readFrom(in, budget);
            default -> null;
          };
      if (f != null) {
        budget -= f.sizeInBytes();
      }
      DedupTable.Slice s = new DedupTable.Slice(f);
      s.items = items;
      if (t.liveSlices().put(index, s) != null) {
        throw new IOException("corrupt dedup snapshot: slice " + index + " twice");
      }
    }
    long[] slots = t.slots();
    if (slots != null) {
      long count = in.readLong();
      if (count * 3 != slots.length) {
        throw new IOException(
            "dedup snapshot with " + count + " slots, the table has " + slots.length / 3);
      }
      for (int i = 0; i < slots.length; i++) {
        slots[i] = in.readLong();
      }
    }
    if (t.params.mode() == Mode.EXACT) {
      int arenas = in.readUnsignedByte();
      if (arenas > 2) {
        throw new IOException("dedup snapshot with " + arenas + " sets of pending claims");
      }
      for (int i = 0; i < arenas; i++) {
        t.pending.readFrom(in, budget, t.floor());
      }
    }
    return t;
  }

  @Override
  public boolean moveWindow(io.idem.server.engine.KeyTx tx, DedupTable t, long now) {
    if (!t.advanceDue(now)) {
      return false;
    }
    t.advance(tx, now);
    return true;
  }

  @Override
  public boolean hasBackgroundWork() {
    return true;
  }

  /**
   * Drops slices that left the window (also for a table nobody claims into) and writes pending
   * claims as rows: take them under the lock, write them without it, then under the lock again log
   * the release records that undo what the write raced with.
   */
  @Override
  @SuppressWarnings("unchecked")
  public long background(Engine engine, Entry entry) {
    DedupTable t = (DedupTable) entry.value();
    Object[] rows = {null};
    boolean[] due = {false};
    Boolean live =
        engine.writeEntry(
            entry,
            tx -> {
              long now = engine.now();
              if (!engine.expiresByLog()) {
                t.advance(tx, now);
              } else {
                due[0] = t.advanceDue(now);
              }
              rows[0] = t.startFlush(now, false);
              return Boolean.TRUE;
            });
    if (live == null) {
      return NEVER;
    }
    if (due[0]) {
      // On a node with a log the window moves at a record's time (WINDOWDUE): moved by this
      // node's clock, a replica catching up would drop slices the log still holds.
      engine.windowByLog(entry);
    }
    List<RowChange> appends = (List<RowChange>) rows[0];
    if (appends == null) {
      return NEXT_ROUND;
    }
    try {
      long t0 = System.nanoTime();
      engine.rows().writeNow(entry.id(), appends);
      log.debug(
          "wrote pending claims to {} rows in {} ms",
          appends.size(),
          (System.nanoTime() - t0) / 1_000_000);
    } catch (RuntimeException e) {
      engine.writeEntry(
          entry,
          tx -> {
            t.abortFlush();
            return Boolean.TRUE;
          });
      throw e;
    }
    return finishWrite(engine, entry, t) ? NEXT_ROUND : NEVER;
  }

  /**
   * The background write's last step, once its rows are in the store: logs what undoes its races,
   * or drops the rows again if the table was deleted meanwhile. Whether the table is still live.
   */
  static boolean finishWrite(Engine engine, Entry entry, DedupTable t) {
    Boolean still =
        engine.writeEntry(
            entry,
            tx -> {
              List<RowChange> fix = t.finishFlush();
              if (!fix.isEmpty()) {
                tx.log(OP_ROWS, new byte[0], fix);
              }
              return Boolean.TRUE;
            });
    if (still == null) {
      engine.rows().dropAll(entry.id()); // deleted while we wrote: its rows go again
      return false;
    }
    return true;
  }

  @Override
  public long memoryUsage(DedupTable t) {
    return t.memoryBytes();
  }
}
