package io.idem.server.commands.cuckoo;

import io.idem.core.filter.BadDumpException;
import io.idem.core.filter.RedisBloomCuckoo;
import io.idem.core.format.FormatFamily;
import io.idem.server.engine.ValueCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * How the engine keeps a cuckoo filter in RedisBloom's layout durable: one moved in from RedisBloom
 * by CF.LOADCHUNK, which keeps RedisBloom's hashing and growth. TYPE says {@code MBbloomCF}. The
 * recipe is RedisBloom's header chunk. Operations, as {@link CuckooCodec}'s op ids:
 *
 * <pre>
 * op  name        payload (big-endian)
 * 1   ADD         one or more 8-byte hashes of items inserted, in order
 * 2   ADD_NX      the same, for inserts made only if absent
 * 3   DEL         one 8-byte hash of an item deleted
 * 4   COMPACT     nothing
 * 5   LOAD_CHUNK  the position (8 bytes), then the chunk as CF.LOADCHUNK received it
 * </pre>
 */
public final class RedisCuckooCodec implements ValueCodec<RedisBloomCuckoo> {

  public static final RedisCuckooCodec INSTANCE = new RedisCuckooCodec();

  private RedisCuckooCodec() {}

  @Override
  public byte typeId() {
    return (byte) FormatFamily.REDISBLOOM_CUCKOO.id();
  }

  @Override
  public String typeName() {
    return "MBbloomCF";
  }

  @Override
  public Class<RedisBloomCuckoo> valueClass() {
    return RedisBloomCuckoo.class;
  }

  @Override
  public RedisBloomCuckoo create(byte[] recipe) throws IOException {
    try {
      return RedisBloomCuckoo.fromHeader(recipe, bytes -> true);
    } catch (BadDumpException e) {
      throw new IOException("corrupt RedisBloom cuckoo header in the log: " + e.getMessage(), e);
    }
  }

  /** The payload of inserts or a delete: the items' hashes. */
  static byte[] hashes(long... hashes) {
    ByteBuffer b = ByteBuffer.allocate(8 * hashes.length);
    for (long h : hashes) {
      b.putLong(h);
    }
    return b.array();
  }

  @Override
  public void apply(RedisBloomCuckoo value, byte op, byte[] payload) throws IOException {
    switch (op) {
      case CuckooCodec.OP_ADD, CuckooCodec.OP_ADD_NX -> {
        if (payload.length == 0 || payload.length % 8 != 0) {
          throw new IOException("ADD payload of " + payload.length + " bytes is not hashes");
        }
        ByteBuffer b = ByteBuffer.wrap(payload);
        while (b.hasRemaining()) {
          long h = b.getLong();
          RedisBloomCuckoo.Insert r =
              op == CuckooCodec.OP_ADD ? value.insert(h) : value.insertUnique(h);
          if (r != RedisBloomCuckoo.Insert.INSERTED) {
            throw new IOException("a replayed insert did not fit: " + r);
          }
        }
      }
      case CuckooCodec.OP_DEL -> {
        if (payload.length != 8 || !value.delete(ByteBuffer.wrap(payload).getLong())) {
          throw new IOException("a replayed delete found nothing to delete");
        }
      }
      case CuckooCodec.OP_COMPACT -> value.compact(true);
      case CuckooCodec.OP_LOAD_CHUNK -> {
        if (payload.length < 8) {
          throw new IOException("LOAD_CHUNK payload of " + payload.length + " bytes");
        }
        try {
          value.loadChunk(
              ByteBuffer.wrap(payload).getLong(), Arrays.copyOfRange(payload, 8, payload.length));
        } catch (BadDumpException e) {
          throw new IOException("replayed LOAD_CHUNK does not fit: " + e.getMessage(), e);
        }
      }
      default -> throw new IOException("unknown cuckoo operation " + op);
    }
  }

  @Override
  public void write(RedisBloomCuckoo value, OutputStream out) throws IOException {
    value.writeTo(out);
  }

  @Override
  public RedisBloomCuckoo read(InputStream in, long maxBytes) throws IOException {
    return RedisBloomCuckoo.readFrom(in, maxBytes);
  }

  @Override
  public long memoryUsage(RedisBloomCuckoo value) {
    return value.sizeInBytes();
  }
}
