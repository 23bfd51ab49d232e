package io.idem.core.filter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/** The checksums and the refusal that Idem's own Bloom and cuckoo dumps share. */
final class DumpChecks {

  private DumpChecks() {}

  /** A chunk's checksum: its place in the filter, then its words, so a chunk cannot move. */
  static int chunkCrc(long offset, byte[] words, int length) {
    CRC32C crc = new CRC32C();
    crc.update(ByteBuffer.allocate(8).putLong(0, offset));
    crc.update(words, 0, length);
    return (int) crc.getValue();
  }

  static int crc(byte[] b, int off, int len) {
    CRC32C crc = new CRC32C();
    crc.update(b, off, len);
    return (int) crc.getValue();
  }

  static IOException bad(String format, Object... args) {
    return new IOException(String.format(format, args));
  }
}
