package io.idem.bench.claims;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * One RESP2 connection over a plain socket: a {@link RespWriter} and a {@link RespReader} on its
 * two directions. {@link #call} is one command and its reply; {@link Pipeline} drives many at once.
 */
public final class RespConnection implements AutoCloseable {
  private final String name;
  private final Socket socket;
  private final RespWriter writer;
  private final RespReader reader;

  private RespConnection(String name, Socket socket) throws IOException {
    this.name = name;
    this.socket = socket;
    this.writer = new RespWriter(socket.getOutputStream());
    this.reader = new RespReader(socket.getInputStream());
  }

  /**
   * Connects to {@code host:port}. A read that waits longer than {@code timeoutMillis} for the
   * server fails, so a server that stops answering ends the run instead of hanging it.
   */
  public static RespConnection open(String host, int port, int timeoutMillis) throws IOException {
    Socket socket = new Socket();
    try {
      socket.setTcpNoDelay(true);
      socket.setSendBufferSize(1 << 20);
      socket.setReceiveBufferSize(1 << 20);
      socket.connect(new InetSocketAddress(host, port), timeoutMillis);
      socket.setSoTimeout(timeoutMillis);
      return new RespConnection(host + ":" + port, socket);
    } catch (IOException e) {
      socket.close();
      throw new IOException("cannot connect to " + host + ":" + port + ": " + e.getMessage(), e);
    }
  }

  public String name() {
    return name;
  }

  public RespWriter writer() {
    return writer;
  }

  public RespReader reader() {
    return reader;
  }

  /** Sends one command of string arguments and returns its reply (an error reply included). */
  public Resp call(String... args) throws IOException {
    writer.array(args.length);
    for (String arg : args) {
      writer.bulk(arg);
    }
    writer.flush();
    return read();
  }

  /** Sends one command of binary arguments and returns its reply (an error reply included). */
  public Resp call(byte[]... args) throws IOException {
    writer.array(args.length);
    for (byte[] arg : args) {
      writer.bulk(arg);
    }
    writer.flush();
    return read();
  }

  /** Sends one command and fails if its reply is an error. */
  public Resp callOk(String... args) throws IOException {
    Resp reply = call(args);
    if (reply instanceof Resp.Err e) {
      throw new IOException(name + " refused " + args[0] + ": " + e.message());
    }
    return reply;
  }

  /** Sends one command of binary arguments and fails if its reply is an error. */
  public Resp callOk(byte[]... args) throws IOException {
    Resp reply = call(args);
    if (reply instanceof Resp.Err e) {
      throw new IOException(
          name + " refused " + new String(args[0], StandardCharsets.UTF_8) + ": " + e.message());
    }
    return reply;
  }

  /** Reads one reply, naming this server in a timeout. */
  public Resp read() throws IOException {
    try {
      return reader.read();
    } catch (SocketTimeoutException e) {
      throw new IOException(name + " sent no reply within " + socket.getSoTimeout() + " ms", e);
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
