package io.idem.core.dedup;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * What an EXACT table's row holds: the claims of one slice whose id hashes share their top bits, as
 * a run of chunks, one per append (a background write's claims of the row, or a release).
 *
 * <pre>
 * chunk    u8 kind (0 claims, 1 releases) | u32 n | n x u16 id length | the n ids |
 *          claims only: n x u8 bytes shared with the owner before | n x u8 bytes not shared |
 *          the n owners' unshared bytes
 * </pre>
 *
 * <p>A chunk is columnar and its claims are sorted by owner, each owner stored as what it does not
 * share with the one before: ids are random bytes, but lengths repeat and owners (Kafka partition
 * and offset, say) share long prefixes, which the store's compression then finds. The last record
 * of an id in the row says who holds it.
 */
final class ClaimRows {

  private static final int CLAIMS = 0;
  private static final int RELEASES = 1;

  private ClaimRows() {}

  /** The chunk of these claims (distinct ids), in any order. */
  static byte[] claims(byte[][] ids, byte[][] owners) {
    int n = ids.length;
    Integer[] order = new Integer[n];
    int bytes = 5;
    for (int i = 0; i < n; i++) {
      order[i] = i;
      bytes += 4 + ids[i].length + owners[i].length;
    }
    Arrays.sort(order, (a, b) -> Arrays.compareUnsigned(owners[a], owners[b]));
    ByteArrayOutputStream out = new ByteArrayOutputStream(bytes);
    out.write(CLAIMS);
    writeInt(out, n);
    for (int i : order) {
      out.write(ids[i].length >>> 8);
      out.write(ids[i].length);
    }
    for (int i : order) {
      out.writeBytes(ids[i]);
    }
    byte[] before = new byte[0];
    int[] shared = new int[n];
    for (int k = 0; k < n; k++) {
      byte[] owner = owners[order[k]];
      int m = Arrays.mismatch(before, owner);
      shared[k] = m < 0 ? owner.length : m;
      out.write(shared[k]);
      before = owner;
    }
    for (int k = 0; k < n; k++) {
      out.write(owners[order[k]].length - shared[k]);
    }
    for (int k = 0; k < n; k++) {
      byte[] owner = owners[order[k]];
      out.write(owner, shared[k], owner.length - shared[k]);
    }
    return out.toByteArray();
  }

  /** The chunk that releases the id. */
  static byte[] release(byte[] id) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(7 + id.length);
    out.write(RELEASES);
    writeInt(out, 1);
    out.write(id.length >>> 8);
    out.write(id.length);
    out.writeBytes(id);
    return out.toByteArray();
  }

  private static void writeInt(ByteArrayOutputStream out, int v) {
    out.write(v >>> 24);
    out.write(v >>> 16);
    out.write(v >>> 8);
    out.write(v);
  }

  /** A checked chunk's columns: where each starts in the row, and where the chunk ends. */
  private record Chunk(int kind, int n, int lengths, int ids, int shared, int rests, int end) {
    int idLength(byte[] row, int k) {
      return (row[lengths + 2 * k] & 0xff) << 8 | row[lengths + 2 * k + 1] & 0xff;
    }
  }

  /**
   * The chunk at offset i, its lengths checked against the row.
   *
   * @throws CorruptRowsException if it is not a chunk (a corrupt store)
   */
  private static Chunk chunkAt(byte[] row, int i) {
    int kind = row[i];
    if (kind != CLAIMS && kind != RELEASES || row.length - i < 5) {
      throw corrupt();
    }
    long n =
        (row[i + 1] & 0xffL) << 24
            | (row[i + 2] & 0xff) << 16
            | (row[i + 3] & 0xff) << 8
            | row[i + 4] & 0xff;
    i += 5;
    if (n * 2 > row.length - i) {
      throw corrupt();
    }
    int lengths = i;
    i += (int) n * 2;
    int ids = i;
    for (int k = 0; k < n; k++) {
      int len = (row[lengths + 2 * k] & 0xff) << 8 | row[lengths + 2 * k + 1] & 0xff;
      if (len > DedupLimits.MAX_ID_BYTES || len > row.length - i) {
        throw corrupt();
      }
      i += len;
    }
    if (kind == RELEASES) {
      return new Chunk(kind, (int) n, lengths, ids, -1, -1, i);
    }
    if (n * 2 > row.length - i) {
      throw corrupt();
    }
    int shared = i;
    int rests = i + (int) n;
    i += (int) n * 2;
    int before = 0; // the length of the owner before
    for (int k = 0; k < n; k++) {
      int keep = row[shared + k] & 0xff;
      int rest = row[rests + k] & 0xff;
      if (keep > before || keep + rest > DedupLimits.MAX_OWNER_BYTES || rest > row.length - i) {
        throw corrupt();
      }
      before = keep + rest;
      i += rest;
    }
    return new Chunk(kind, (int) n, lengths, ids, shared, rests, i);
  }

  /**
   * Who the row says holds the id: the owner in its last record of the id, null if there is none or
   * it is a release.
   *
   * @throws CorruptRowsException if the row is not a run of chunks (a corrupt store)
   */
  static byte @Nullable [] holderIn(byte[] row, byte[] id) {
    byte[] holder = null;
    for (int i = 0; i < row.length; ) {
      Chunk c = chunkAt(row, i);
      int found = -1;
      for (int k = 0, at = c.ids(); k < c.n(); k++) {
        int len = c.idLength(row, k);
        if (len == id.length && Arrays.equals(row, at, at + len, id, 0, len)) {
          found = k;
        }
        at += len;
      }
      if (found >= 0) {
        holder = c.kind() == RELEASES ? null : ownerAt(row, c.shared(), c.rests(), found, c.n());
      }
      i = c.end();
    }
    return holder;
  }

  /**
   * Every record of the row, in order: each claim's id and owner, each release's id and null.
   *
   * @throws CorruptRowsException if the row is not a run of chunks (a corrupt store)
   */
  static void records(byte[] row, BiConsumer<byte[], byte @Nullable []> visit) {
    for (int i = 0; i < row.length; ) {
      Chunk c = chunkAt(row, i);
      int ownerBytes = c.rests() + c.n(); // where the owners' unshared bytes start
      byte[] before = new byte[0];
      for (int k = 0, at = c.ids(); k < c.n(); k++) {
        int len = c.idLength(row, k);
        byte[] id = Arrays.copyOfRange(row, at, at + len);
        at += len;
        if (c.kind() == RELEASES) {
          visit.accept(id, null);
          continue;
        }
        int keep = row[c.shared() + k] & 0xff;
        int rest = row[c.rests() + k] & 0xff;
        byte[] owner = Arrays.copyOf(before, keep + rest);
        System.arraycopy(row, ownerBytes, owner, keep, rest);
        ownerBytes += rest;
        before = owner;
        visit.accept(id, owner);
      }
      i = c.end();
    }
  }

  /** Rebuilds owner k of a checked claims chunk from its columns. */
  private static byte[] ownerAt(byte[] row, int shared, int rests, int k, int n) {
    byte[] owner = new byte[DedupLimits.MAX_OWNER_BYTES];
    int length = 0;
    int at = rests + n;
    for (int j = 0; j <= k; j++) {
      int rest = row[rests + j] & 0xff;
      length = (row[shared + j] & 0xff) + rest; // keeps the first bytes of the one before
      System.arraycopy(row, at, owner, length - rest, rest);
      at += rest;
    }
    return Arrays.copyOf(owner, length);
  }

  private static CorruptRowsException corrupt() {
    return new CorruptRowsException();
  }
}
