package io.idem.server.net;

import io.idem.server.dispatch.Dispatcher;
import io.idem.server.dispatch.OutputBufferLimit;
import io.idem.server.dispatch.Session;
import io.idem.server.engine.Journal;
import io.idem.server.reply.Replies;
import io.idem.server.reply.Reply;
import io.idem.server.request.Command;
import io.idem.server.resp.QueryMemory;
import io.idem.server.resp.RespDecoder;
import io.idem.server.resp.RespEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.ArrayDeque;

/**
 * One client connection: runs each decoded command through the dispatcher and writes the replies in
 * order. A reply to a write leaves only once its change is in the write-ahead log: replies queue
 * behind the first one still waiting, and the journal wakes the connection when the log catches up.
 * Replies of one read burst go out in one buffer, one flush.
 *
 * <p>Runs on the channel's event loop only, so its fields need no locks.
 */
final class Connection extends ChannelInboundHandlerAdapter implements QueryMemory {

  /** Replies held back for the log beyond this stop reading from the client until they drain. */
  private static final int MAX_HELD = 100_000;

  /**
   * Changes handed to the log but not yet written, beyond which a connection whose reply waits for
   * one stops reading until its replies drain. Without it a client that pipelines faster than
   * RocksDB writes piles commands up in the heap: under a counter load, tens of thousands of
   * commands and their row changes, promoted and then freed by full collections (BENCHMARKS.md).
   * Far above what group commit needs: 50 clients pipelining 16 commands each keep 800 in flight.
   */
  static final int MAX_UNWRITTEN = 4096;

  private final IdemServer server;
  private final Dispatcher dispatcher;
  private final Journal journal;
  private Session session;
  private ChannelHandlerContext ctx;

  /** Encoded replies not written yet, because a reply before them waits for the log. */
  private final ArrayDeque<Held> held = new ArrayDeque<>();

  /**
   * Commands read while a deferred reply before them is unresolved (a write on its way through the
   * cluster's log, WAITLOG, a blocked reserve): they run once it resolves, in order, as Redis runs
   * a blocked client's. So a read pipelined after a write sees it, and one after WAITLOG is
   * protected by it.
   */
  private final ArrayDeque<Command> toRun = new ArrayDeque<>();

  /** Deferred replies dispatched and not resolved yet; more than one only within one lane. */
  private int unresolved;

  /**
   * The log partition of the unresolved writes, or -1. A write to the same partition may follow
   * them at once: the partition applies records in the order they were produced.
   */
  private int unresolvedLane = -1;

  private ByteBuf out;
  private boolean waiting;

  /** Whether a release is promised for when the deferred reply at the head completes. */
  private boolean waitingDeferred;

  private boolean closeAfterWrite;

  /** About the bytes of the held replies (Replies.approximateBytes). */
  private long heldBytes;

  /** Bytes its decoder holds for a request not fully arrived (read from other loops). */
  private volatile long queryBytes;

  /** Chosen to be closed for maxmemory-clients: not chosen again while it closes. */
  private volatile boolean evicted;

  /** Since when the output buffer has been over the soft limit; 0 while it is not. */
  private long softSinceMillis;

  /**
   * @param seq the largest seq of this reply and those held before it
   */
  private record Held(Reply reply, int protocol, long seq, long bytes) {}

  Connection(IdemServer server, Dispatcher dispatcher, Journal journal) {
    this.server = server;
    this.dispatcher = dispatcher;
    this.journal = journal;
  }

  Session session() {
    return session;
  }

