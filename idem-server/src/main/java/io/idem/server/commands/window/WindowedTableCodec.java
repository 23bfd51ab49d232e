package io.idem.server.commands.window;

import io.idem.core.window.Resolution;
import io.idem.core.window.WindowedTable;
import io.idem.server.engine.Engine;
import io.idem.server.engine.Entry;
import io.idem.server.engine.Rows;
import io.idem.server.engine.ValueCodec;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * What the codecs of windowed tables share. A table's data are its rows, written with each command
 * and nowhere else; what is resident is only its recipe (and how far its rows have been dropped,
 * which the first background round after a start finds again), so no operation is ever logged and
 * the snapshot is the recipe: a header of the subclass's, then
 *
 * <pre>
 * u8   n               resolutions, 1 to 8
 * n x  u64 bucket      milliseconds, finest first
 *      u64 retention   milliseconds
 * </pre>
 */
public abstract class WindowedTableCodec<T extends WindowedTable> implements ValueCodec<T> {

  private final int headerBytes;

  /**
   * @param headerBytes the bytes of the subclass's header, before the resolutions
   */
  protected WindowedTableCodec(int headerBytes) {
    this.headerBytes = headerBytes;
  }

  /** The recipe: {@code header} and the resolutions. */
  protected final byte[] recipe(byte[] header, List<Resolution> resolutions) {
    ByteBuffer b = ByteBuffer.allocate(headerBytes + 1 + 16 * resolutions.size());
    b.put(header).put((byte) resolutions.size());
    for (Resolution r : resolutions) {
      b.putLong(r.bucketMillis()).putLong(r.retentionMillis());
    }
    return b.array();
  }

  /** A table's recipe, as {@link #recipe(byte[], List)} makes it. */
  protected abstract byte[] recipeOf(T table);

  /** Makes the table from its header and resolutions; IllegalArgumentException if they are bad. */
  protected abstract T create(ByteBuffer header, List<Resolution> resolutions) throws IOException;

  @Override
  public final T create(byte[] recipe) throws IOException {
    if (recipe.length < headerBytes + 1) {
      throw new IOException(typeName() + " recipe of " + recipe.length + " bytes");
    }
    ByteBuffer b = ByteBuffer.wrap(recipe);
    ByteBuffer header = b.slice(0, headerBytes);
    b.position(headerBytes);
    int n = b.get() & 0xFF;
    if (n < 1 || n > WindowedTable.MAX_RESOLUTIONS || recipe.length != headerBytes + 1 + 16 * n) {
      throw new IOException(
          typeName() + " recipe of " + recipe.length + " bytes for " + n + " resolutions");
    }
    List<Resolution> resolutions = new ArrayList<>(n);
    try {
      for (int i = 0; i < n; i++) {
        resolutions.add(new Resolution(b.getLong(), b.getLong()));
      }
      return create(header, resolutions);
    } catch (IllegalArgumentException e) {
      throw new IOException("invalid " + typeName() + " recipe: " + e.getMessage());
    }
  }

  @Override
  public final void apply(T value, byte op, byte[] payload) throws IOException {
    throw new IOException(
        typeName() + " tables log no operations, yet one of type " + op + " is there");
  }

  @Override
  public final void write(T value, OutputStream out) throws IOException {
    out.write(recipeOf(value));
  }

  /** The snapshot, then every row: its key and value, each after its length. */
  @Override
  public final void writeDigest(T value, long valueId, Rows rows, OutputStream out)
      throws IOException {
    write(value, out);
    rows.writeAll(valueId, new DataOutputStream(out));
  }

  @Override
  public final T read(InputStream in, long maxBytes) throws IOException {
    return create(in.readNBytes(headerBytes + 1 + 16 * WindowedTable.MAX_RESOLUTIONS + 1));
  }

  @Override
  public final boolean hasRows() {
    return true;
  }

  @Override
  public final boolean hasBackgroundWork() {
    return true;
  }

  @Override
  public final boolean moveWindow(io.idem.server.engine.KeyTx tx, T value, long now) {
    return Windows.dropRows(tx, value, now);
  }

  /** Drops the rows that hold only buckets past their retention: one range per resolution. */
  @Override
  public final long background(Engine engine, Entry entry) {
    return Windows.dropExpired(engine, entry, (WindowedTable) entry.value());
  }

  /**
   * The resolutions, the object that holds them, and its row cache: its slots once it has a row,
   * and the rows with their keys, as of the engine's last measure (after each write to the table:
   * rows that queries cache count from the next write).
   */
  @Override
  public final long memoryUsage(T value) {
    return 96 + 48L * value.resolutions().size() + value.cacheBytes();
  }
}
