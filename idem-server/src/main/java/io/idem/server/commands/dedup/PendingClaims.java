package io.idem.server.commands.dedup;

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
final class PendingClaims {

  private byte[] arena = new byte[0];
  private int used;

  /**
   * Open addressing by the id's hash h1: slot i holds 0 (free) or the high 32 bits of h1 over the
   * record's offset + 1. One array, so a probe is one cache miss; the id itself is compared in the
   * arena only when those 32 bits match. A claim's home slot comes from the same 32 bits, so
   * growing moves entries without reading the arena or hashing an id again.
   */
  private long[] index = new long[0];

  private int count;
  private int released;

  int count() {
    return count;
  }

  /** Records not released: what will become rows. */
  int live() {
    return count - released;
  }

  long bytes() {
    return arena.length + index.length * 8L;
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
  int add(long slice, long h1, byte[] id, byte[] owner) {
    if ((count + 1) * 2 > index.length) {
      grow();
    }
    int need = 8 + 2 + id.length + 1 + owner.length + 1;
    if (used + need > arena.length) {
      arena = Arrays.copyOf(arena, Math.max(Math.max(1024, arena.length * 2), used + need));
    }
    int off = used;
    putLong(arena, off, slice);
    arena[off + 8] = (byte) (id.length >>> 8);
    arena[off + 9] = (byte) id.length;
    System.arraycopy(id, 0, arena, off + 10, id.length);
    int o = off + 10 + id.length;
    arena[o] = (byte) owner.length;
    System.arraycopy(owner, 0, arena, o + 1, owner.length);
    arena[o + 1 + owner.length] = 0;
    used += need;
    insert(entry(h1, off), h1);
    count++;
    return off;
  }

  /** Sink for {@link #touch}: keeps its loads from being optimized away. */
  private long touched;

  /**
   * Reads the index slots these ids start at, before they are added one by one: independent loads
   * wait for memory together, and the adds then find their slots in cache.
   */
  void touch(long[] h1) {
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
  int find(long h1, byte[] id, long minSlice) {
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
  boolean holds(long h1, byte[] id, long slice) {
    int off = find(h1, id, slice);
    return off >= 0 && slice(off) == slice;
  }

  /** Whether a released record of the id is here, in a slice at or above min. */
  boolean releasedHere(long h1, byte[] id, long minSlice) {
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
    int len = idLength(off);
    return len == id.length && Arrays.equals(arena, off + 10, off + 10 + len, id, 0, id.length);
  }

  long slice(int off) {
    return getLong(arena, off);
  }

  /** The h1 of the record's id, hashed where it lies. */
  long h1(int off, io.idem.core.hash.Hash128 h) {
    return h.hash(arena, off + 10, idLength(off)).h1();
  }

  int idLength(int off) {
    return (arena[off + 8] & 0xff) << 8 | arena[off + 9] & 0xff;
  }

  byte[] id(int off) {
    return Arrays.copyOfRange(arena, off + 10, off + 10 + idLength(off));
  }

  private int ownerAt(int off) {
    return off + 10 + idLength(off);
  }

  byte[] owner(int off) {
    int o = ownerAt(off);
    return Arrays.copyOfRange(arena, o + 1, o + 1 + (arena[o] & 0xff));
  }

  private int releasedAt(int off) {
    int o = ownerAt(off);
    return o + 1 + (arena[o] & 0xff);
  }

  boolean isReleased(int off) {
    return arena[releasedAt(off)] != 0;
  }

  void release(int off) {
    if (!isReleased(off)) {
      arena[releasedAt(off)] = 1;
      released++;
    }
  }

  /** Writes the arena as it is (u32 length | records): a snapshot copies it, not each record. */
  void writeTo(java.io.DataOutputStream out) throws java.io.IOException {
    out.writeInt(used);
    out.write(arena, 0, used);
  }

  /**
   * Reads an arena {@link #writeTo} wrote and adds its records in a slice at or above {@code
   * floor}. Released ones are kept, released: their rows may have been written before the crash,
   * and the next background write releases them in the store.
   *
   * @throws java.io.IOException if a record runs past the arena or a length is out of bounds
   */
  void readFrom(java.io.DataInputStream in, long maxBytes, long floor) throws java.io.IOException {
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
      if (idLength > DedupArgs.MAX_ID_BYTES || o + 2 > n) {
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
  void forEach(java.util.function.IntConsumer each) {
    for (int off = 0; off < used; off = releasedAt(off) + 1) {
      each.accept(off);
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
