package io.idem.server.commands.bloom;

import io.idem.core.filter.BadDumpException;
import io.idem.core.filter.FilterFullException;
import io.idem.core.filter.RedisBloomChain;
import io.idem.core.format.FormatFamily;
import io.idem.server.engine.ValueCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * How the engine keeps a Bloom filter in RedisBloom's layout durable: one moved in from RedisBloom
 * by BF.LOADCHUNK, which keeps RedisBloom's hashing so that it answers as it did there and dumps
 * back in chunks RedisBloom loads. TYPE says {@code MBbloom--}, as for Idem's own filters. The
 * recipe is RedisBloom's header chunk. Operations, as {@link BloomCodec}'s:
 *
 * <pre>
 * op  name        payload (big-endian)
 * 1   ADD         one or more (a, b) pairs of 16 bytes: RedisBloom's hashes of items that were new
 * 2   LOAD_CHUNK  the iterator (8 bytes), then the chunk as BF.LOADCHUNK received it
 * </pre>
 */
public final class RedisBloomCodec implements ValueCodec<RedisBloomChain> {

  public static final RedisBloomCodec INSTANCE = new RedisBloomCodec();

  static final byte TYPE_ID = (byte) FormatFamily.REDISBLOOM_CHAIN.id();

  private RedisBloomCodec() {}

  @Override
  public byte typeId() {
    return TYPE_ID;
  }

  @Override
  public String typeName() {
    return "MBbloom--";
  }

  @Override
  public Class<RedisBloomChain> valueClass() {
    return RedisBloomChain.class;
  }

  @Override
  public RedisBloomChain create(byte[] recipe) throws IOException {
    try {
      return RedisBloomChain.fromHeader(recipe, bytes -> true);
    } catch (BadDumpException e) {
      throw new IOException("corrupt RedisBloom header in the log: " + e.getMessage(), e);
    }
  }

  @Override
  public void apply(RedisBloomChain value, byte op, byte[] payload) throws IOException {
    switch (op) {
      case BloomCodec.OP_ADD -> {
        if (payload.length == 0 || payload.length % 16 != 0) {
          throw new IOException("ADD payload of " + payload.length + " bytes is not (a, b) pairs");
        }
        ByteBuffer b = ByteBuffer.wrap(payload);
        try {
          while (b.hasRemaining()) {
            value.add(b.getLong(), b.getLong());
          }
        } catch (FilterFullException e) {
          throw new IOException("replayed ADD does not fit: " + e.getMessage(), e);
        }
      }
      case BloomCodec.OP_LOAD_CHUNK -> {
        if (payload.length < 8) {
          throw new IOException(
              "LOAD_CHUNK payload of " + payload.length + " bytes has no iterator");
        }
        try {
          value.loadChunk(
              ByteBuffer.wrap(payload).getLong(), Arrays.copyOfRange(payload, 8, payload.length));
        } catch (BadDumpException e) {
          throw new IOException("replayed LOAD_CHUNK does not fit: " + e.getMessage(), e);
        }
      }
      default -> throw new IOException("unknown Bloom operation " + op);
    }
  }

  @Override
  public void write(RedisBloomChain value, OutputStream out) throws IOException {
    value.writeTo(out);
  }

  @Override
  public RedisBloomChain read(InputStream in, long maxBytes) throws IOException {
    return RedisBloomChain.readFrom(in, maxBytes);
  }

  @Override
  public long memoryUsage(RedisBloomChain value) {
    return value.sizeInBytes();
  }
}
