package io.idem.core.dedup;

import java.util.Arrays;

/**
 * An exact table's claims that are in the log but not yet rows in the store: an append-only arena
 * of records with an open-addressing index by the id's hash. Claims land here first, so a claim's
 * reply waits for one log record per command, not a store write per id; the table's background work
 * turns them into rows.
 *
 * <p>Record layout in the arena: u64 slice | u16 id length | id | u8 owner length | owner | u8
 * released (0 no, 1 yes). Not thread-safe: used under the key's lock.
 */
public final class PendingClaims {

  /*
   * The arena is a list of chunks, so it grows without copying what it holds: a doubling array
   * copied every byte again at each step, and two million claims allocated some 300 MB in copies
   * in the benchmark's burst. A record never spans chunks. An offset is the chunk's number over
   * CHUNK_SHIFT bits and the position in it. The first chunk starts small and doubles up to a
   * chunk's size, so a table with few pending claims holds little.
   */
  private static final int CHUNK_SHIFT = 20;
  private static final int CHUNK = 1 << CHUNK_SHIFT;

  /** Offsets are non-negative ints: at most this many chunks (2 GiB). */
  private static final int MAX_CHUNKS = Integer.MAX_VALUE / CHUNK + 1;

  private byte[][] chunks = {new byte[0]};

  /** The bytes used in each full chunk (the last one's are {@link #used}). */
  private int[] fills = new int[1];

  /** The chunk being filled. */
  private int last;

  /** Bytes used in the last chunk. */
  private int used;

  /** Bytes of all chunks, used or not. */
  private long allocated;

  /**
   * Open addressing by the id's hash h1: slot i holds 0 (free) or the high 32 bits of h1 over the
   * record's offset + 1. One array, so a probe is one cache miss; the id itself is compared in the
   * arena only when those 32 bits match. A claim's home slot comes from the same 32 bits, so
   * growing moves entries without reading the arena or hashing an id again.
   */
  private long[] index = new long[0];

  private int count;
  private int released;

  public int count() {
    return count;
  }

  /** Records not released: what will become rows. */
  public int live() {
    return count - released;
  }

  public long bytes() {
    return allocated + index.length * 8L;
  }

  private static long entry(long h1, int off) {
    return (h1 & 0xffff_ffff_0000_0000L) | (off + 1L);
  }

  private static int offsetOf(long entry) {
    return (int) entry - 1;
  }

  /** The slot a hash starts its probe at. */
  private static int home(long h1, int mask) {
    return (int) (h1 >>> 32) & mask;
  }

  private static boolean sameHash(long entry, long h1) {
    return ((entry ^ h1) & 0xffff_ffff_0000_0000L) == 0;
  }

  /** Adds a claim the table found absent; returns its offset. */
  public int add(long slice, long h1, byte[] id, byte[] owner) {
    if ((count + 1) * 2 > index.length) {
      grow();
    }
    int need = 8 + 2 + id.length + 1 + owner.length + 1;
    byte[] c = room(need);
    int p = used;
    int off = last << CHUNK_SHIFT | p;
    putLong(c, p, slice);
    c[p + 8] = (byte) (id.length >>> 8);
    c[p + 9] = (byte) id.length;
    System.arraycopy(id, 0, c, p + 10, id.length);
    int o = p + 10 + id.length;
    c[o] = (byte) owner.length;
    System.arraycopy(owner, 0, c, o + 1, owner.length);
    c[o + 1 + owner.length] = 0;
    used += need;
    insert(entry(h1, off), h1);
    count++;
    return off;
  }

  /**
   * The chunk with room for {@code need} more bytes at {@link #used}: the last one, grown or new.
   */
  private byte[] room(int need) {
    byte[] c = chunks[last];
    if (used + need <= c.length) {
      return c;
    }
    if (need > CHUNK) {
      throw new IllegalArgumentException("a pending claim of " + need + " bytes");
    }
    if (last == 0 && c.length < CHUNK) { // the first chunk doubles, up to a chunk's size
      int size = Math.min(CHUNK, Math.max(used + need, Math.max(1024, c.length * 2)));
      if (used + need <= size) {
        allocated += size - c.length;
        c = chunks[0] = Arrays.copyOf(c, size);
        return c;
      }
    }
    if (last + 1 == MAX_CHUNKS) {
      throw new IllegalStateException("pending claims past " + MAX_CHUNKS + " chunks");
    }
    if (last + 1 == chunks.length) {
      chunks = Arrays.copyOf(chunks, chunks.length * 2);
      fills = Arrays.copyOf(fills, chunks.length);
    }
    fills[last] = used;
    last++;
    used = 0;
    c = chunks[last] = new byte[CHUNK];
    allocated += CHUNK;
    return c;
  }

