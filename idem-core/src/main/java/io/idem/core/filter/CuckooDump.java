package io.idem.core.filter;

import static io.idem.core.filter.DumpChecks.bad;
import static io.idem.core.filter.DumpChecks.chunkCrc;
import static io.idem.core.filter.DumpChecks.crc;

import io.idem.core.hash.Hash128;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Idem's layout of the CF.SCANDUMP chunks that CF.LOADCHUNK takes back. Clients only hand the
 * (iterator, bytes) pairs back unchanged, so the layout is Idem's own; RedisBloom's iterator
 * convention is kept: 0 asks for the header, which comes back under iterator 1, and each chunk
 * comes back under 1 + the byte offset just past it. The header is also the recipe a new filter
 * logs in the server. {@link CuckooFilter} dumps and loads through it; a refusal's reply texts are
 * RedisBloom's ({@link #INVALID_POSITION}, {@link #CANNOT_LOAD}, {@link #CANNOT_CREATE}), followed
 * in the reply by what was wrong.
 */
final class CuckooDump {
  /*
   * Header, big-endian, 49 bytes:
   *
   * offset  size  field
   * 0       4     magic "ICFD" (0x49434644)
   * 4       1     layout version, 1
   * 5       1     hash function id (Hash128.FUNCTION_ID)
   * 6       8     capacity asked for, [1, 2^30]
   * 14      8     configured error rate, IEEE 754 double in (0, 1]
   * 22      1     fingerprint bits f, [1, 32]
   * 23      1     bucket size b, [1, 255]
   * 24      2     max iterations, [1, 65535]
   * 26      2     expansion, [0, 32768]
   * 28      1     sub-tables n, [1, 32]; 1 when expansion is 0
   * 29      8     buckets of sub-table 0, at most 4 * capacity / b + 1 (a load of 1/4 at
   *               capacity, the loosest any sizing uses); sub-table t has buckets(0) * expansion^t
   *               buckets, each sub-table at most (2^31 - 9) * 64 bits
   * 37      8     deletes since the last compaction, >= 0
   * 45      4     CRC32C of bytes [0, 45)
   *
   * Chunk, big-endian, for m words whose first is at byte `offset` of the sub-tables' words laid
   * end to end, oldest first (each sub-table's words as in the cuckoo format, version 1); its
   * iterator is 1 + offset + 8m:
   *
   * 0       8m    the words
   * 8m      4     CRC32C of offset (8 bytes) then the words
   *
   * Each sub-table is cut into chunks of MAX_CHUNK_WORDS words from its own start, so the header
   * fixes where every chunk starts and how long it is: LOADCHUNK accepts exactly the chunks
   * SCANDUMP makes, each any number of times and in any order (a chunk overwrites its words). The
   * offset in the checksum catches a chunk given with another chunk's iterator. The item count is
   * not in the header: a filter's count is always the fingerprints it holds, so it grows as chunks
   * arrive.
   */

  static final int MAGIC = 0x49434644;
  static final int VERSION = 1;
  static final int HEADER_BYTES = 49;

  /** Words that keep a chunk, checksum included, within RedisBloom's 16 MiB. */
  static final int MAX_CHUNK_WORDS = (16 << 20) / 8 - 1;

  /** The largest capacity a header carries. */
  static final long MAX_CAPACITY = CuckooFilter.MAX_DUMP_CAPACITY;

  /** RedisBloom's reply to a position SCANDUMP did not give (Idem's layout checks it). */
  static final String INVALID_POSITION = "Invalid position";

  /** RedisBloom's reply to a chunk it cannot take. */
  static final String CANNOT_LOAD = "Couldn't load chunk!";

  /** RedisBloom's reply to a header it cannot take, or whose filter it cannot make. */
  static final String CANNOT_CREATE = "Couldn't create filter!";

  /** RedisBloom's reply to a header of the wrong length. */
  static final String INVALID_HEADER = "Invalid header";

  private CuckooDump() {}

  /** A validated header: {@link #build} allocates exactly {@code shape.bytes()}. */
  record Header(CuckooFilter.Shape shape, long deletes) {}

  /** The header of {@code f}: small, O(1). */
  static byte[] header(CuckooFilter f) {
    return header(f.shape(), f.deleteCount());
  }

