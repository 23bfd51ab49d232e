package io.idem.bench.idemkeys;

import io.idem.bench.claims.Resp;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * One thread that drives many requests over non-blocking connections: it sends their commands,
 * hands each reply to the callback sent with its command (replies come in the order of a
 * connection's commands), and runs timed steps (a request's work ending, a poll's next try). One
 * thread, so a request's steps take no thread hand-off, and the commands of many requests go out in
 * one write.
 */
final class Loop implements AutoCloseable {

  /** What a command's reply is given to. */
  interface Reply {
    void on(Resp reply) throws IOException;
  }

  /** What the loop runs between its waits: starts new requests; the next time it needs a turn. */
  interface Source {
    long tick(long nowNanos) throws IOException;

    boolean done();
  }

  /** A connection: its unsent commands, unparsed replies and the callbacks waiting for them. */
  static final class Conn {
    final SocketChannel channel;
    final SelectionKey key;
    final Wire.Out out = new Wire.Out();
    ByteBuffer in = ByteBuffer.allocate(1 << 17);
    final ArrayDeque<Reply> pending = new ArrayDeque<>();
    boolean dirty;

    Conn(SocketChannel channel, SelectionKey key) {
      this.channel = channel;
      this.key = key;
    }
  }

  private record Timer(long at, long seq, Runnable step) implements Comparable<Timer> {
    @Override
    public int compareTo(Timer o) {
      return at != o.at ? Long.compare(at, o.at) : Long.compare(seq, o.seq);
    }
  }

  private final Selector selector;
  private final PriorityQueue<Timer> timers = new PriorityQueue<>();
  private final List<Conn> dirty = new ArrayList<>();
  private final List<Conn> all = new ArrayList<>();
  private long seq;
  private long commands;

  Loop() throws IOException {
    selector = Selector.open();
  }

  Conn open(String host, int port) throws IOException {
    SocketChannel ch = SocketChannel.open();
    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
    ch.connect(new InetSocketAddress(host, port));
    ch.configureBlocking(false);
    SelectionKey key = ch.register(selector, SelectionKey.OP_READ);
    Conn c = new Conn(ch, key);
    key.attach(c);
    all.add(c);
    return c;
  }

  /** Queues one command on {@code c}, whose reply goes to {@code reply}; write it to the result. */
  Wire.Out command(Conn c, Reply reply) {
    c.pending.add(reply);
    commands++;
    if (!c.dirty) {
      c.dirty = true;
      dirty.add(c);
    }
    return c.out;
  }

  /** Runs {@code step} on the loop's thread at {@code nanos} (System.nanoTime) or soon after. */
  void at(long nanos, Runnable step) {
    timers.add(new Timer(nanos, seq++, step));
  }

  long commands() {
    return commands;
  }

  /** Runs until the source is done and every command has its reply, or fails past the deadline. */
  void run(Source source, long deadlineNanos) throws IOException {
    while (true) {
      long now = System.nanoTime();
      Timer t;
      while ((t = timers.peek()) != null && t.at <= now) {
        timers.poll();
        t.step.run();
      }
      long next = source.tick(now);
      if (source.done() && timers.isEmpty() && idle()) {
        return;
      }
      if (now > deadlineNanos) {
        throw new IOException("the run did not end by its deadline: a side stopped answering");
      }
      Timer head = timers.peek();
      if (head != null) {
        next = Math.min(next, head.at);
      }
      flush();
      long wait = next - System.nanoTime();
      if (wait > 2_000_000) {
        selector.select(Math.min(100, (wait - 1_000_000) / 1_000_000));
      } else if (selector.selectNow() == 0 && wait > 0) {
        LockSupport.parkNanos(Math.min(wait, 20_000)); // the schedule's next step is near
      }
      for (SelectionKey k : selector.selectedKeys()) {
        Conn c = (Conn) k.attachment();
        if (k.isValid() && k.isWritable()) {
          write(c);
        }
        if (k.isValid() && k.isReadable()) {
          read(c);
        }
      }
      selector.selectedKeys().clear();
    }
  }

  private boolean idle() {
    for (Conn c : all) {
      if (!c.pending.isEmpty()) {
        return false;
      }
    }
    return true;
  }

  private void flush() throws IOException {
    for (Conn c : dirty) {
      c.dirty = false;
      write(c);
    }
    dirty.clear();
  }

  private void write(Conn c) throws IOException {
    if (c.out.isEmpty()) {
      return;
    }
    c.channel.write(c.out.flipped());
    c.out.written();
    // What the socket did not take goes when it is writable again.
    c.key.interestOps(
        c.out.isEmpty() ? SelectionKey.OP_READ : SelectionKey.OP_READ | SelectionKey.OP_WRITE);
  }

  private void read(Conn c) throws IOException {
    if (!c.in.hasRemaining()) {
      ByteBuffer bigger = ByteBuffer.allocate(c.in.capacity() * 2);
      c.in.flip();
      c.in = bigger.put(c.in);
    }
    if (c.channel.read(c.in) < 0) {
      throw new IOException("the server closed a connection");
    }
    c.in.flip();
    Resp r;
    while ((r = Wire.parse(c.in)) != null) {
      Reply cb = c.pending.poll();
      if (cb == null) {
        throw new IOException("a reply to no command: " + Resp.describe(r));
      }
      cb.on(r);
    }
    c.in.compact();
  }

  @Override
  public void close() throws IOException {
    for (Conn c : all) {
      c.channel.close();
    }
    selector.close();
  }
}
