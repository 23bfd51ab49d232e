package io.idem.server.commands.cuckoo;

import io.idem.core.filter.BadDumpException;
import io.idem.core.filter.CuckooFilter;
import io.idem.core.filter.FilterFullException;
import io.idem.core.format.FormatFamily;
import io.idem.server.engine.ValueCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * How the engine keeps CF.* values durable. The recipe of a new filter is its CF.SCANDUMP header
 * ({@link CuckooFilter#dumpHeader}): it names the exact shape, so a restart rebuilds the same empty
 * filter even if sizing changes between versions, and a filter created by CF.LOADCHUNK logs the
 * header it was given. Operations, each logged right after it changed the filter:
 *
 * <pre>
 * op  name        payload (big-endian)
 * 1   ADD         one or more (h1, h2) pairs of 16 bytes: copies inserted (CF.ADD, CF.INSERT)
 * 2   ADD_NX      one or more (h1, h2) pairs: items inserted because absent (CF.ADDNX, CF.INSERTNX)
 * 3   DEL         one (h1, h2) pair whose copy was removed, with the compaction that may follow
 * 4   COMPACT     nothing
 * 5   LOAD_CHUNK  the iterator (8 bytes), then the chunk as CF.LOADCHUNK received it
 * </pre>
 *
 * Op ids are append-only. Operations that changed nothing (an item present, a filter full, a delete
 * that found nothing, a compaction with nothing to do) are not logged. Replay is exact because the
 * filter's every choice, kick victims included, depends only on its state and the operation.
 */
public final class CuckooCodec implements ValueCodec<CuckooFilter> {

  public static final CuckooCodec INSTANCE = new CuckooCodec();

  /** The type's byte on disk: the cuckoo format's family id. */
  static final byte TYPE_ID = (byte) FormatFamily.CUCKOO.id();

  static final byte OP_ADD = 1;
  static final byte OP_ADD_NX = 2;
  static final byte OP_DEL = 3;
  static final byte OP_COMPACT = 4;
  static final byte OP_LOAD_CHUNK = 5;

  private CuckooCodec() {}

  @Override
  public byte typeId() {
    return TYPE_ID;
  }

  /** RedisBloom's module type name, which TYPE replies. */
  @Override
  public String typeName() {
    return "MBbloomCF";
  }

  @Override
  public Class<CuckooFilter> valueClass() {
    return CuckooFilter.class;
  }

  @Override
  public CuckooFilter create(byte[] recipe) throws IOException {
    return CuckooFilter.fromHeader(recipe);
  }

  @Override
  public void apply(CuckooFilter f, byte op, byte[] payload) throws IOException {
    switch (op) {
      case OP_ADD, OP_ADD_NX -> {
        if (payload.length == 0 || payload.length % 16 != 0) {
          throw new IOException(
              "ADD payload of " + payload.length + " bytes is not (h1, h2) pairs");
        }
        ByteBuffer b = ByteBuffer.wrap(payload);
        try {
          while (b.hasRemaining()) {
            long h1 = b.getLong();
            long h2 = b.getLong();
            if (op == OP_ADD) {
              f.insert(h1, h2);
            } else if (!f.add(h1, h2)) {
              throw new IOException("replayed ADD_NX found its item present");
            }
          }
        } catch (FilterFullException e) {
          // It fitted when it was logged: the log and the value disagree.
          throw new IOException("replayed ADD does not fit: " + e.getMessage(), e);
        }
      }
      case OP_DEL -> {
        if (payload.length != 16) {
          throw new IOException("DEL payload of " + payload.length + " bytes is not one pair");
        }
        ByteBuffer b = ByteBuffer.wrap(payload);
        if (!f.delete(b.getLong(), b.getLong())) { // CF.DEL's change, compaction included
          throw new IOException("replayed DEL found nothing to delete");
        }
      }
      case OP_COMPACT -> f.compact();
      case OP_LOAD_CHUNK -> {
        if (payload.length < 8) {
          throw new IOException(
              "LOAD_CHUNK payload of " + payload.length + " bytes has no iterator");
        }
        try {
          f.loadChunk(
              ByteBuffer.wrap(payload).getLong(), Arrays.copyOfRange(payload, 8, payload.length));
        } catch (BadDumpException e) {
          throw new IOException(e.getMessage(), e);
        }
      }
      default -> throw new IOException("unknown cuckoo operation " + op);
    }
  }

  /** Pairs (h1, h2) packed in {@code hashes[0, count)}. */
  static byte[] pairs(long[] hashes, int count) {
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
  public void write(CuckooFilter f, OutputStream out) throws IOException {
    f.writeTo(out);
  }

  @Override
  public CuckooFilter read(InputStream in, long maxBytes) throws IOException {
    return CuckooFilter.readFrom(in, maxBytes);
  }

  /**
   * The sub-tables, the objects that hold them, and the kick scratch arrays (12 bytes per
   * iteration, allocated at the first kick): what CF.INFO reports as "Size".
   */
  @Override
  public long memoryUsage(CuckooFilter f) {
    return f.sizeInBytes() + 96 + 56L * f.tableCount() + 32 + 12L * f.maxIterations();
  }
}