  static byte[] header(CuckooFilter.Shape s, long deletes) {
    ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES);
    b.putInt(MAGIC).put((byte) VERSION).put((byte) Hash128.FUNCTION_ID);
    b.putLong(s.capacity()).putDouble(s.errorRate());
    b.put((byte) s.fingerprintBits()).put((byte) s.bucketSize());
    b.putShort((short) s.maxIterations()).putShort((short) s.expansion());
    b.put((byte) s.tables()).putLong(s.firstBuckets()).putLong(deletes);
    b.putInt(crc(b.array(), 0, b.position()));
    return b.array();
  }

  /** Parses and checks every field of a header; allocates nothing sized by it. */
  static Header parseHeader(byte[] bytes) throws IOException {
    if (bytes.length != HEADER_BYTES) {
      throw bad("a header has %s bytes, not %s", HEADER_BYTES, bytes.length);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    if (b.getInt() != MAGIC) {
      throw bad("not a header of CF.SCANDUMP");
    }
    int version = b.get() & 0xff;
    if (version != VERSION) {
      throw bad("header version %s is not %s", version, VERSION);
    }
    int function = b.get() & 0xff;
    if (function != Hash128.FUNCTION_ID) {
      throw bad("hash function %s is not %s", function, Hash128.FUNCTION_ID);
    }
    if (b.getInt(HEADER_BYTES - 4) != crc(bytes, 0, HEADER_BYTES - 4)) {
      throw bad("header checksum mismatch");
    }
    long capacity = b.getLong();
    double errorRate = b.getDouble();
    int fingerprintBits = b.get() & 0xff;
    int bucketSize = b.get() & 0xff;
    int maxIterations = b.getShort() & 0xffff;
    int expansion = b.getShort() & 0xffff;
    int tables = b.get() & 0xff;
    long firstBuckets = b.getLong();
    long deletes = b.getLong();
    if (capacity < 1 || capacity > MAX_CAPACITY) {
      throw bad("capacity %s is not in [1, %s]", capacity, MAX_CAPACITY);
    }
    if (deletes < 0) {
      throw bad("deletes %s is negative", deletes);
    }
    CuckooFilter.Shape shape;
    try {
      shape =
          new CuckooFilter.Shape(
              capacity,
              errorRate,
              fingerprintBits,
              bucketSize,
              maxIterations,
              expansion,
              firstBuckets,
              tables);
    } catch (IllegalArgumentException e) {
      throw new IOException(e.getMessage(), e);
    }
    // Bound the memory by the capacity, not only by the format: no sizing gives more slots.
    if (firstBuckets > 4 * capacity / bucketSize + 1) {
      throw bad(
          "%s buckets of %s slots are too many for capacity %s",
          firstBuckets, bucketSize, capacity);
    }
    return new Header(shape, deletes);
  }

  /** The filter the header declares, empty. Allocates {@code h.shape().bytes()}. */
  static CuckooFilter build(Header h) {
    return CuckooFilter.ofShape(h.shape(), h.deletes());
  }

  /**
   * The chunk at {@code iter} (at least 1), copying at most {@code maxWords} words of one
   * sub-table; {@link DumpChunk#END} past the last one.
   *
   * @throws IOException if {@code iter} is not where a chunk starts
   */
  static DumpChunk chunk(CuckooFilter f, long iter, int maxWords) throws IOException {
    if (iter < 1) {
      throw bad("iterator %s is not one CF.SCANDUMP returned", iter);
    }
    long offset = iter - 1;
    long start = 0;
    for (int t = 0; t < f.tableCount(); t++) {
      long size = f.wordCount(t) * 8;
      if (offset < start + size) {
        long rel = offset - start;
        if (rel % (maxWords * 8L) != 0) {
          throw bad("iterator %s is not one CF.SCANDUMP returned", iter);
        }
        long from = rel / 8;
        int words = (int) Math.min(maxWords, f.wordCount(t) - from);
        byte[] out = new byte[words * 8 + 4];
        f.copyWords(t, from, words, out, 0);
        ByteBuffer.wrap(out).putInt(words * 8, chunkCrc(offset, out, words * 8));
        return new DumpChunk(iter + words * 8L, out);
      }
      start += size;
    }
    return DumpChunk.END;
  }

  /**
   * Writes a chunk into {@code f} after checking that it is exactly the chunk SCANDUMP makes for
   * that iterator and this filter's sub-tables; changes nothing if it is not.
   */
  static void load(CuckooFilter f, long iter, byte[] data, int maxWords) throws IOException {
    if (data.length < 12 || (data.length - 4) % 8 != 0) {
      throw bad("a chunk of %s bytes is not whole words and a checksum", data.length);
    }
    int words = (data.length - 4) / 8;
    if (iter < 1 || iter - 1 < words * 8L) {
      throw bad("iterator %s cannot follow a chunk of %s words", iter, words);
    }
    long offset = iter - 1 - words * 8L;
    long start = 0;
    for (int t = 0; t < f.tableCount(); t++) {
      long size = f.wordCount(t) * 8;
      if (offset < start + size) {
        long rel = offset - start;
        long from = rel / 8;
        if (rel % (maxWords * 8L) != 0 || words != Math.min(maxWords, f.wordCount(t) - from)) {
          throw bad("no chunk of %s words ends at iterator %s in this filter", words, iter);
        }
        if (ByteBuffer.wrap(data).getInt(words * 8) != chunkCrc(offset, data, words * 8)) {
          throw bad("chunk checksum mismatch");
        }
        try {
          f.loadWords(t, from, words, data, 0);
        } catch (IllegalArgumentException e) {
          throw new IOException(e.getMessage(), e);
        }
        return;
      }
      start += size;
    }
    throw bad("iterator %s is past the end of this filter", iter);
  }
}