  /** Whether the client has yet to authenticate: the decoder's tighter bounds apply until then. */
  boolean authRequired() {
    Session s = session;
    return s == null || !s.authenticated();
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    this.out = ctx.alloc().buffer(256);
    this.session = server.register(ctx.channel(), this::closeSoon);
    if (session == null) {
      // Over maxclients: Redis's text, then close.
      out.writeBytes("-ERR max number of clients reached\r\n".getBytes());
      flushOut();
      ctx.close();
      return;
    }
    String denied = server.protectedModeDenial(ctx.channel());
    if (denied != null) {
      out.writeBytes(("-" + denied + "\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      closeAfterWrite = true;
      flushOut();
      return;
    }
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (session != null) {
      server.unregister(session);
    }
    dropHeld();
    if (out != null) {
      out.release();
      out = null;
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (out == null || closeAfterWrite || session == null) {
      return; // closing: Redis ignores what follows QUIT
    }
    switch (msg) {
      case Command command -> run(command);
      case RespDecoder.ProtocolError error -> {
        enqueue(error.toReply(), 0);
        closeAfterWrite = true;
      }
      default -> throw new IllegalStateException("unexpected message " + msg.getClass());
    }
  }

  private void run(Command command) {
    if (looksLikeHttp(command)) {
      // Cross-protocol scripting: a web page can make a browser POST to this port, and each line
      // of the request would run as an inline command. Redis closes such a client at once.
      server.logDropped(session, "it sent an HTTP request line or header (" + command.name() + ")");
      closeAfterWrite = true;
      dropHeld();
      ctx.close();
      return;
    }
    if (!toRun.isEmpty() || unresolved > 0 && !joinsLane(command)) {
      toRun.add(command);
      ctx.channel().config().setAutoRead(false);
      return;
    }
    execute(command);
  }

  /** Whether the command is a log write to the partition the unresolved writes went to. */
  private boolean joinsLane(Command command) {
    return unresolvedLane >= 0 && dispatcher.logLane(session, command) == unresolvedLane;
  }

  private void execute(Command command) {
    int lane = dispatcher.logLane(session, command);
    Reply reply = dispatcher.dispatch(session, command);
    long seq = session.takeDurableSeq();
    if (reply instanceof Reply.Deferred d && !d.future().isDone()) {
      unresolved++;
      unresolvedLane = unresolved == 1 || lane == unresolvedLane ? lane : -1;
      d.future().whenComplete((r, e) -> ctx.executor().execute(this::deferredResolved));
    }
    enqueue(reply, seq);
    if (session.closing()) {
      closeAfterWrite = true;
    }
  }

  /** A deferred reply resolved: the commands waiting for it run, up to the next one unresolved. */
  private void deferredResolved() {
    if (--unresolved == 0) {
      unresolvedLane = -1;
    }
    while (out != null
        && !closeAfterWrite
        && !toRun.isEmpty()
        && (unresolved == 0 || joinsLane(toRun.peek()))) {
      execute(toRun.poll());
    }
    release();
  }

  private void enqueue(Reply reply, long seq) {
    int protocol = session.protocol();
    if (held.isEmpty() && seq <= journal.durableSeq() && isResolved(reply)) {
      RespEncoder.write(resolved(reply), protocol, out);
    } else {
      // A read's seq is 0, and a reply leaves only after those before it: each holds the largest
      // seq so far, so the last one says what the whole queue waits for.
      long waitsFor = held.isEmpty() ? seq : Math.max(seq, held.peekLast().seq());
      long bytes = Replies.approximateBytes(reply);
      held.add(new Held(reply, protocol, waitsFor, bytes));
      heldBytes += bytes;
      if (!mayRead()) {
        ctx.channel().config().setAutoRead(false);
      }
    }
    checkOutputLimit();
  }

  /**
   * Bytes of replies not yet sent: held for the log, encoded but not flushed, and flushed but not
   * yet taken by the socket.
   */
  private long outputBytes() {
    var outbound = ctx.channel().unsafe().outboundBuffer();
    return heldBytes
        + (out == null ? 0 : out.readableBytes())
        + (outbound == null ? 0 : outbound.totalPendingWriteBytes());
  }

  /**
   * From any thread: checks the output buffer limit on the connection's loop (the soft limit's
   * time).
   */
  void checkOutputLimitSoon() {
    ctx.executor().execute(this::checkOutputLimit);
  }

  /**
   * Closes a client whose unsent replies pass client-output-buffer-limit (a client that pipelines
   * large replies and reads none would otherwise take the server's memory); true if it did.
   */
  private boolean checkOutputLimit() {
    if (out == null || session == null) {
      return false;
    }
    long bytes = outputBytes();
    session.setOutputBytes(bytes);
    OutputBufferLimit limit = server.outputBufferLimit();
    boolean overSoft = limit.softBytes() > 0 && bytes >= limit.softBytes();
    long now = overSoft ? System.currentTimeMillis() : 0; // the time matters only over the limit
    if (overSoft) {
      if (softSinceMillis == 0) {
        softSinceMillis = now;
      }
    } else {
      softSinceMillis = 0;
    }
    String breach = limit.breach(bytes, softSinceMillis, now);
    if (breach == null) {
      return false;
    }
    server.stats().outputBufferLimitDisconnections.increment();
    server.logDropped(session, breach + " (client-output-buffer-limit)");
    dropHeld();
    closeAfterWrite = true;
    out.clear();
    ctx.close();
    return true;
  }

  @Override
  public boolean holding(long bytes) {
    long delta = bytes - queryBytes;
    queryBytes = bytes;
    Session s = session;
    if (s != null) {
      s.setQueryBytes(bytes);
    }
    return server.clientMemory().changed(this, delta);
  }

  /** Unsent reply bytes as last measured (on each reply, and once a second). */
  long outputBytesMeasured() {
    Session s = session;
    return s == null ? 0 : s.outputBytes();
  }

  /** What the client holds: its unfinished request and its unsent replies. */
  long memoryBytes() {
    return queryBytes + outputBytesMeasured();
  }

  boolean evicted() {
    return evicted;
  }

  /**
   * Closes the client for maxmemory-clients (from any loop). When {@code self}, the caller is this
   * connection's decoder, which refuses the request and so closes it with the reason.
   */
  void evict(long bytes, long limit, boolean self) {
    evicted = true;
    server.stats().evictedClients.increment();
    Session s = session;
    if (s != null) {
      server.logDropped(
          s,
          "it held the most ("
              + bytes
              + " bytes) when all clients' buffers passed maxmemory-clients ("
              + limit
              + ")");
    }
    if (!self) {
      ctx.executor()
          .execute(
              () -> {
                if (out != null) {
                  dropHeld();
                  closeAfterWrite = true;
                  out.clear();
                }
                ctx.close();
              });
    }
  }

  /** Whether the command is an HTTP method or header line that no Redis command is named like. */
  static boolean looksLikeHttp(Command command) {
    return command.is(0, "POST") || command.is(0, "Host:");
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    release();
    ctx.fireChannelReadComplete();
  }

  /**
   * Encodes the held replies whose changes are durable, writes what is ready, waits for the rest.
   */
  private void release() {
    if (out == null) {
      return;
    }
    long durable = journal.durableSeq();
    while (!held.isEmpty() && held.peek().seq() <= durable && isResolved(held.peek().reply())) {
      Held h = held.poll();
      heldBytes -= h.bytes();
      RespEncoder.write(resolved(h.reply()), h.protocol(), out);
    }
    if (checkOutputLimit()) {
      return;
    }
    boolean wrote = flushOut();
    if (!held.isEmpty()
        && held.peek().reply() instanceof Reply.Deferred d
        && !d.future().isDone()) {
      // The head waits for its record to be applied: release again once it is.
      if (!waitingDeferred) {
        waitingDeferred = true;
        d.future()
            .whenComplete(
                (r, e) ->
                    ctx.executor()
                        .execute(
                            () -> {
                              waitingDeferred = false;
                              release();
                            }));
      }
    } else if (!held.isEmpty()) {
      if (!waiting) {
        waiting = true;
        long need = held.peekLast().seq();
        journal.whenDurable(need, () -> ctx.executor().execute(this::durable));
      }
    } else {
      if (!ctx.channel().config().isAutoRead() && ctx.channel().isWritable() && toRun.isEmpty()) {
        ctx.channel().config().setAutoRead(true);
      }
      if (closeAfterWrite && !wrote) {
        ctx.close();
      }
    }
  }

  private void durable() {
    waiting = false;
    if (out == null) {
      return; // closed meanwhile
    }
    if (server.journalFailure() != null) {
      // The log cannot be written: replies whose changes it holds still go, the others must never
      // be sent as acknowledgements; then the connection closes.
      long durable = journal.durableSeq();
      while (!held.isEmpty() && held.peek().seq() <= durable && isResolved(held.peek().reply())) {
        Held h = held.poll();
        RespEncoder.write(resolved(h.reply()), h.protocol(), out);
      }
      if (!held.isEmpty()) {
        server.logDropped(
            session,
            held.size() + " replies dropped: the log cannot be written, so not acknowledged");
      }
      dropHeld();
      closeAfterWrite = true;
      if (!flushOut()) {
        ctx.close();
      }
      return;
    }
    release();
  }

  /**
   * Forgets the held replies of a connection that closes. A deferred one still waiting is
   * cancelled: a blocked reserve then leases nothing for a client that is gone, and a cluster write
   * not yet sent to the log is not sent.
   */
  private void dropHeld() {
    for (Held h : held) {
      if (h.reply() instanceof Reply.Deferred d) {
        d.future().cancel(false);
      }
    }
    held.clear();
    heldBytes = 0;
    toRun.clear();
  }

  /** Whether the reply can be written now: it is not a deferred one still waiting. */
  private static boolean isResolved(Reply reply) {
    return !(reply instanceof Reply.Deferred d) || d.future().isDone();
  }

  /** The reply to write: a deferred one's result, or the error that ended it. */
  private static Reply resolved(Reply reply) {
    if (!(reply instanceof Reply.Deferred d)) {
      return reply;
    }
    try {
      return d.future().join();
    } catch (java.util.concurrent.CompletionException
        | java.util.concurrent.CancellationException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      return Reply.err("the write was not applied: " + cause.getMessage());
    }
  }

  /** Writes and flushes the encoded replies; true if there were any. */
  private boolean flushOut() {
    if (out.isReadable()) {
      server.stats().netOutputBytes.add(out.readableBytes());
      ByteBuf ready = out;
      out = ctx.alloc().buffer(Math.max(256, Math.min(ready.capacity(), 64 << 10)));
      if (closeAfterWrite && held.isEmpty()) {
        ctx.writeAndFlush(ready).addListener(ChannelFutureListener.CLOSE);
      } else {
        ctx.writeAndFlush(ready);
      }
      return true;
    }
    return false;
  }

  /**
   * From any thread: close once the replies already queued are written (QUIT, CLIENT KILL, the idle
   * timeout). Always as a task of the connection's loop, even from that loop: a CLIENT KILL from
   * another client of the same loop must still close an idle victim, and a client's own QUIT must
   * first queue its reply (which it does in the read that runs now).
   */
  private void closeSoon() {
    ctx.executor()
        .execute(
            () -> {
              closeAfterWrite = true;
              release();
            });
  }

  /**
   * For a graceful stop: reads no more, writes the held replies as the log releases them, then
   * closes; gives up waiting at the deadline. Call on any thread.
   */
  void drainAndClose(long deadlineNanos) {
    ctx.executor()
        .execute(
            () -> {
              if (out == null) {
                return; // closed already
              }
              ctx.channel().config().setAutoRead(false);
              closeAfterWrite = true;
              release();
              if (!held.isEmpty() && System.nanoTime() < deadlineNanos) {
                ctx.executor()
                    .schedule(
                        () -> drainAndClose(deadlineNanos),
                        10,
                        java.util.concurrent.TimeUnit.MILLISECONDS);
              } else if (!held.isEmpty()) {
                ctx.close(); // the deadline passed: these writes are durable, unacknowledged
              }
            });
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    // Backpressure: a client that does not read its replies stops being read.
    if (checkOutputLimit()) {
      return;
    }
    ctx.channel().config().setAutoRead(ctx.channel().isWritable() && mayRead());
    ctx.fireChannelWritabilityChanged();
  }

  /**
   * Whether to read more: no command waits to run, and the held replies are not too many nor
   * waiting on a far log.
   */
  private boolean mayRead() {
    return toRun.isEmpty()
        && (held.isEmpty()
            || held.size() < MAX_HELD
                && held.peekLast().seq() - journal.durableSeq() <= MAX_UNWRITTEN);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // Connection resets and the like: the client is gone; nothing to reply.
    ctx.close();
  }
}
