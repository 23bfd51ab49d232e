package io.idem.core.dedup;

import io.idem.core.dedup.DedupTable.Mode;
import io.idem.core.dedup.DedupTable.Params;
import io.idem.core.filter.BloomFilter;
import io.idem.core.filter.CuckooFilter;
import io.idem.core.filter.MembershipFilter;
import io.idem.core.filter.ScalableBloomFilter;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/**
 * A dedup table at rest: its recipe (what makes the empty table again) and its snapshot (what it
 * holds in memory). An EXACT table's rows are its store's, not in either.
 *
 * <p>Recipe (big-endian): u8 mode (0 exact, 1 filter, 2 recent) | u64 window millis | u32 slices |
 * u64 capacity | f64 error rate | u64 slots | u64 slice the table was created in | u8 row bucket
 * bits (EXACT: a slice's rows are its claims by that many top bits of their id hash). Tables made
 * before rows were packed have no last byte: FILTER and RECENT ones are still read (they have no
 * rows), EXACT ones are refused.
 *
 * <p>Snapshot, version 3: u8 3 | recipe | u64 floor | u32 live slices | per slice: u64 index | u64
 * items | u8 filter kind (0 none, 1 scalable Bloom, 2 cuckoo) | the filter in its own format | by
 * mode: recent u64 slot count, then three u64 per slot; exact u8 arenas (1 or 2: the claims being
 * written, then the pending) | per arena u32 bytes | the claims as {@link PendingClaims} lays them
 * out, released ones included. Version 2 had the recipe without its last byte, and version 1 also
 * no kind 2 (FILTER slices were Bloom filters then); both are read, but for EXACT tables.
 */
public final class DedupSnapshot {

  public static final int RECIPE_BYTES = 1 + 8 + 4 + 8 + 8 + 8 + 8 + 1;

  /** The recipe before EXACT rows were packed: without the bucket bits. */
  public static final int UNPACKED_RECIPE_BYTES = RECIPE_BYTES - 1;

  private static final int VERSION = 3;
  private static final int NO_FILTER = 0;
  private static final int BLOOM = 1;
  private static final int CUCKOO = 2;

  private DedupSnapshot() {}

  /** The recipe of a new table with these parameters, created in {@code createdSlice}. */
  public static byte[] recipe(Params p, long createdSlice) {
    return recipe(p, createdSlice, ExactTable.rowBucketBits(p));
  }

