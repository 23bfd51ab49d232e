package io.idem.server.commands.throttle;

import io.idem.server.engine.ValueCodec;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * How the engine keeps CL.THROTTLE's limiters durable. A limiter is one number, its theoretical
 * arrival time (TAT, Unix nanoseconds), and the key expires at it, when the limiter is full again.
 * Recipe: empty. Snapshot: i64 TAT. Operations:
 *
 * <pre>
 * op  name  payload
 * 1   SET   i64 TAT: what a request let through left
 * </pre>
 *
 * Op ids are append-only. SET replaces, so replaying one twice changes nothing.
 */
public final class ThrottleCodec implements ValueCodec<ThrottleCodec.Limiter> {

  public static final ThrottleCodec INSTANCE = new ThrottleCodec();

  static final byte TYPE_ID = 21;
  static final byte OP_SET = 1;

  /** A limiter: its TAT in Unix nanoseconds. */
  public static final class Limiter {
    long tatNanos;

    public long tatNanos() {
      return tatNanos;
    }
  }

  private ThrottleCodec() {}

  @Override
  public byte typeId() {
    return TYPE_ID;
  }

  /** What Redis's TYPE replies for redis-cell's limiter, which it keeps in a string. */
  @Override
  public String typeName() {
    return "string";
  }

  @Override
  public Class<Limiter> valueClass() {
    return Limiter.class;
  }

  @Override
  public Limiter create(byte[] recipe) throws IOException {
    if (recipe.length != 0) {
      throw new IOException("a limiter's recipe is empty, not " + recipe.length + " bytes");
    }
    return new Limiter();
  }

  static byte[] set(long tatNanos) {
    return ByteBuffer.allocate(8).putLong(tatNanos).array();
  }

  @Override
  public void apply(Limiter value, byte op, byte[] payload) throws IOException {
    if (op != OP_SET) {
      throw new IOException("unknown limiter operation " + op);
    }
    if (payload.length != 8) {
      throw new IOException("SET payload of " + payload.length + " bytes, not 8");
    }
    value.tatNanos = ByteBuffer.wrap(payload).getLong();
  }

  @Override
  public void write(Limiter value, OutputStream out) throws IOException {
    new DataOutputStream(out).writeLong(value.tatNanos);
  }

  @Override
  public Limiter read(InputStream in, long maxBytes) throws IOException {
    if (maxBytes < 8) {
      throw new IOException("a limiter is 8 bytes, over the " + maxBytes + " allowed");
    }
    Limiter l = new Limiter();
    l.tatNanos = new DataInputStream(in).readLong();
    return l;
  }

  /** The number, and the object that holds it. */
  @Override
  public long memoryUsage(Limiter value) {
    return 24;
  }
}
