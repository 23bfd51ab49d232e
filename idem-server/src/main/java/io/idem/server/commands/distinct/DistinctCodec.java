package io.idem.server.commands.distinct;

import io.idem.core.window.Resolution;
import io.idem.core.window.WindowedDistinct;
import io.idem.server.commands.window.Windows;
import io.idem.server.engine.Engine;
import io.idem.server.engine.Entry;
import io.idem.server.engine.ValueCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * How the engine keeps distinct tables durable. As with counter tables, the sketches are the
 * table's rows, written with each addition and nowhere else, so no operation is logged and the
 * snapshot is the recipe. Recipe, big-endian:
 *
 * <pre>
 * u8   row format      1: a row is a HyperLogLog in HyperLogLog.toBytes's encoding
 * u8   precision       4 to 16
 * u8   n               resolutions, 1 to 8
 * n x  u64 bucket      milliseconds, finest first, at least a minute
 *      u64 retention   milliseconds
 * </pre>
 */
public final class DistinctCodec implements ValueCodec<WindowedDistinct> {

  public static final DistinctCodec INSTANCE = new DistinctCodec();

  static final byte TYPE_ID = 18;
  static final int ROW_FORMAT = 1;

  private DistinctCodec() {}

  @Override
  public byte typeId() {
    return TYPE_ID;
  }

  @Override
  public String typeName() {
    return "distinct";
  }

  @Override
  public Class<WindowedDistinct> valueClass() {
    return WindowedDistinct.class;
  }

  static byte[] recipe(int precision, List<Resolution> resolutions) {
    ByteBuffer b = ByteBuffer.allocate(3 + 16 * resolutions.size());
    b.put((byte) ROW_FORMAT).put((byte) precision).put((byte) resolutions.size());
    for (Resolution r : resolutions) {
      b.putLong(r.bucketMillis()).putLong(r.retentionMillis());
    }
    return b.array();
  }

  @Override
  public WindowedDistinct create(byte[] recipe) throws IOException {
    if (recipe.length < 3) {
      throw new IOException("distinct recipe of " + recipe.length + " bytes");
    }
    ByteBuffer b = ByteBuffer.wrap(recipe);
    int format = b.get() & 0xFF;
    if (format != ROW_FORMAT) {
      throw new IOException("distinct rows of format " + format + ", not " + ROW_FORMAT);
    }
    int precision = b.get() & 0xFF;
    if (precision < Distincts.MIN_PRECISION || precision > Distincts.MAX_PRECISION) {
      throw new IOException("distinct recipe of precision " + precision);
    }
    int n = b.get() & 0xFF;
    if (n < 1 || n > WindowedDistinct.MAX_RESOLUTIONS || recipe.length != 3 + 16 * n) {
      throw new IOException(
          "distinct recipe of " + recipe.length + " bytes for " + n + " resolutions");
    }
    List<Resolution> resolutions = new ArrayList<>(n);
    try {
      for (int i = 0; i < n; i++) {
        resolutions.add(new Resolution(b.getLong(), b.getLong()));
      }
      return new WindowedDistinct(resolutions, precision, Distincts.CACHE_SLOTS);
    } catch (IllegalArgumentException e) {
      throw new IOException("invalid distinct recipe: " + e.getMessage());
    }
  }

  @Override
  public void apply(WindowedDistinct value, byte op, byte[] payload) throws IOException {
    throw new IOException("distinct tables log no operations, yet one of type " + op + " is there");
  }

  @Override
  public void write(WindowedDistinct value, OutputStream out) throws IOException {
    out.write(recipe(value.precision(), value.resolutions()));
  }

  @Override
  public WindowedDistinct read(InputStream in, long maxBytes) throws IOException {
    return create(in.readNBytes(3 + 16 * WindowedDistinct.MAX_RESOLUTIONS + 1));
  }

  @Override
  public boolean hasRows() {
    return true;
  }

  @Override
  public boolean hasBackgroundWork() {
    return true;
  }

  /** Drops the rows that hold only buckets past their retention: one range per resolution. */
  @Override
  public boolean background(Engine engine, Entry entry) {
    return Windows.dropExpired(engine, entry, (WindowedDistinct) entry.value());
  }

  /** The resolutions, the object that holds them, and its row cache, as for counter tables. */
  @Override
  public long memoryUsage(WindowedDistinct value) {
    return 96 + 48L * value.resolutions().size() + value.cacheBytes();
  }
}