  /** The table's recipe. */
  public static byte[] recipe(DedupTable t) {
    return recipe(t.params, t.slices.base(), t.bucketBits);
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

  /**
   * The empty table a recipe makes.
   *
   * @throws IOException if the recipe is not one {@link #recipe} writes, or its parameters fail
   *     {@link DedupLimits#check}
   */
  public static DedupTable fromRecipe(byte[] recipe, BloomFilter.Storage storage)
      throws IOException {
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
    DedupLimits.Problem bad = DedupLimits.check(p);
    if (bad != null || created < 0) {
      throw new IOException(
          "invalid dedup table: " + (bad != null ? bad.message() : "created slice " + created));
    }
    if (!b.hasRemaining()) {
      if (p.mode() == Mode.EXACT) {
        throw new IOException(
            "an EXACT dedup table from before rows were packed (a row per claim): this Idem cannot"
                + " read its rows; start the Idem that made it, DEL the table, and reserve it again"
                + " here");
      }
      return DedupTable.create(p, created, ExactTable.rowBucketBits(p), storage);
    }
    int bucketBits = b.get();
    if (bucketBits < 0 || bucketBits > 32) {
      throw new IOException("invalid dedup table: " + bucketBits + " row bucket bits");
    }
    return DedupTable.create(p, created, bucketBits, storage);
  }

  /**
   * Writes the table's snapshot; without {@code pending}, an EXACT table's claims not yet written
   * as rows are left out (a digest adds every holder itself).
   */
  public static void write(DedupTable t, OutputStream os, boolean pending) throws IOException {
    DataOutputStream out = new DataOutputStream(os);
    out.writeByte(VERSION);
    out.write(recipe(t));
    out.writeLong(t.slices.floor());
    Map<Long, TimeSlices.Slice> live = t.slices.live();
    out.writeInt(live.size());
    for (Map.Entry<Long, TimeSlices.Slice> e : live.entrySet()) {
      out.writeLong(e.getKey());
      out.writeLong(e.getValue().items());
      MembershipFilter f = e.getValue().filter();
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
    if (t instanceof RecentTable r) {
      long[] slots = r.slots();
      out.writeLong(slots.length / 3);
      for (long v : slots) {
        out.writeLong(v);
      }
    }
    if (t instanceof ExactTable e && pending) {
      List<PendingClaims> unwritten = e.unwritten();
      out.writeByte(unwritten.size());
      for (PendingClaims p : unwritten) {
        p.writeTo(out);
      }
    }
    out.flush();
  }

  /**
   * Reads a snapshot {@link #write} wrote with its pending claims.
   *
   * @param maxBytes the most memory the table may take: a snapshot asking more is refused
   * @throws IOException if the bytes are not such a snapshot, or ask more than {@code maxBytes}
   */
  public static DedupTable read(InputStream is, long maxBytes, BloomFilter.Storage storage)
      throws IOException {
    DataInputStream in = new DataInputStream(is);
    int version = in.readUnsignedByte();
    if (version < 1 || version > VERSION) {
      throw new IOException(
          "dedup snapshot version " + version + ", this Idem reads 1 to " + VERSION);
    }
    byte[] recipe = new byte[version >= 3 ? RECIPE_BYTES : UNPACKED_RECIPE_BYTES];
    in.readFully(recipe);
    long slotCount = ByteBuffer.wrap(recipe, 29, 8).getLong();
    if (slotCount < 0 || slotCount > maxBytes / RecentTable.SLOT_BYTES) {
      throw new IOException("dedup snapshot with " + slotCount + " slots, more than it may hold");
    }
    DedupTable t = fromRecipe(recipe, storage);
    long floor = in.readLong();
    if (floor < t.slices.base()) {
      throw new IOException("dedup snapshot floor " + floor + " is before the table began");
    }
    t.slices.dropBelow(floor);
    int n = in.readInt();
    if (n < 0 || n > TimeSlices.maxLive(t.params)) {
      throw new IOException(
          "dedup snapshot with " + n + " live slices, more than the window holds");
    }
    long budget = maxBytes;
    for (int i = 0; i < n; i++) {
      long index = in.readLong();
      long items = in.readLong();
      int kind = in.readUnsignedByte();
      boolean kindFits =
          t instanceof RecentTable
              ? kind == NO_FILTER
              : kind == BLOOM || kind == CUCKOO && version >= 2 && t instanceof FilterTable;
      if (index < floor || items < 0 || !kindFits) {
        throw new IOException("corrupt dedup snapshot slice " + index);
      }
      MembershipFilter f =
          switch (kind) {
            case BLOOM -> ScalableBloomFilter.readFrom(in, budget, storage);
            case CUCKOO -> CuckooFilter.readFrom(in, budget);
            default -> null;
          };
      if (f != null) {
        budget -= f.sizeInBytes();
      }
      if (!t.slices.restore(index, f, items)) {
        throw new IOException("corrupt dedup snapshot: slice " + index + " twice");
      }
    }
    if (t instanceof RecentTable r) {
      long[] slots = r.slots();
      long count = in.readLong();
      if (count * 3 != slots.length) {
        throw new IOException(
            "dedup snapshot with " + count + " slots, the table has " + slots.length / 3);
      }
      for (int i = 0; i < slots.length; i++) {
        slots[i] = in.readLong();
      }
    }
    if (t instanceof ExactTable e) {
      int arenas = in.readUnsignedByte();
      if (arenas > 2) {
        throw new IOException("dedup snapshot with " + arenas + " sets of pending claims");
      }
      for (int i = 0; i < arenas; i++) {
        e.pending.readFrom(in, budget, t.slices.floor());
      }
    }
    return t;
  }
}