  private byte[] chunk(int off) {
    return chunks[off >>> CHUNK_SHIFT];
  }

  private static int pos(int off) {
    return off & (CHUNK - 1);
  }

  /** Sink for {@link #touch}: keeps its loads from being optimized away. */
  private long touched;

  /**
   * Reads the index slots these ids start at, before they are added one by one: independent loads
   * wait for memory together, and the adds then find their slots in cache.
   */
  public void touch(long[] h1) {
    int mask = index.length - 1;
    if (mask < 0) {
      return;
    }
    long sum = 0;
    for (long h : h1) {
      sum += index[home(h, mask)];
    }
    touched += sum;
  }

  private void insert(long entry, long h1) {
    int mask = index.length - 1;
    int i = home(h1, mask);
    while (index[i] != 0) {
      i = (i + 1) & mask;
    }
    index[i] = entry;
  }

  private void grow() {
    long[] old = index;
    index = new long[Math.max(16, old.length * 2)];
    for (long e : old) {
      if (e != 0) {
        insert(e, e); // an entry keeps the bits its home slot comes from
      }
    }
  }

  /** The offset of the id's record that is not released, in a slice at or above min, or -1. */
  public int find(long h1, byte[] id, long minSlice) {
    if (count == 0) {
      return -1;
    }
    int mask = index.length - 1;
    for (int i = home(h1, mask); index[i] != 0; i = (i + 1) & mask) {
      int off = offsetOf(index[i]);
      if (sameHash(index[i], h1)
          && idEquals(off, id)
          && !isReleased(off)
          && slice(off) >= minSlice) {
        return off;
      }
    }
    return -1;
  }

  /** Whether a record of the id not released is here in exactly this slice. */
  public boolean holds(long h1, byte[] id, long slice) {
    int off = find(h1, id, slice);
    return off >= 0 && slice(off) == slice;
  }

  /** Whether a released record of the id is here, in a slice at or above min. */
  public boolean releasedHere(long h1, byte[] id, long minSlice) {
    if (count == 0) {
      return false;
    }
    int mask = index.length - 1;
    for (int i = home(h1, mask); index[i] != 0; i = (i + 1) & mask) {
      int off = offsetOf(index[i]);
      if (sameHash(index[i], h1)
          && idEquals(off, id)
          && isReleased(off)
          && slice(off) >= minSlice) {
        return true;
      }
    }
    return false;
  }

  private boolean idEquals(int off, byte[] id) {
    byte[] c = chunk(off);
    int p = pos(off) + 10;
    int len = idLength(c, p - 10);
    return len == id.length && Arrays.equals(c, p, p + len, id, 0, id.length);
  }

  /** Every record's offset, oldest first. */
  public int[] offsets() {
    java.util.stream.IntStream.Builder out = java.util.stream.IntStream.builder();
    for (int k = 0; k <= last; k++) {
      byte[] c = chunks[k];
      for (int p = 0; p < fill(k); p = releasedAt(c, p) + 1) {
        out.add(k << CHUNK_SHIFT | p);
      }
    }
    return out.build().toArray();
  }

  public long slice(int off) {
    return getLong(chunk(off), pos(off));
  }

  /** The h1 of the record's id, hashed where it lies. */
  public long h1(int off, io.idem.core.hash.Hash128 h) {
    byte[] c = chunk(off);
    return h.hash(c, pos(off) + 10, idLength(c, pos(off))).h1();
  }

  public int idLength(int off) {
    return idLength(chunk(off), pos(off));
  }

  private static int idLength(byte[] c, int p) {
    return (c[p + 8] & 0xff) << 8 | c[p + 9] & 0xff;
  }

  public byte[] id(int off) {
    byte[] c = chunk(off);
    int p = pos(off) + 10;
    return Arrays.copyOfRange(c, p, p + idLength(c, p - 10));
  }

