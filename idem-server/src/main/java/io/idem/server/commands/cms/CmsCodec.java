package io.idem.server.commands.cms;

import io.idem.core.format.FormatFamily;
import io.idem.core.sketch.CountMinSketch;
import io.idem.server.engine.ValueCodec;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * How the engine keeps CMS.* values durable. Recipe: u32 width | u32 depth. Operations:
 *
 * <pre>
 * op  name     payload (big-endian)
 * 1   INCRBY   one or more (u64 h1, u64 h2, u64 increment): the command's pairs, in order
 * 2   SET      the whole sketch in its own format: what CMS.MERGE made of its sources
 * </pre>
 *
 * Op ids are append-only.
 */
public final class CmsCodec implements ValueCodec<CountMinSketch> {

  public static final CmsCodec INSTANCE = new CmsCodec();

  static final byte TYPE_ID = (byte) FormatFamily.COUNT_MIN.id();
  static final byte OP_INCRBY = 1;
  static final byte OP_SET = 2;

  private CmsCodec() {}

  @Override
  public byte typeId() {
    return TYPE_ID;
  }

  /** RedisBloom's module type name, which TYPE replies. */
  @Override
  public String typeName() {
    return "CMSk-TYPE";
  }

  @Override
  public Class<CountMinSketch> valueClass() {
    return CountMinSketch.class;
  }

  static byte[] recipe(int width, int depth) {
    return ByteBuffer.allocate(8).putInt(width).putInt(depth).array();
  }

  @Override
  public CountMinSketch create(byte[] recipe) throws IOException {
    if (recipe.length != 8) {
      throw new IOException("count-min recipe of " + recipe.length + " bytes, not 8");
    }
    ByteBuffer b = ByteBuffer.wrap(recipe);
    long width = b.getInt() & 0xFFFF_FFFFL;
    long depth = b.getInt() & 0xFFFF_FFFFL;
    try {
      return CountMinSketch.create(width, depth);
    } catch (IllegalArgumentException e) {
      throw new IOException("invalid count-min recipe: " + e.getMessage());
    }
  }

  @Override
  public void apply(CountMinSketch value, byte op, byte[] payload) throws IOException {
    switch (op) {
      case OP_INCRBY -> {
        if (payload.length == 0 || payload.length % 24 != 0) {
          throw new IOException("INCRBY payload of " + payload.length + " bytes is not triples");
        }
        ByteBuffer b = ByteBuffer.wrap(payload);
        while (b.hasRemaining()) {
          long h1 = b.getLong();
          long h2 = b.getLong();
          long increment = b.getLong();
          if (increment < 0) {
            throw new IOException("INCRBY of a negative increment " + increment);
          }
          value.add(h1, h2, increment);
        }
      }
      case OP_SET -> {
        CountMinSketch merged =
            CountMinSketch.readFrom(new ByteArrayInputStream(payload), payload.length);
        if (!value.sameShape(merged)
            || !value.setToWeightedSum(new CountMinSketch[] {merged}, new long[] {1})) {
          throw new IOException("SET of a sketch that does not fit this one: " + merged);
        }
      }
      default -> throw new IOException("unknown count-min operation " + op);
    }
  }

  @Override
  public void write(CountMinSketch value, OutputStream out) throws IOException {
    value.writeTo(out);
  }

  @Override
  public CountMinSketch read(InputStream in, long maxBytes) throws IOException {
    return CountMinSketch.readFrom(in, maxBytes);
  }

  /** The counters, plus the object that holds them. */
  @Override
  public long memoryUsage(CountMinSketch value) {
    return value.sizeInBytes() + 64;
  }
}
