package io.idem.server.commands.bloom;

import io.idem.core.filter.BadDumpException;
import io.idem.core.filter.BloomFilter;
import io.idem.core.filter.FilterFullException;
import io.idem.core.filter.ScalableBloomFilter;
import io.idem.core.format.FormatFamily;
import io.idem.server.engine.ValueCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * How the engine keeps BF.* values durable. The recipe of a new filter is its BF.SCANDUMP header
 * ({@link ScalableBloomFilter#dumpHeader}): it names every layer's exact shape, so a restart
 * rebuilds the same empty filter even if sizing changes between versions, and a filter created by
 * BF.LOADCHUNK logs the header it was given. Operations:
 *
 * <pre>
 * op  name        payload (big-endian)
 * 1   ADD         one or more (h1, h2) pairs of 16 bytes: items that were new, in the order added
 * 2   LOAD_CHUNK  the iterator (8 bytes), then the chunk as BF.LOADCHUNK received it
 * </pre>
 *
 * Op ids are append-only. Adds that found the item present changed nothing and are not logged.
 */
public final class BloomCodec implements ValueCodec<ScalableBloomFilter> {
  /**
   * The server keeps Bloom bits on the heap. Its memory is budgeted by the heap (maxmemory,
   * memoryFits), and it drops large filters (DEL, retired dedup slices) whose off-heap memory would
   * wait for an old-generation collection; the line a block may straddle costs a few nanoseconds
   * against a command's microseconds.
   */
  public static final BloomFilter.Storage STORAGE = BloomFilter.Storage.HEAP;

  public static final BloomCodec INSTANCE = new BloomCodec();

  /** The type's byte on disk: the scalable Bloom format's family id. */
  static final byte TYPE_ID = (byte) FormatFamily.SCALABLE_BLOOM.id();

  static final byte OP_ADD = 1;
  static final byte OP_LOAD_CHUNK = 2;

  private BloomCodec() {}

  @Override
  public byte typeId() {
    return TYPE_ID;
  }

  /** RedisBloom's module type name, which TYPE replies. */
  @Override
  public String typeName() {
    return "MBbloom--";
  }

  @Override
  public Class<ScalableBloomFilter> valueClass() {
    return ScalableBloomFilter.class;
  }

  @Override
  public ScalableBloomFilter create(byte[] recipe) throws IOException {
    return ScalableBloomFilter.fromHeader(recipe, STORAGE);
  }

  @Override
  public void apply(ScalableBloomFilter value, byte op, byte[] payload) throws IOException {
    switch (op) {
      case OP_ADD -> {
        if (payload.length == 0 || payload.length % 16 != 0) {
          throw new IOException(
              "ADD payload of " + payload.length + " bytes is not (h1, h2) pairs");
        }
        ByteBuffer b = ByteBuffer.wrap(payload);
        try {
          while (b.hasRemaining()) {
            value.add(b.getLong(), b.getLong());
          }
        } catch (FilterFullException e) {
          // It fitted when it was logged: the log and the value disagree.
          throw new IOException("replayed ADD does not fit: " + e.getMessage(), e);
        }
      }
      case OP_LOAD_CHUNK -> {
        if (payload.length < 8) {
          throw new IOException(
              "LOAD_CHUNK payload of " + payload.length + " bytes has no iterator");
        }
        try {
          value.loadChunk(
              ByteBuffer.wrap(payload).getLong(), Arrays.copyOfRange(payload, 8, payload.length));
        } catch (BadDumpException e) {
          throw new IOException(e.getMessage(), e);
        }
      }
      default -> throw new IOException("unknown Bloom operation " + op);
    }
  }

  /** The payload of one ADD: pairs (h1, h2) packed in {@code hashes[0, count)}. */
  static byte[] addPayload(long[] hashes, int count) {
    ByteBuffer b = ByteBuffer.allocate(count * 8);
    for (int i = 0; i < count; i++) {
      b.putLong(hashes[i]);
    }
    return b.array();
  }

  static byte[] loadChunkPayload(long iter, byte[] chunk) {
    return ByteBuffer.allocate(8 + chunk.length).putLong(iter).put(chunk).array();
  }

  @Override
  public void write(ScalableBloomFilter value, OutputStream out) throws IOException {
    value.writeTo(out);
  }

  @Override
  public ScalableBloomFilter read(InputStream in, long maxBytes) throws IOException {
    return ScalableBloomFilter.readFrom(in, maxBytes, STORAGE);
  }

  /** The bit arrays, plus the objects that hold them. */
  @Override
  public long memoryUsage(ScalableBloomFilter value) {
    return value.sizeInBytes() + 64 + 64L * value.layerCount();
  }
}