  /** The position of the owner's length byte in the record's chunk. */
  private static int ownerAt(byte[] c, int p) {
    return p + 10 + idLength(c, p);
  }

  public byte[] owner(int off) {
    byte[] c = chunk(off);
    int o = ownerAt(c, pos(off));
    return Arrays.copyOfRange(c, o + 1, o + 1 + (c[o] & 0xff));
  }

  /** The position of the released flag in the record's chunk. */
  private static int releasedAt(byte[] c, int p) {
    int o = ownerAt(c, p);
    return o + 1 + (c[o] & 0xff);
  }

  public boolean isReleased(int off) {
    byte[] c = chunk(off);
    return c[releasedAt(c, pos(off))] != 0;
  }

  public void release(int off) {
    if (!isReleased(off)) {
      byte[] c = chunk(off);
      c[releasedAt(c, pos(off))] = 1;
      released++;
    }
  }

  /**
   * Writes the arena as it is (u32 length | records): a snapshot copies it, chunk by chunk, not
   * each record. The records follow each other as if in one array.
   */
  public void writeTo(java.io.DataOutputStream out) throws java.io.IOException {
    long total = 0;
    for (int k = 0; k <= last; k++) {
      total += fill(k);
    }
    if (total > Integer.MAX_VALUE) {
      throw new java.io.IOException("pending claims of " + total + " bytes");
    }
    out.writeInt((int) total);
    for (int k = 0; k <= last; k++) {
      out.write(chunks[k], 0, fill(k));
    }
  }

  private int fill(int k) {
    return k == last ? used : fills[k];
  }

  /**
   * Reads an arena {@link #writeTo} wrote and adds its records in a slice at or above {@code
   * floor}. Released ones are kept, released: their rows may have been written before the crash,
   * and the next background write releases them in the store.
   *
   * @throws java.io.IOException if a record runs past the arena or a length is out of bounds
   */
  public void readFrom(java.io.DataInputStream in, long maxBytes, long floor)
      throws java.io.IOException {
    int n = in.readInt();
    if (n < 0 || n > maxBytes) {
      throw new java.io.IOException("pending claims of " + n + " bytes");
    }
    byte[] a = in.readNBytes(n);
    if (a.length != n) {
      throw new java.io.EOFException("snapshot ends in pending claims");
    }
    io.idem.core.hash.Hash128 h = new io.idem.core.hash.Hash128();
    int off = 0;
    while (off < n) {
      if (n - off < 12) {
        throw new java.io.IOException("pending claim cut short at byte " + off);
      }
      long slice = getLong(a, off);
      int idLength = (a[off + 8] & 0xff) << 8 | a[off + 9] & 0xff;
      int o = off + 10 + idLength;
      if (idLength > DedupLimits.MAX_ID_BYTES || o + 2 > n) {
        throw new java.io.IOException("pending claim cut short at byte " + off);
      }
      int ownerLength = a[o] & 0xff;
      int end = o + 1 + ownerLength;
      if (end >= n || a[end] < 0 || a[end] > 1) {
        throw new java.io.IOException("corrupt pending claim at byte " + off);
      }
      if (slice >= floor) {
        byte[] id = Arrays.copyOfRange(a, off + 10, off + 10 + idLength);
        h.hash(id);
        int at = add(slice, h.h1(), id, Arrays.copyOfRange(a, o + 1, end));
        if (a[end] == 1) {
          release(at);
        }
      }
      off = end + 1;
    }
  }

  /** Calls {@code each} with the offset of every record, in the order added. */
  public void forEach(java.util.function.IntConsumer each) {
    for (int k = 0; k <= last; k++) {
      byte[] c = chunks[k];
      int end = fill(k);
      for (int p = 0; p < end; p = releasedAt(c, p) + 1) {
        each.accept(k << CHUNK_SHIFT | p);
      }
    }
  }

  private static void putLong(byte[] b, int off, long v) {
    for (int i = 7; i >= 0; i--) {
      b[off + i] = (byte) v;
      v >>>= 8;
    }
  }

  private static long getLong(byte[] b, int off) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = v << 8 | (b[off + i] & 0xff);
    }
    return v;
  }
}
