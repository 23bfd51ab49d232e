package io.idem.server.commands.counter;

import io.idem.core.window.CounterRow;
import io.idem.core.window.Resolution;
import io.idem.core.window.WindowedCounters;
import io.idem.server.commands.window.WindowedTableCodec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * How the engine keeps counter tables durable: the counts are the table's rows, the snapshot its
 * recipe (see {@link WindowedTableCodec}), whose header is
 *
 * <pre>
 * u8   row format      1 (see CounterRow)
 * </pre>
 */
public final class CounterCodec extends WindowedTableCodec<WindowedCounters> {

  public static final CounterCodec INSTANCE = new CounterCodec();

  static final byte TYPE_ID = 17;

  private CounterCodec() {
    super(1);
  }

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
    return INSTANCE.recipe(new byte[] {(byte) CounterRow.FORMAT}, resolutions);
  }

  @Override
  protected byte[] recipeOf(WindowedCounters table) {
    return recipe(table.resolutions());
  }

  @Override
  protected WindowedCounters create(ByteBuffer header, List<Resolution> resolutions)
      throws IOException {
    int format = header.get() & 0xFF;
    if (format != CounterRow.FORMAT) {
      throw new IOException("counter rows of format " + format + ", not " + CounterRow.FORMAT);
    }
    return new WindowedCounters(resolutions, Counters.CACHE_SLOTS);
  }
}
