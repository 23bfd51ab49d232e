package io.idem.core.format;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Writes one framed structure: the 8-byte header, the family's body in big-endian order, and a
 * CRC32C trailer over every byte before it. See {@link FormatInput} for the frame's byte table.
 */
public final class FormatOutput implements AutoCloseable {
  private final OutputStream out;
  private final CRC32C crc = new CRC32C();
  private final ByteBuffer buf = ByteBuffer.allocate(64 * 1024).order(ByteOrder.BIG_ENDIAN);

  private FormatOutput(OutputStream out) {
    this.out = out;
  }

  /** Starts a frame: writes the header for {@code family} at {@code version}. */
  public static FormatOutput begin(
      OutputStream out, FormatFamily family, int version, int hashFunctionId) throws IOException {
    FormatOutput f = new FormatOutput(out);
    f.writeInt(FormatInput.MAGIC);
    f.writeByte(family.id());
    f.writeByte(version);
    f.writeByte(hashFunctionId);
    f.writeByte(0); // reserved
    return f;
  }

  public void writeByte(int v) throws IOException {
    room(1);
    buf.put((byte) v);
  }

  public void writeShort(int v) throws IOException {
    room(2);
    buf.putShort((short) v);
  }

  public void writeInt(int v) throws IOException {
    room(4);
    buf.putInt(v);
  }

  public void writeLong(long v) throws IOException {
    room(8);
    buf.putLong(v);
  }

  public void writeDouble(double v) throws IOException {
    writeLong(Double.doubleToRawLongBits(v));
  }

  public void writeLongs(long[] words, int offset, int count) throws IOException {
    for (int i = offset; i < offset + count; i++) {
      writeLong(words[i]);
    }
  }

  public void writeBytes(byte[] bytes) throws IOException {
    for (int done = 0; done < bytes.length; ) {
      if (!buf.hasRemaining()) {
        drain();
      }
      int n = Math.min(buf.remaining(), bytes.length - done);
      buf.put(bytes, done, n);
      done += n;
    }
  }

  /** Writes the CRC32C trailer and flushes; the stream stays open. */
  public void finish() throws IOException {
    drain();
    int sum = (int) crc.getValue();
    out.write(
        new byte[] {(byte) (sum >>> 24), (byte) (sum >>> 16), (byte) (sum >>> 8), (byte) sum});
    out.flush();
  }

  @Override
  public void close() {
    // Nothing to release: the caller owns the stream. Present so a frame reads as a block.
  }

  private void room(int n) throws IOException {
    if (buf.remaining() < n) {
      drain();
    }
  }

  private void drain() throws IOException {
    crc.update(buf.array(), 0, buf.position());
    out.write(buf.array(), 0, buf.position());
    buf.clear();
  }
}
