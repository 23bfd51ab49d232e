package io.idem.server.commands.distinct;

import io.idem.core.window.Resolution;
import io.idem.core.window.WindowedDistinct;
import io.idem.server.commands.window.WindowedTableCodec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * How the engine keeps distinct tables durable: the sketches are the table's rows, the snapshot its
 * recipe (see {@link WindowedTableCodec}), whose header is
 *
 * <pre>
 * u8   row format      1: a row is a HyperLogLog in HyperLogLog.toBytes's encoding
 * u8   precision       4 to 16
 * </pre>
 *
 * and whose buckets are at least a minute.
 */
public final class DistinctCodec extends WindowedTableCodec<WindowedDistinct> {

  public static final DistinctCodec INSTANCE = new DistinctCodec();

  static final byte TYPE_ID = 18;
  static final int ROW_FORMAT = 1;

  private DistinctCodec() {
    super(2);
  }

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
    return INSTANCE.recipe(new byte[] {(byte) ROW_FORMAT, (byte) precision}, resolutions);
  }

  @Override
  protected byte[] recipeOf(WindowedDistinct table) {
    return recipe(table.precision(), table.resolutions());
  }

  @Override
  protected WindowedDistinct create(ByteBuffer header, List<Resolution> resolutions)
      throws IOException {
    int format = header.get() & 0xFF;
    if (format != ROW_FORMAT) {
      throw new IOException("distinct rows of format " + format + ", not " + ROW_FORMAT);
    }
    int precision = header.get() & 0xFF;
    if (precision < Distincts.MIN_PRECISION || precision > Distincts.MAX_PRECISION) {
      throw new IOException("distinct recipe of precision " + precision);
    }
    return new WindowedDistinct(resolutions, precision, Distincts.CACHE_SLOTS);
  }
}
