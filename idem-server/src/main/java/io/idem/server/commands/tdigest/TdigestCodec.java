package io.idem.server.commands.tdigest;

import io.idem.core.format.FormatFamily;
import io.idem.core.sketch.TDigest;
import io.idem.server.engine.ValueCodec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * How the engine keeps TDIGEST.* values durable. Recipe: u64 compression. Operations:
 *
 * <pre>
 * op  name   payload (big-endian)
 * 1   ADD    u64 the digest's compressions when the command began | f64 each value, in order
 * 2   RESET  nothing
 * 3   SET    the whole digest in its format (TDIGEST.MERGE's result, compression included)
 * </pre>
 *
 * Op ids are append-only.
 *
 * <p>Queries compress a digest in place, as RedisBloom's do, and that moves its centroids, but a
 * query logs nothing. The next ADD says how many compressions the digest had seen when it began; a
 * replay that is one short (a query compressed the buffer since the last record) compresses first.
 * A query compresses a buffer at most once between two writes (after that the buffer is empty), so
 * the replayed digest is the live one at every logged write. Between the last write and a crash, a
 * reloaded digest may still hold the buffer a query had compressed: every answer is the same (each
 * query compresses first); only what INFO shows of nodes, weights and compressions can differ.
 */
public final class TdigestCodec implements ValueCodec<TDigest> {

  public static final TdigestCodec INSTANCE = new TdigestCodec();

  static final byte TYPE_ID = (byte) FormatFamily.TDIGEST.id();
  static final byte OP_ADD = 1;
  static final byte OP_RESET = 2;
  static final byte OP_SET = 3;

  private TdigestCodec() {}

  @Override
  public byte typeId() {
    return TYPE_ID;
  }

  /** RedisBloom's module type name, which TYPE replies. */
  @Override
  public String typeName() {
    return "TDIS-TYPE";
  }

  @Override
  public Class<TDigest> valueClass() {
    return TDigest.class;
  }

  static byte[] recipe(long compression) {
    return ByteBuffer.allocate(8).putLong(compression).array();
  }

  @Override
  public TDigest create(byte[] recipe) throws IOException {
    if (recipe.length != 8) {
      throw new IOException("t-digest recipe of " + recipe.length + " bytes, not 8");
    }
    long compression = ByteBuffer.wrap(recipe).getLong();
    if (compression < 1 || compression > TDigest.MAX_COMPRESSION) {
      throw new IOException("t-digest recipe compression " + compression + " is out of range");
    }
    return TDigest.create(compression);
  }

  /**
   * ADD's record: the compressions so far, then the values.
   *
   * @throws IllegalArgumentException if it would not fit one array
   */
  static byte[] added(TDigest t, double[] values) {
    long size = 8 + 8L * values.length;
    if (size > Integer.MAX_VALUE - 64) { // the journal adds its header to the record
      throw new IllegalArgumentException("the values take " + size + " bytes");
    }
    ByteBuffer b = ByteBuffer.allocate((int) size).putLong(t.totalCompressions());
    for (double v : values) {
      b.putDouble(v);
    }
    return b.array();
  }

  /** The digest in its format: SET's record. */
  static byte[] state(TDigest t) {
    ByteArrayOutputStream out =
        new ByteArrayOutputStream((int) Math.min(1 << 20, 64 + 16L * t.capacity()));
    try {
      t.writeTo(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return out.toByteArray();
  }

  @Override
  public void apply(TDigest value, byte op, byte[] payload) throws IOException {
    switch (op) {
      case OP_ADD -> {
        if (payload.length < 16 || payload.length % 8 != 0) {
          throw new IOException("ADD payload of " + payload.length + " bytes");
        }
        ByteBuffer b = ByteBuffer.wrap(payload);
        long compressions = b.getLong();
        if (value.totalCompressions() == compressions - 1) {
          value.compress(); // a query compressed the live digest here
        }
        if (value.totalCompressions() != compressions) {
          throw new IOException(
              "ADD logged after "
                  + compressions
                  + " compressions, the digest has seen "
                  + value.totalCompressions());
        }
        int n = b.remaining() / 8;
        if (value.observations() > Long.MAX_VALUE - n) {
          throw new IOException("ADD of " + n + " values would overflow the total weight");
        }
        while (b.hasRemaining()) {
          double v = b.getDouble();
          if (!value.add(v)) {
            throw new IOException("ADD of a value that is not finite: " + v);
          }
        }
      }
      case OP_RESET -> {
        if (payload.length != 0) {
          throw new IOException("RESET payload of " + payload.length + " bytes");
        }
        value.reset();
      }
      case OP_SET ->
          value.become(TDigest.readFrom(new ByteArrayInputStream(payload), payload.length));
      default -> throw new IOException("unknown t-digest operation " + op);
    }
  }

  @Override
  public void write(TDigest value, OutputStream out) throws IOException {
    value.writeTo(out);
  }

  @Override
  public TDigest read(InputStream in, long maxBytes) throws IOException {
    return TDigest.readFrom(in, maxBytes);
  }

  /** The node slots in use plus the object and its arrays' headers. */
  @Override
  public long memoryUsage(TDigest value) {
    return value.sizeInBytes() + 128;
  }
}
