package io.idem.bench.claims;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Reads RESP2 replies from a stream through its own buffer. Not thread-safe: one reader per
 * connection, used by one thread.
 *
 * <p>Every length the server controls is bounded: a bulk string, an array, the nesting depth and a
 * simple line each have a limit, and a reply beyond one is a {@link RespProtocolException} naming
 * the limit, never a large allocation. After any exception the stream position is unknown: close
 * the connection.
 */
public final class RespReader {
  public static final int DEFAULT_MAX_BULK_BYTES = 64 << 20;
  public static final int DEFAULT_MAX_ARRAY_LENGTH = 1 << 22;
  public static final int DEFAULT_MAX_DEPTH = 8;
  public static final int DEFAULT_MAX_LINE_BYTES = 64 << 10;

  private final InputStream in;
  private final byte[] buf;
  private int pos;
  private int limit;
  private final int maxBulkBytes;
  private final int maxArrayLength;
  private final int maxDepth;
  private final int maxLineBytes;
  private byte[] line = new byte[64];

  public RespReader(InputStream in) {
    this(
        in,
        1 << 16,
        DEFAULT_MAX_BULK_BYTES,
        DEFAULT_MAX_ARRAY_LENGTH,
        DEFAULT_MAX_DEPTH,
        DEFAULT_MAX_LINE_BYTES);
  }

  public RespReader(
      InputStream in,
      int bufferBytes,
      int maxBulkBytes,
      int maxArrayLength,
      int maxDepth,
      int maxLineBytes) {
    if (bufferBytes < 1 || maxBulkBytes < 0 || maxArrayLength < 0 || maxDepth < 1) {
      throw new IllegalArgumentException("bad reader limits");
    }
    this.in = in;
    this.buf = new byte[bufferBytes];
    this.maxBulkBytes = maxBulkBytes;
    this.maxArrayLength = maxArrayLength;
    this.maxDepth = maxDepth;
    this.maxLineBytes = maxLineBytes;
  }

  /** Reads one whole reply; blocks until it has arrived. */
  public Resp read() throws IOException {
    if (pos == limit && !fill()) {
      throw new EOFException("the server closed the connection before a reply");
    }
    return read(1);
  }

  private Resp read(int depth) throws IOException {
    byte type = next();
    return switch (type) {
      case '+' -> new Resp.Simple(readLine());
      case '-' -> new Resp.Err(readLine());
      case ':' -> new Resp.Int(readLong());
      case '$' -> readBulk();
      case '*' -> readArray(depth);
      default -> throw new RespProtocolException("unexpected reply type byte " + show(type));
    };
  }

  private Resp readBulk() throws IOException {
    long n = readLong();
    if (n == -1) {
      return Resp.NIL;
    }
    if (n < 0) {
      throw new RespProtocolException("bulk string length " + n + " is negative");
    }
    if (n > maxBulkBytes) {
      throw new RespProtocolException(
          "bulk string length " + n + " exceeds the limit of " + maxBulkBytes + " bytes");
    }
    byte[] bytes = new byte[(int) n];
    int done = 0;
    while (done < bytes.length) {
      if (pos == limit) {
        fillOrFail();
      }
      int k = Math.min(bytes.length - done, limit - pos);
      System.arraycopy(buf, pos, bytes, done, k);
      pos += k;
      done += k;
    }
    expectCrlf("bulk string");
    return new Resp.Bulk(bytes);
  }

  private Resp readArray(int depth) throws IOException {
    long n = readLong();
    if (n == -1) {
      return Resp.NIL;
    }
    if (n < 0) {
      throw new RespProtocolException("array length " + n + " is negative");
    }
    if (n > maxArrayLength) {
      throw new RespProtocolException(
          "array length " + n + " exceeds the limit of " + maxArrayLength);
    }
    if (n == 0) {
      return new Resp.Array(List.of());
    }
    if (depth >= maxDepth) {
      throw new RespProtocolException("arrays nested deeper than " + maxDepth);
    }
    Resp[] elements = new Resp[(int) n];
    for (int i = 0; i < elements.length; i++) {
      elements[i] = read(depth + 1);
    }
    return new Resp.Array(Arrays.asList(elements));
  }

  /** A decimal integer up to CRLF: an optional '-' and 1 to 19 digits, no overflow. */
  private long readLong() throws IOException {
    byte b = next();
    boolean negative = b == '-';
    if (negative) {
      b = next();
    }
    long value = 0;
    int digits = 0;
    while (b != '\r') {
      if (b < '0' || b > '9') {
        throw new RespProtocolException("expected a digit in an integer, got " + show(b));
      }
      if (++digits > 19 || value > (Long.MAX_VALUE - (b - '0')) / 10) {
        throw new RespProtocolException("integer out of range");
      }
      value = value * 10 + (b - '0');
      b = next();
    }
    if (digits == 0) {
      throw new RespProtocolException("expected a digit in an integer, got " + show(b));
    }
    if (next() != '\n') {
      throw new RespProtocolException("expected LF after CR in an integer");
    }
    return negative ? -value : value;
  }

  /** The text of a simple string or an error, up to CRLF. */
  private String readLine() throws IOException {
    int n = 0;
    while (true) {
      byte b = next();
      if (b == '\r') {
        if (next() != '\n') {
          throw new RespProtocolException("expected LF after CR in a simple line");
        }
        return new String(line, 0, n, StandardCharsets.UTF_8);
      }
      if (b == '\n') {
        throw new RespProtocolException("LF without CR in a simple line");
      }
      if (n == maxLineBytes) {
        throw new RespProtocolException(
            "simple line longer than the limit of " + maxLineBytes + " bytes");
      }
      if (n == line.length) {
        line = Arrays.copyOf(line, Math.min(maxLineBytes, 2 * n));
      }
      line[n++] = b;
    }
  }

  private void expectCrlf(String what) throws IOException {
    if (next() != '\r' || next() != '\n') {
      throw new RespProtocolException("expected CRLF after a " + what);
    }
  }

  private byte next() throws IOException {
    if (pos == limit) {
      fillOrFail();
    }
    return buf[pos++];
  }

  private void fillOrFail() throws IOException {
    if (!fill()) {
      throw new EOFException("the server closed the connection in the middle of a reply");
    }
  }

  private boolean fill() throws IOException {
    int n = in.read(buf, 0, buf.length);
    if (n <= 0) {
      // read() returns 0 only for an empty buffer; -1 is the end of the stream.
      return false;
    }
    pos = 0;
    limit = n;
    return true;
  }

  private static String show(byte b) {
    return b >= 0x20 && b < 0x7f
        ? String.format("0x%02x ('%c')", b, (char) b)
        : String.format("0x%02x", b & 0xff);
  }
}
