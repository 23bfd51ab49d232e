package io.idem.server.commands.hll;

import io.idem.core.format.FormatFamily;
import io.idem.core.sketch.HyperLogLog;
import io.idem.server.engine.ValueCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * How the engine keeps PF* values durable. Recipe: u8 precision. Operations:
 *
 * <pre>
 * op  name    payload
 * 1   RAISE   one or more big-endian u24 (register &lt;&lt; 6 | rank): the registers PFADD raised
 * 2   MERGE   a whole sketch in {@link HyperLogLog#toBytes}'s encoding, folded in by maximum:
 *             what PFMERGE made of its sources
 * </pre>
 *
 * Op ids are append-only. Both operations only raise registers, so replaying one twice changes
 * nothing.
 */
public final class HllCodec implements ValueCodec<HyperLogLog> {

  public static final HllCodec INSTANCE = new HllCodec();

  static final byte TYPE_ID = (byte) FormatFamily.HYPERLOGLOG.id();
  static final byte OP_RAISE = 1;
  static final byte OP_MERGE = 2;

  private HllCodec() {}

  @Override
  public byte typeId() {
    return TYPE_ID;
  }

  /** What Redis's TYPE replies for a HyperLogLog, which it keeps in a string. */
  @Override
  public String typeName() {
    return "string";
  }

  @Override
  public Class<HyperLogLog> valueClass() {
    return HyperLogLog.class;
  }

  static byte[] recipe(int precision) {
    return new byte[] {(byte) precision};
  }

  @Override
  public HyperLogLog create(byte[] recipe) throws IOException {
    if (recipe.length != 1) {
      throw new IOException("HyperLogLog recipe of " + recipe.length + " bytes, not 1");
    }
    try {
      return HyperLogLog.create(recipe[0]);
    } catch (IllegalArgumentException e) {
      throw new IOException("invalid HyperLogLog recipe: " + e.getMessage());
    }
  }

  /** The u24 that logs one raised register. */
  static void putRaise(byte[] payload, int at, int register, int rank) {
    int e = register << 6 | rank;
    payload[at] = (byte) (e >>> 16);
    payload[at + 1] = (byte) (e >>> 8);
    payload[at + 2] = (byte) e;
  }

  @Override
  public void apply(HyperLogLog value, byte op, byte[] payload) throws IOException {
    switch (op) {
      case OP_RAISE -> {
        if (payload.length == 0 || payload.length % 3 != 0) {
          throw new IOException("RAISE payload of " + payload.length + " bytes is not u24s");
        }
        for (int at = 0; at < payload.length; at += 3) {
          int e =
              (payload[at] & 0xff) << 16 | (payload[at + 1] & 0xff) << 8 | (payload[at + 2] & 0xff);
          try {
            value.raise(e >>> 6, e & 63);
          } catch (IllegalArgumentException bad) {
            throw new IOException("RAISE of " + bad.getMessage());
          }
        }
      }
      case OP_MERGE -> {
        HyperLogLog other = HyperLogLog.fromBytes(payload);
        if (!value.samePrecision(other)) {
          throw new IOException(
              "MERGE of precision " + other.precision() + " into " + value.precision());
        }
        value.merge(other);
      }
      default -> throw new IOException("unknown HyperLogLog operation " + op);
    }
  }

  @Override
  public void write(HyperLogLog value, OutputStream out) throws IOException {
    value.writeTo(out);
  }

  @Override
  public HyperLogLog read(InputStream in, long maxBytes) throws IOException {
    return HyperLogLog.readFrom(in, maxBytes);
  }

  /** The registers, plus the object that holds them. */
  @Override
  public long memoryUsage(HyperLogLog value) {
    return value.sizeInBytes() + 48;
  }
}
