package io.idem.bench.idemkeys;

import io.idem.bench.claims.Resp;
import io.idem.bench.claims.RespProtocolException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * RESP2 on byte buffers, for a non-blocking client: commands appended to a growable buffer, and
 * replies parsed only once they have fully arrived (a partial one leaves the buffer as it was).
 */
final class Wire {
  private static final int MAX_BULK = 16 << 20;
  private static final int MAX_ARRAY = 1 << 16;

  private Wire() {}

  /** A command being written: its arguments appended to a connection's output. */
  static final class Out {
    private ByteBuffer buf = ByteBuffer.allocate(1 << 16);

    Out array(int n) {
      return header('*', n);
    }

    Out bulk(byte[] bytes) {
      header('$', bytes.length);
      ensure(bytes.length + 2);
      buf.put(bytes).put((byte) '\r').put((byte) '\n');
      return this;
    }

    /** An ASCII argument (a command name, an option). */
    Out bulk(String ascii) {
      return bulk(ascii.getBytes(StandardCharsets.US_ASCII));
    }

    Out bulkDecimal(long value) {
      return bulk(Long.toString(value).getBytes(StandardCharsets.US_ASCII));
    }

    private Out header(char type, int n) {
      ensure(24);
      buf.put((byte) type);
      putDecimal(n);
      buf.put((byte) '\r').put((byte) '\n');
      return this;
    }

    private void putDecimal(long v) {
      if (v < 10) {
        buf.put((byte) ('0' + v));
        return;
      }
      byte[] digits = Long.toString(v).getBytes(StandardCharsets.US_ASCII);
      buf.put(digits);
    }

    private void ensure(int more) {
      if (buf.remaining() < more) {
        ByteBuffer bigger =
            ByteBuffer.allocate(Math.max(buf.capacity() * 2, buf.position() + more));
        buf.flip();
        bigger.put(buf);
        buf = bigger;
      }
    }

    boolean isEmpty() {
      return buf.position() == 0;
    }

    /** The bytes written so far, for a channel write; {@link #written} after it. */
    ByteBuffer flipped() {
      return buf.flip();
    }

    /** Keeps what the channel did not take, for the next write. */
    void written() {
      buf.compact();
    }
  }

  /**
   * The next whole reply at the buffer's position, which moves past it; null if it has not all
   * arrived (the position stays).
   */
  static @Nullable Resp parse(ByteBuffer in) throws RespProtocolException {
    int start = in.position();
    Resp r = parse(in, 0);
    if (r == null) {
      in.position(start);
    }
    return r;
  }

  private static @Nullable Resp parse(ByteBuffer in, int depth) throws RespProtocolException {
    if (!in.hasRemaining()) {
      return null;
    }
    byte type = in.get();
    switch (type) {
      case '+', '-' -> {
        String line = line(in);
        return line == null ? null : type == '+' ? new Resp.Simple(line) : new Resp.Err(line);
      }
      case ':' -> {
        String line = line(in);
        return line == null ? null : new Resp.Int(Long.parseLong(line));
      }
      case '$' -> {
        String line = line(in);
        if (line == null) {
          return null;
        }
        int n = Integer.parseInt(line);
        if (n == -1) {
          return Resp.NIL;
        }
        if (n < 0 || n > MAX_BULK) {
          throw new RespProtocolException("a bulk string of " + n + " bytes");
        }
        if (in.remaining() < n + 2) {
          return null;
        }
        byte[] bytes = new byte[n];
        in.get(bytes);
        in.position(in.position() + 2);
        return new Resp.Bulk(bytes);
      }
      case '*' -> {
        String line = line(in);
        if (line == null) {
          return null;
        }
        int n = Integer.parseInt(line);
        if (n == -1) {
          return Resp.NIL;
        }
        if (n < 0 || n > MAX_ARRAY || depth > 4) {
          throw new RespProtocolException("an array of " + n + " at depth " + depth);
        }
        Resp[] elements = new Resp[n];
        for (int i = 0; i < n; i++) {
          Resp e = parse(in, depth + 1);
          if (e == null) {
            return null;
          }
          elements[i] = e;
        }
        return new Resp.Array(Arrays.asList(elements));
      }
      default -> throw new RespProtocolException("a reply of type byte " + type);
    }
  }

  /** The line up to CRLF, which it passes; null if the CRLF has not arrived. */
  private static @Nullable String line(ByteBuffer in) {
    int from = in.position();
    for (int i = from; i + 1 < in.limit(); i++) {
      if (in.get(i) == '\r' && in.get(i + 1) == '\n') {
        byte[] b = new byte[i - from];
        in.get(b);
        in.position(i + 2);
        return new String(b, StandardCharsets.US_ASCII);
      }
    }
    return null;
  }
}
