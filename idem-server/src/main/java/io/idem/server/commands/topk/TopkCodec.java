package io.idem.server.commands.topk;

import io.idem.core.format.FormatFamily;
import io.idem.core.sketch.TopK;
import io.idem.server.engine.ValueCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * How the engine keeps TOPK.* values durable. Recipe: u32 k | u32 width | u32 depth | f64 decay |
 * u64 seed of the coin flips. Operations:
 *
 * <pre>
 * op  name     payload (big-endian)
 * 1   INCRBY   one or more (u32 increment, u32 length, the item's bytes): the command's pairs, in
 *              order (TOPK.ADD logs increments of 1)
 * </pre>
 *
 * Op ids are append-only. The sketch carries its generator's state, so replaying the additions in
 * order flips the same coins.
 */
public final class TopkCodec implements ValueCodec<TopK> {

  public static final TopkCodec INSTANCE = new TopkCodec();

  static final byte TYPE_ID = (byte) FormatFamily.TOPK.id();
  static final byte OP_INCRBY = 1;

  private TopkCodec() {}

  @Override
  public byte typeId() {
    return TYPE_ID;
  }

  /** RedisBloom's module type name, which TYPE replies. */
  @Override
  public String typeName() {
    return "TopK-TYPE";
  }

  @Override
  public Class<TopK> valueClass() {
    return TopK.class;
  }

  static byte[] recipe(TopK t, long seed) {
    return ByteBuffer.allocate(28)
        .putInt(t.k())
        .putInt(t.width())
        .putInt(t.depth())
        .putDouble(t.decay())
        .putLong(seed)
        .array();
  }

  @Override
  public TopK create(byte[] recipe) throws IOException {
    if (recipe.length != 28) {
      throw new IOException("top-k recipe of " + recipe.length + " bytes, not 28");
    }
    ByteBuffer b = ByteBuffer.wrap(recipe);
    try {
      return TopK.create(
          b.getInt() & 0xFFFF_FFFFL,
          b.getInt() & 0xFFFF_FFFFL,
          b.getInt() & 0xFFFF_FFFFL,
          b.getDouble(),
          b.getLong());
    } catch (IllegalArgumentException e) {
      throw new IOException("invalid top-k recipe: " + e.getMessage());
    }
  }

  /**
   * The logged form of the command's pairs, made before the sketch changes.
   *
   * @throws IllegalArgumentException if it would not fit one array
   */
  static byte[] pairs(byte[][] items, long[] increments) {
    long size = 0;
    for (byte[] item : items) {
      size += 8L + item.length;
    }
    if (size > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("the pairs take " + size + " bytes");
    }
    ByteBuffer b = ByteBuffer.allocate((int) size);
    for (int i = 0; i < items.length; i++) {
      b.putInt((int) increments[i]).putInt(items[i].length).put(items[i]);
    }
    return b.array();
  }

  @Override
  public void apply(TopK value, byte op, byte[] payload) throws IOException {
    if (op != OP_INCRBY) {
      throw new IOException("unknown top-k operation " + op);
    }
    ByteBuffer b = ByteBuffer.wrap(payload);
    io.idem.core.hash.Hash128 h = new io.idem.core.hash.Hash128();
    if (!b.hasRemaining()) {
      throw new IOException("INCRBY payload is empty");
    }
    while (b.hasRemaining()) {
      if (b.remaining() < 8) {
        throw new IOException("INCRBY payload ends inside a pair");
      }
      long increment = b.getInt() & 0xFFFF_FFFFL;
      int length = b.getInt();
      if (length < 0 || length > b.remaining() || increment > Topk.MAX_INCREMENT) {
        throw new IOException("INCRBY pair of length " + length + ", increment " + increment);
      }
      byte[] item = new byte[length];
      b.get(item);
      value.add(item, h.hash(item), increment);
    }
  }

  @Override
  public void write(TopK value, OutputStream out) throws IOException {
    value.writeTo(out);
  }

  @Override
  public TopK read(InputStream in, long maxBytes) throws IOException {
    return TopK.readFrom(in, maxBytes);
  }

  /** The buckets, heap and items, plus the object that holds them. */
  @Override
  public long memoryUsage(TopK value) {
    return value.sizeInBytes() + 2048 + 96; // the decay table, the object
  }
}
