package io.idem.server.commands.counter;

import io.idem.core.window.CounterRow;
import io.idem.core.window.Resolution;
import io.idem.core.window.WindowedCounters;
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
 * How the engine keeps counter tables durable. The counts are the table's rows, written with each
 * increment and nowhere else; what is resident is only the table's resolutions (and how far its
 * rows have been dropped, which the first background round after a start finds again), so no
 * operation is ever logged and the snapshot is the recipe. Recipe, big-endian:
 *
 * <pre>
 * u8   row format      1 (see CounterRow)
 * u8   n               resolutions, 1 to 8
 * n x  u64 bucket      milliseconds, finest first
 *      u64 retention   milliseconds
 * </pre>
 */
public final class CounterCodec implements ValueCodec<WindowedCounters> {

  public static final CounterCodec INSTANCE = new CounterCodec();

  static final byte TYPE_ID = 17;

  private CounterCodec() {}

  @Override
  public byte typeId() {
    return TYPE_ID;
  }

  @Override
  public String typeName() {
    return "counter";
  }

  @Override
  public Class<WindowedCounters> valueClass() {
    return WindowedCounters.class;
  }

  static byte[] recipe(List<Resolution> resolutions) {
    ByteBuffer b = ByteBuffer.allocate(2 + 16 * resolutions.size());
    b.put((byte) CounterRow.FORMAT).put((byte) resolutions.size());
    for (Resolution r : resolutions) {
      b.putLong(r.bucketMillis()).putLong(r.retentionMillis());
    }
    return b.array();
  }

  @Override
  public WindowedCounters create(byte[] recipe) throws IOException {
    if (recipe.length < 2) {
      throw new IOException("counter recipe of " + recipe.length + " bytes");
    }
    ByteBuffer b = ByteBuffer.wrap(recipe);
    int format = b.get() & 0xFF;
    if (format != CounterRow.FORMAT) {
      throw new IOException("counter rows of format " + format + ", not " + CounterRow.FORMAT);
    }
    int n = b.get() & 0xFF;
    if (n < 1 || n > WindowedCounters.MAX_RESOLUTIONS || recipe.length != 2 + 16 * n) {
      throw new IOException(
          "counter recipe of " + recipe.length + " bytes for " + n + " resolutions");
    }
    List<Resolution> resolutions = new ArrayList<>(n);
    try {
      for (int i = 0; i < n; i++) {
        resolutions.add(new Resolution(b.getLong(), b.getLong()));
      }
      return new WindowedCounters(resolutions, Counters.CACHE_SLOTS);
    } catch (IllegalArgumentException e) {
      throw new IOException("invalid counter recipe: " + e.getMessage());
    }
  }

  @Override
  public void apply(WindowedCounters value, byte op, byte[] payload) throws IOException {
    throw new IOException("counter tables log no operations, yet one of type " + op + " is there");
  }

  @Override
  public void write(WindowedCounters value, OutputStream out) throws IOException {
    out.write(recipe(value.resolutions()));
  }

  @Override
  public WindowedCounters read(InputStream in, long maxBytes) throws IOException {
    byte[] recipe = in.readNBytes(2 + 16 * WindowedCounters.MAX_RESOLUTIONS + 1);
    return create(recipe);
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
    return Windows.dropExpired(engine, entry, (WindowedCounters) entry.value());
  }

  /**
   * The resolutions, the object that holds them, and its row cache: its slots once it has a row,
   * and the rows with their keys, as of the engine's last measure (after each write to the table:
   * rows that queries cache count from the next write).
   */
  @Override
  public long memoryUsage(WindowedCounters value) {
    return 96 + 48L * value.resolutions().size() + value.cacheBytes();
  }
}
