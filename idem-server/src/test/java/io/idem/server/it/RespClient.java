package io.idem.server.it;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal blocking RESP2 client for tests that need exact control of pipelining (the crash test)
 * or raw bytes. Replies come back as Java values: String for simple strings, {@link Err} for
 * errors, Long, byte[] for bulks, null, and List for arrays.
 */
final class RespClient implements AutoCloseable {

  record Err(String text) {}

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  RespClient(int port) throws IOException {
    this(connect(port));
  }

  /** A client over a socket that is already connected (a TLS socket, for one). */
  RespClient(Socket connected) throws IOException {
    socket = connected;
    socket.setSoTimeout(30_000);
    socket.setTcpNoDelay(true);
    in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
    out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
  }

  private static Socket connect(int port) throws IOException {
    Socket s = new Socket();
    s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
    return s;
  }

  /** Queues one command; {@link #flush} sends what is queued. */
  void send(String... words) throws IOException {
    byte[][] bytes = new byte[words.length][];
    for (int i = 0; i < words.length; i++) {
      bytes[i] = words[i].getBytes(StandardCharsets.UTF_8);
    }
    send(bytes);
  }

  /** Queues one command of binary words. */
  void send(byte[]... words) throws IOException {
    out.write(('*' + Integer.toString(words.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
    for (byte[] b : words) {
      out.write(('$' + Integer.toString(b.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.write(b);
      out.write('\r');
      out.write('\n');
    }
  }

  void sendRaw(byte[] bytes) throws IOException {
    out.write(bytes);
  }

  void flush() throws IOException {
    out.flush();
  }

  Object call(byte[]... words) throws IOException {
    send(words);
    flush();
    return read();
  }

  Object call(String... words) throws IOException {
    send(words);
    flush();
    return read();
  }

  Object read() throws IOException {
    int type = in.read();
    if (type < 0) {
      throw new EOFException("connection closed");
    }
    String line = line();
    return switch (type) {
      case '+' -> line;
      case '-' -> new Err(line);
      case ':' -> Long.parseLong(line);
      case '$' -> {
        int n = Integer.parseInt(line);
        if (n < 0) {
          yield null;
        }
        byte[] b = in.readNBytes(n);
        if (b.length != n || in.read() != '\r' || in.read() != '\n') {
          throw new EOFException("short bulk");
        }
        yield b;
      }
      case '*' -> {
        int n = Integer.parseInt(line);
        if (n < 0) {
          yield null;
        }
        List<Object> items = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          items.add(read());
        }
        yield items;
      }
      default -> throw new IOException("unexpected reply type " + (char) type);
    };
  }

  private String line() throws IOException {
    StringBuilder b = new StringBuilder();
    while (true) {
      int c = in.read();
      if (c < 0) {
        throw new EOFException("connection closed");
      }
      if (c == '\r') {
        if (in.read() != '\n') {
          throw new IOException("CR without LF");
        }
        return b.toString();
      }
      b.append((char) c);
    }
  }

  /**
   * Waits up to {@code millis} for the server to close the connection: true on end of stream, false
   * if nothing arrives. Anything else arriving is a protocol surprise.
   */
  boolean closedWithin(int millis) throws IOException {
    socket.setSoTimeout(millis);
    try {
      int b = in.read();
      if (b >= 0) {
        throw new IOException("unexpected byte " + b + " from an idle connection");
      }
      return true;
    } catch (java.net.SocketTimeoutException e) {
      return false;
    } catch (java.net.SocketException e) {
      return true; // reset by the peer
    } finally {
      socket.setSoTimeout(30_000);
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  /** A reply as text: bulk strings decoded as UTF-8, arrays in brackets, the rest as they print. */
  static String text(Object reply) {
    if (reply instanceof byte[] bytes) {
      return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    }
    if (reply instanceof List<?> list) {
      return list.stream().map(RespClient::text).toList().toString();
    }
    return String.valueOf(reply);
  }
}
