package io.idem.bench.claims;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes RESP2 commands (arrays of bulk strings) into its own buffer, which goes to the stream when
 * full or on {@link #flush}. Not thread-safe. Ids and owners are written straight from longs,
 * big-endian, so a command of a million claims allocates nothing.
 */
public final class RespWriter {
  private final OutputStream out;
  private final byte[] buf;
  private int pos;

  public RespWriter(OutputStream out) {
    this(out, 1 << 16);
  }

  public RespWriter(OutputStream out, int bufferBytes) {
    if (bufferBytes < 64) {
      throw new IllegalArgumentException("buffer (" + bufferBytes + ") must be >= 64 bytes");
    }
    this.out = out;
    this.buf = new byte[bufferBytes];
  }

  /** Starts a command of {@code n} arguments, its name included; n bulk strings must follow. */
  public RespWriter array(int n) throws IOException {
    return header('*', n);
  }

  public RespWriter bulk(byte[] bytes) throws IOException {
    return bulk(bytes, 0, bytes.length);
  }

  public RespWriter bulk(byte[] bytes, int offset, int length) throws IOException {
    header('$', length);
    raw(bytes, offset, length);
    return crlf();
  }

  /** A string argument as UTF-8. */
  public RespWriter bulk(String text) throws IOException {
    return bulk(text.getBytes(StandardCharsets.UTF_8));
  }

  /** A number argument in decimal, as Redis expects a count, a time or a TTL. */
  public RespWriter bulkDecimal(long value) throws IOException {
    ensure(32);
    int length = decimalLength(value);
    header('$', length);
    pos = putDecimal(pos, value);
    return crlf();
  }

  /** A 16-byte bulk string: {@code hi} then {@code lo}, big-endian (a binary UUID). */
  public RespWriter bulk16(long hi, long lo) throws IOException {
    ensure(16 + 5 + 2);
    buf[pos++] = '$';
    buf[pos++] = '1';
    buf[pos++] = '6';
    buf[pos++] = '\r';
    buf[pos++] = '\n';
    putLong(hi);
    putLong(lo);
    return crlf();
  }

  /** An 8-byte bulk string: {@code value}, big-endian. */
  public RespWriter bulk8(long value) throws IOException {
    ensure(8 + 4 + 2);
    buf[pos++] = '$';
    buf[pos++] = '8';
    buf[pos++] = '\r';
    buf[pos++] = '\n';
    putLong(value);
    return crlf();
  }

  /** Sends everything buffered. */
  public void flush() throws IOException {
    if (pos > 0) {
      out.write(buf, 0, pos);
      pos = 0;
    }
    out.flush();
  }

  private RespWriter header(char type, long n) throws IOException {
    ensure(24);
    buf[pos++] = (byte) type;
    pos = putDecimal(pos, n);
    return crlf();
  }

  private RespWriter crlf() throws IOException {
    ensure(2);
    buf[pos++] = '\r';
    buf[pos++] = '\n';
    return this;
  }

  /** Writes bytes already encoded as RESP (a whole command). */
  public RespWriter raw(byte[] bytes) throws IOException {
    raw(bytes, 0, bytes.length);
    return this;
  }

  private void raw(byte[] bytes, int offset, int length) throws IOException {
    if (length > buf.length - pos) {
      drain();
      if (length > buf.length) {
        out.write(bytes, offset, length);
        return;
      }
    }
    System.arraycopy(bytes, offset, buf, pos, length);
    pos += length;
  }

  private void putLong(long v) {
    for (int shift = 56; shift >= 0; shift -= 8) {
      buf[pos++] = (byte) (v >>> shift);
    }
  }

  /** Writes {@code v} in decimal at {@code at}; returns the end. The caller ensured 20 bytes. */
  private int putDecimal(int at, long v) {
    int end = at + decimalLength(v);
    int i = end;
    // Digits from the last, on the value made non-positive so that Long.MIN_VALUE needs no case.
    long n = v < 0 ? v : -v;
    do {
      buf[--i] = (byte) ('0' - n % 10);
      n /= 10;
    } while (n != 0);
    if (v < 0) {
      buf[--i] = '-';
    }
    return end;
  }

  private static int decimalLength(long v) {
    int length = v < 0 ? 2 : 1;
    for (long n = v < 0 ? v : -v; n <= -10; n /= 10) {
      length++;
    }
    return length;
  }

  private void ensure(int n) throws IOException {
    if (buf.length - pos < n) {
      drain();
    }
  }

  private void drain() throws IOException {
    out.write(buf, 0, pos);
    pos = 0;
  }
}
