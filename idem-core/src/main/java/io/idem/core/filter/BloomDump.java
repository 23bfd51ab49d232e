package io.idem.core.filter;

import static io.idem.core.filter.DumpChecks.bad;
import static io.idem.core.filter.DumpChecks.chunkCrc;
import static io.idem.core.filter.DumpChecks.crc;

import io.idem.core.hash.Hash128;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Idem's layout of the BF.SCANDUMP chunks that BF.LOADCHUNK takes back. Clients only hand the
 * (iterator, bytes) pairs back unchanged, so the layout is Idem's own; RedisBloom's iterator
 * convention is kept: 0 asks for the header, which comes back under iterator 1, and each chunk
 * comes back under 1 + the byte offset just past it. {@link ScalableBloomFilter} dumps and loads
 * through it; a refusal's reply texts are RedisBloom's ({@link #BAD_DATA}, {@link
 * #INVALID_ITERATOR}), followed in the reply by what was wrong.
 */
final class BloomDump {
  /*
   * Header, big-endian:
   *
   * offset   size  field
   * 0        4     magic "IBFD" (0x49424644)
   * 4        1     layout version, 1
   * 5        1     hash function id (Hash128.FUNCTION_ID)
   * 6        8     configured error rate, IEEE 754 double in (0, 1)
   * 14       8     initial capacity, [1, 2^62]
   * 22       4     expansion: 0 when non-scaling, else [1, 32768]
   * 26       2     layers n: [1, 1000], exactly 1 when non-scaling
   * 28       29n   each layer, oldest first: capacity u64 [1, 2^62], error rate double in (0, 1),
   *                hashes u8 [1, 32], blocks u32 [1, 268435454], items u64 [0, capacity];
   *                the capacities sum to at most 2^62
   * 28+29n   4     CRC32C of the bytes before
   *
   * Chunk, big-endian, for m words whose first is at byte `offset` of the layers' bit arrays laid
   * end to end, oldest layer first; its iterator is 1 + offset + 8m:
   *
   * 0        8m    the words, in the bit array order of the Bloom format, version 1
   * 8m       4     CRC32C of offset (8 bytes) then the words
   *
   * Each layer is cut into chunks of MAX_CHUNK_WORDS words from its own start, so the header fixes
   * where every chunk starts and how long it is: LOADCHUNK accepts exactly the chunks SCANDUMP
   * makes, each of them any number of times and in any order (loading ORs bits in). The offset in
   * the checksum catches a chunk given with another chunk's iterator.
   */

  static final int MAGIC = 0x49424644;
  static final int VERSION = 1;
  static final int HEADER_BYTES = 28;
  static final int LAYER_BYTES = 29;

  /**
   * Whole blocks that keep a chunk, checksum included, within RedisBloom's 16 MiB: 2^21 words less
   * one block.
   */
  static final int MAX_CHUNK_WORDS = (16 << 20) / 8 - 8;

  /** RedisBloom's reply to a header or chunk it cannot take. */
  static final String BAD_DATA = "received bad data";

  /** RedisBloom's reply to an iterator SCANDUMP did not give (Idem's layout checks it). */
  static final String INVALID_ITERATOR = "invalid iterator";

  /** RedisBloom's reply when the memory of the filter a header declares cannot be had. */
  static final String NO_MEMORY = "Insufficient memory to create filter";

  private BloomDump() {}

  /** One layer as the header declares it. */
  record Layer(long capacity, double errorRate, int hashes, int blocks, long items) {
    long bytes() {
      return blocks * 64L;
    }
  }

  /** A validated header: {@link #build} allocates exactly {@link #bytes()} for the bits. */
  record Header(double errorRate, long initialCapacity, int expansion, List<Layer> layers) {
    long bytes() {
      long sum = 0;
      for (Layer l : layers) {
        sum += l.bytes();
      }
      return sum;
    }
  }

  /** The header of {@code f}: small, O(layers). */
  static byte[] header(ScalableBloomFilter f) {
    int n = f.layerCount();
    ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + LAYER_BYTES * n + 4);
    b.putInt(MAGIC).put((byte) VERSION).put((byte) Hash128.FUNCTION_ID);
    b.putDouble(f.configuredErrorRate()).putLong(f.initialCapacity()).putInt(f.expansion());
    b.putShort((short) n);
    for (int i = 0; i < n; i++) {
      BloomFilter l = f.layer(i);
      b.putLong(l.capacity()).putDouble(l.configuredErrorRate()).put((byte) l.hashes());
      b.putInt(l.blocks()).putLong(l.itemCount());
    }
    b.putInt(crc(b.array(), 0, b.position()));
    return b.array();
  }

  /** Whether the bytes start as Idem's header does (else they may be RedisBloom's). */
  static boolean isIdemHeader(byte[] bytes) {
    return bytes.length >= 4 && ByteBuffer.wrap(bytes).getInt() == MAGIC;
  }

  /** Parses and checks every field of a header; allocates nothing sized by it beyond O(layers). */
  static Header parseHeader(byte[] bytes) throws IOException {
    if (bytes.length < HEADER_BYTES + LAYER_BYTES + 4) {
      throw bad("header of %s bytes is too short", bytes.length);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    if (b.getInt() != MAGIC) {
      throw bad("not a header of BF.SCANDUMP");
    }
    int version = b.get() & 0xff;
    if (version != VERSION) {
      throw bad("header version %s is not %s", version, VERSION);
    }
    int function = b.get() & 0xff;
    if (function != Hash128.FUNCTION_ID) {
      throw bad("hash function %s is not %s", function, Hash128.FUNCTION_ID);
    }
    double errorRate = b.getDouble();
    long initialCapacity = b.getLong();
    int expansion = b.getInt();
    int n = b.getShort() & 0xffff;
    // The length and checksum first: the fields below are only read from bytes known whole.
    if (bytes.length != HEADER_BYTES + (long) LAYER_BYTES * n + 4) {
      throw bad("header of %s bytes does not hold %s layers", bytes.length, n);
    }
    if (ByteBuffer.wrap(bytes, bytes.length - 4, 4).getInt() != crc(bytes, 0, bytes.length - 4)) {
      throw bad("header checksum mismatch");
    }
    if (!(errorRate > 0 && errorRate < 1)) {
      throw bad("error rate %s is not in (0, 1)", errorRate);
    }
    if (initialCapacity < 1 || initialCapacity > 1L << 62) {
      throw bad("initial capacity %s is not in [1, 2^62]", initialCapacity);
    }
    if (expansion < 0 || expansion > ScalableBloomFilter.MAX_EXPANSION) {
      throw bad("expansion %s is not in [0, %s]", expansion, ScalableBloomFilter.MAX_EXPANSION);
    }
    if (n < 1 || n > ScalableBloomFilter.MAX_LAYERS) {
      throw bad("layer count %s is not in [1, %s]", n, ScalableBloomFilter.MAX_LAYERS);
    }
    if (expansion == 0 && n != 1) {
      throw bad("a non-scaling filter has 1 layer, not %s", n);
    }
    List<Layer> layers = new ArrayList<>(n);
    long totalCapacity = 0;
    for (int i = 0; i < n; i++) {
      long capacity = b.getLong();
      double rate = b.getDouble();
      int hashes = b.get() & 0xff;
      long blocks = b.getInt() & 0xffffffffL;
      long items = b.getLong();
      if (capacity < 1 || capacity > 1L << 62) {
        throw bad("layer %s capacity %s is not in [1, 2^62]", i, capacity);
      }
      if (!(rate > 0 && rate < 1)) {
        throw bad("layer %s error rate %s is not in (0, 1)", i, rate);
      }
      if (hashes < 1 || hashes > 32) {
        throw bad("layer %s hashes %s is not in [1, 32]", i, hashes);
      }
      if (blocks < 1 || blocks > MAX_BLOCKS) {
        throw bad("layer %s blocks %s is not in [1, %s]", i, blocks, MAX_BLOCKS);
      }
      if (items < 0 || items > capacity) {
        throw bad("layer %s items %s is not in [0, %s]", i, items, capacity);
      }
      if (capacity > (1L << 62) - totalCapacity) {
        throw bad("layers hold more than 2^62 items");
      }
      totalCapacity += capacity;
      layers.add(new Layer(capacity, rate, hashes, (int) blocks, items));
    }
    return new Header(errorRate, initialCapacity, expansion, layers);
  }

  /** Blocks a BloomFilter holds at most; the format's bound. */
  private static final long MAX_BLOCKS = (Integer.MAX_VALUE - 8) / 8;

  /**
   * The filter the header declares, with all bits clear, its layers kept as {@code storage} says.
   * Allocates {@link Header#bytes()}.
   */
  static ScalableBloomFilter build(Header h, BloomFilter.Storage storage) {
    List<BloomFilter> layers = new ArrayList<>(h.layers().size());
    for (Layer l : h.layers()) {
      layers.add(
          BloomFilter.ofShape(
              l.capacity(), l.errorRate(), l.hashes(), l.blocks(), l.items(), storage));
    }
    return ScalableBloomFilter.ofLayers(h.errorRate(), h.initialCapacity(), h.expansion(), layers);
  }

  /**
   * The chunk at {@code iter} (at least 1), copying at most {@code maxWords} words of one layer;
   * {@link DumpChunk#END} past the last one.
   *
   * @throws IOException if {@code iter} is not where a chunk starts
   */
  static DumpChunk chunk(ScalableBloomFilter f, long iter, int maxWords) throws IOException {
    if (iter < 1) {
      throw new IOException("iterator " + iter + " is not one BF.SCANDUMP returned");
    }
    long offset = iter - 1;
    long start = 0;
    for (int i = 0; i < f.layerCount(); i++) {
      BloomFilter layer = f.layer(i);
      long size = layer.wordCount() * 8L;
      if (offset < start + size) {
        long rel = offset - start;
        if (rel % (maxWords * 8L) != 0) {
          throw new IOException("iterator " + iter + " is not one BF.SCANDUMP returned");
        }
        int from = (int) (rel / 8);
        int words = Math.min(maxWords, layer.wordCount() - from);
        byte[] out = new byte[words * 8 + 4];
        layer.copyWords(from, words, out, 0);
        ByteBuffer.wrap(out, words * 8, 4).putInt(chunkCrc(offset, out, words * 8));
        return new DumpChunk(iter + words * 8L, out);
      }
      start += size;
    }
    return DumpChunk.END;
  }

  /**
   * ORs a chunk into {@code f} after checking that it is exactly the chunk SCANDUMP makes for that
   * iterator and this filter's layers; changes nothing if it is not.
   */
  static void load(ScalableBloomFilter f, long iter, byte[] data, int maxWords) throws IOException {
    if (data.length < 12 || (data.length - 4) % 8 != 0) {
      throw bad("a chunk of %s bytes is not whole words and a checksum", data.length);
    }
    int words = (data.length - 4) / 8;
    long offset = iter - 1 - words * 8L;
    if (iter < 1 || offset < 0) {
      throw bad("iterator %s cannot follow a chunk of %s words", iter, words);
    }
    long start = 0;
    for (int i = 0; i < f.layerCount(); i++) {
      BloomFilter layer = f.layer(i);
      long size = layer.wordCount() * 8L;
      if (offset < start + size) {
        long rel = offset - start;
        int from = (int) (rel / 8);
        if (rel % (maxWords * 8L) != 0 || words != Math.min(maxWords, layer.wordCount() - from)) {
          throw bad("no chunk of %s words ends at iterator %s in this filter", words, iter);
        }
        if (ByteBuffer.wrap(data, words * 8, 4).getInt() != chunkCrc(offset, data, words * 8)) {
          throw bad("chunk checksum mismatch");
        }
        layer.orWords(from, words, data, 0);
        return;
      }
      start += size;
    }
    throw bad("iterator %s is past the end of this filter", iter);
  }
}
