package io.idem.core.format;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Reads one framed structure from untrusted bytes. Every failure is an {@link IOException} that
 * says what is wrong. No array is sized by a length read from the input: arrays start at most 1 MiB
 * and double only as their bytes actually arrive.
 *
 * <p>The frame, shared by every family (all integers big-endian):
 *
 * <pre>
 * offset  size  field
 * 0       4     magic "IDEM" (0x4944454D)
 * 4       1     family id ({@link FormatFamily})
 * 5       1     format version of that family
 * 6       1     hash function id ({@code Hash128.FUNCTION_ID})
 * 7       1     reserved, 0
 * 8       n     body: the family's own table, beside its writer
 * 8+n     4     CRC32C of bytes [0, 8+n)
 * </pre>
 */
public final class FormatInput {
  static final int MAGIC = 0x4944454D;

  /** Arrays start at most this many elements, and double as their bytes arrive. */
  private static final int GROWTH_STEP = 1 << 17;

  private final InputStream in;
  private final CRC32C crc = new CRC32C();
  private final long maxBytes;
  private final byte[] scratch = new byte[8 * 1024];
  private final FormatFamily family;
  private long consumed;
  private int version;

  private FormatInput(InputStream in, long maxBytes, FormatFamily family) {
    this.in = in;
    this.maxBytes = maxBytes;
    this.family = family;
  }

  /**
   * Reads and checks the header: magic, the expected family, a version this build knows (1 to
   * {@code maxVersion}), the hash function and the reserved byte.
   *
   * @param maxBytes the most bytes this frame may take; a larger declared size is refused
   */
  public static FormatInput begin(
      InputStream in, FormatFamily expected, int maxVersion, int hashFunctionId, long maxBytes)
      throws IOException {
    FormatInput f = new FormatInput(in, maxBytes, expected);
    int magic = f.readInt();
    if (magic != MAGIC) {
      throw new IOException(String.format("not an Idem structure: bad magic 0x%08x", magic));
    }
    int familyId = f.readUnsignedByte();
    FormatFamily family = FormatFamily.byId(familyId);
    if (family != expected) {
      throw new IOException(
          "expected a "
              + expected
              + " structure but found "
              + (family == null ? "unknown family id " + familyId : family.toString()));
    }
    int version = f.readUnsignedByte();
    if (version < 1 || version > maxVersion) {
      throw new IOException(
          "unsupported "
              + expected
              + " format version "
              + version
              + " (this build reads 1 to "
              + maxVersion
              + ")");
    }
    int hash = f.readUnsignedByte();
    if (hash != hashFunctionId) {
      throw new IOException(
          "unsupported hash function id " + hash + " (this build uses " + hashFunctionId + ")");
    }
    int reserved = f.readUnsignedByte();
    if (reserved != 0) {
      throw new IOException("reserved header byte is " + reserved + ", expected 0");
    }
    f.version = version;
    return f;
  }

  public FormatFamily family() {
    return family;
  }

  public int version() {
    return version;
  }

  /**
   * Fails unless {@code bytes} more bytes, plus the trailer, fit in the frame's limit. Readers call
   * this with the size a header declares, before reading the payload.
   */
  public void expect(long bytes, String what) throws IOException {
    if (bytes < 0 || bytes > maxBytes - consumed - 4) {
      throw new IOException(
          what + " declares " + bytes + " bytes, over the limit of " + maxBytes + " bytes");
    }
  }

  public int readUnsignedByte() throws IOException {
    fill(1);
    return scratch[0] & 0xff;
  }

  public int readUnsignedShort() throws IOException {
    fill(2);
    return ((scratch[0] & 0xff) << 8) | (scratch[1] & 0xff);
  }

  public int readInt() throws IOException {
    fill(4);
    return intAt(scratch, 0);
  }

  public long readLong() throws IOException {
    fill(8);
    return longAt(scratch, 0);
  }

  public double readDouble() throws IOException {
    return Double.longBitsToDouble(readLong());
  }

  /**
   * Reads {@code count} longs. The array grows only as their bytes arrive, so a truncated or lying
   * input costs at most about three times what it really sent (old and new array while doubling),
   * plus the first 1 MiB.
   */
  public long[] readLongs(long count, String what) throws IOException {
    if (count < 0 || count > Integer.MAX_VALUE - 8) {
      throw new IOException(what + " declares " + count + " words, too many");
    }
    expect(count * 8, what);
    int n = (int) count;
    long[] words = new long[Math.min(n, GROWTH_STEP)];
    int done = 0;
    while (done < n) {
      if (done == words.length) {
        words = Arrays.copyOf(words, (int) Math.min(n, (long) words.length * 2));
      }
      int batch = Math.min(Math.min(words.length - done, scratch.length / 8), n - done);
      fill(batch * 8);
      for (int i = 0; i < batch; i++) {
        words[done + i] = longAt(scratch, i * 8);
      }
      done += batch;
    }
    return words;
  }

  /**
   * Reads {@code count} bytes, which must fit the frame's limit. As with {@link #readLongs}, the
   * array grows only as the bytes arrive, so a lying length costs little.
   */
  public byte[] readBytes(int count, String what) throws IOException {
    if (count < 0) {
      throw new IOException(what + " declares " + count + " bytes");
    }
    expect(count, what);
    byte[] bytes = new byte[Math.min(count, GROWTH_STEP * 8)];
    int done = 0;
    while (done < count) {
      if (done == bytes.length) {
        bytes = Arrays.copyOf(bytes, (int) Math.min(count, (long) bytes.length * 2));
      }
      int batch = Math.min(Math.min(scratch.length, bytes.length - done), count - done);
      fill(batch);
      System.arraycopy(scratch, 0, bytes, done, batch);
      done += batch;
    }
    return bytes;
  }

  /** Reads and checks the CRC32C trailer. */
  public void finish() throws IOException {
    int expected = (int) crc.getValue();
    int actual = readIntUnchecked();
    if (expected != actual) {
      throw new IOException(
          String.format(
              "%s checksum mismatch: stored 0x%08x, computed 0x%08x (corrupt bytes)",
              family, actual, expected));
    }
  }

  /** Throws a format error naming the field and the bad value. */
  public static IOException invalid(String field, Object value, String rule) {
    return new IOException(field + " (" + value + ") " + rule);
  }

  private int readIntUnchecked() throws IOException {
    readFully(4);
    return intAt(scratch, 0);
  }

  private void fill(int n) throws IOException {
    if (consumed + n + 4 > maxBytes) {
      throw new IOException("structure is over the limit of " + maxBytes + " bytes");
    }
    readFully(n);
    crc.update(scratch, 0, n);
  }

  private void readFully(int n) throws IOException {
    int off = 0;
    while (off < n) {
      int r = in.read(scratch, off, n - off);
      if (r < 0) {
        throw new EOFException(
            "truncated " + family + ": ended after " + (consumed + off) + " bytes");
      }
      off += r;
    }
    consumed += n;
  }

  private static int intAt(byte[] b, int i) {
    return ((b[i] & 0xff) << 24)
        | ((b[i + 1] & 0xff) << 16)
        | ((b[i + 2] & 0xff) << 8)
        | (b[i + 3] & 0xff);
  }

  private static long longAt(byte[] b, int i) {
    return ((long) intAt(b, i) << 32) | (intAt(b, i + 4) & 0xffffffffL);
  }
}
