package io.idem.server.net;

import io.idem.server.dispatch.Stats;
import io.idem.server.engine.Engine;
import io.idem.server.store.RocksStore;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.math.BigDecimal;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToLongFunction;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.jspecify.annotations.Nullable;

/**
 * The Prometheus endpoint: {@code GET /metrics} in the text exposition format 0.0.4, over HTTP/1.1
 * on its own port. Anything else gets 404, a method other than GET on /metrics 405.
 */
final class MetricsServer implements AutoCloseable {
  /*
   * It runs on its own one-thread event loop, so a scrape (which walks part of the keyspace) never
   * delays a RESP reply, and the walk's state below needs no lock.
   *
   * Bounds, since anyone who can reach the port can send anything: request line 4 KiB, headers
   * 8 KiB, body 8 KiB (read, then ignored), 16 connections at once, 60 idle seconds.
   *
   * Memory by type is MEMORY USAGE summed per TYPE. A scrape visits at most WALK_STEP keys, resuming
   * where the previous scrape stopped; the figures published are those of the last complete walk.
   * Up to WALK_STEP keys they are therefore current at every scrape; beyond, they lag by
   * keys / WALK_STEP scrapes.
   */

  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
  private static final String TEXT = "text/plain; charset=utf-8";
  static final int MAX_LINE = 4096;
  static final int MAX_HEADERS = 8192;
  static final int MAX_BODY = 8192;
  static final int MAX_CONNECTIONS = 16;
  static final int IDLE_SECONDS = 60;
  static final int WALK_STEP = 100_000;

  /** Latency bucket bounds in microseconds: 50 us to 10 s, then +Inf. */
  private static final long[] BOUNDS_MICROS = {
    50,
    100,
    250,
    500,
    1_000,
    2_500,
    5_000,
    10_000,
    25_000,
    50_000,
    100_000,
    250_000,
    500_000,
    1_000_000,
    2_500_000,
    5_000_000,
    10_000_000
  };

  private static final String[] BOUND_LABELS = new String[BOUNDS_MICROS.length];

  static {
    for (int i = 0; i < BOUNDS_MICROS.length; i++) {
      BOUND_LABELS[i] = seconds(BOUNDS_MICROS[i], 6);
    }
  }

  private final IdemServer server;
  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final AtomicInteger open = new AtomicInteger();
  private volatile @Nullable Channel listener;

  // The keyspace walk for memory by type; touched only on the event loop.
  private long walkCursor;
  private Map<String, Long> walkPartial = new HashMap<>();
  private Map<String, Long> walkTotals = Map.of();
  private final TreeSet<String> typesSeen = new TreeSet<>();

  private MetricsServer(IdemServer server) {
    this.server = server;
  }

  /** Listens on {@code address:port} (0 picks a free port). */
  static MetricsServer start(IdemServer server, String address, int port)
      throws IdemServer.StartException {
    MetricsServer m = new MetricsServer(server);
    ServerBootstrap b =
        new ServerBootstrap()
            .group(m.group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    m.accept(ch);
                  }
                });
    try {
      m.listener = b.bind(new InetSocketAddress(address, port)).sync().channel();
      return m;
    } catch (Exception e) {
      m.close();
      String why =
          e instanceof BindException
              ? e.getMessage()
              : e.getClass().getSimpleName() + ": " + e.getMessage();
      throw new IdemServer.StartException(
          "cannot serve metrics on " + address + ":" + port + ": " + why, e);
    }
  }

  /** The port listened on. */
  int port() {
    Channel l = listener;
    return l == null ? 0 : ((InetSocketAddress) l.localAddress()).getPort();
  }

  private void accept(SocketChannel ch) {
    if (open.incrementAndGet() > MAX_CONNECTIONS) {
      open.decrementAndGet();
      ch.close();
      return;
    }
    ch.closeFuture().addListener(f -> open.decrementAndGet());
    ch.pipeline()
        .addLast(new IdleStateHandler(0, 0, IDLE_SECONDS))
        .addLast(new HttpServerCodec(MAX_LINE, MAX_HEADERS, MAX_BODY))
        .addLast(new HttpObjectAggregator(MAX_BODY))
        .addLast(new Handler());
  }

  private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
      if (!req.decoderResult().isSuccess()) {
        respond(ctx, HttpResponseStatus.BAD_REQUEST, "bad request\n", TEXT, false);
        return;
      }
      boolean keepAlive = HttpUtil.isKeepAlive(req);
      String uri = req.uri();
      int query = uri.indexOf('?');
      String path = query < 0 ? uri : uri.substring(0, query);
      if (!path.equals("/metrics")) {
        respond(ctx, HttpResponseStatus.NOT_FOUND, "not found: try /metrics\n", TEXT, keepAlive);
      } else if (!req.method().equals(HttpMethod.GET)) {
        respond(
            ctx,
            HttpResponseStatus.METHOD_NOT_ALLOWED,
            "method not allowed: use GET\n",
            TEXT,
            keepAlive);
      } else {
        respond(ctx, HttpResponseStatus.OK, scrape(), CONTENT_TYPE, keepAlive);
      }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof IdleStateEvent) {
        ctx.close();
      } else {
        ctx.fireUserEventTriggered(evt);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close(); // a reset connection or a bug: either way this connection is done
    }
  }

  private static void respond(
      ChannelHandlerContext ctx,
      HttpResponseStatus status,
      String body,
      String contentType,
      boolean keepAlive) {
    ByteBuf content = Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
    FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
    res.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, contentType)
        .setInt(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes());
    if (status.equals(HttpResponseStatus.METHOD_NOT_ALLOWED)) {
      res.headers().set(HttpHeaderNames.ALLOW, "GET");
    }
    HttpUtil.setKeepAlive(res, keepAlive);
    var written = ctx.writeAndFlush(res);
    if (!keepAlive) {
      written.addListener(ChannelFutureListener.CLOSE);
    }
  }

  // ---- the exposition

  /** The metrics text, families in a fixed order, samples sorted by label. */
  String scrape() {
    Stats stats = server.stats();
    Engine engine = server.engine();
    RocksStore store = server.store();
    StringBuilder b = new StringBuilder(16 << 10);

    Map<String, Stats.CommandStats> commands = new TreeMap<>(stats.commands());
    perCommand(
        b,
        commands,
        "idem_commands_total",
        "Commands run, by command: those that failed included, those rejected not.",
        c -> c.calls.sum());
    perCommand(
        b,
        commands,
        "idem_commands_failed_total",
        "Commands that ran and replied with an error.",
        c -> c.failed.sum());
    perCommand(
        b,
        commands,
        "idem_commands_rejected_total",
        "Commands refused before running: arity, NOAUTH, OOM, or writes while the log fails.",
        c -> c.rejected.sum());
    latency(b, commands);

    family(b, "idem_connected_clients", "gauge", "Client connections open now.");
    sample(b, "idem_connected_clients", server.connectedClients());
    family(
        b,
        "idem_connections_received_total",
        "counter",
        "Client connections accepted by the socket, rejected ones included.");
    sample(b, "idem_connections_received_total", stats.connectionsReceived.sum());
    family(
        b,
        "idem_connections_rejected_total",
        "counter",
        "Client connections closed at once because maxclients were connected.");
    sample(b, "idem_connections_rejected_total", stats.rejectedConnections.sum());
    family(
        b,
        "idem_output_buffer_limit_disconnections_total",
        "counter",
        "Clients closed for passing client-output-buffer-limit.");
    sample(
        b,
        "idem_output_buffer_limit_disconnections_total",
        stats.outputBufferLimitDisconnections.sum());
    family(
        b,
        "idem_evicted_clients_total",
        "counter",
        "Clients closed because all clients' buffers together passed maxmemory-clients.");
    sample(b, "idem_evicted_clients_total", stats.evictedClients.sum());

    family(b, "idem_keys", "gauge", "Keys held, expired ones not yet removed included.");
    sample(b, "idem_keys", engine.size());
    family(
        b, "idem_expired_keys_total", "counter", "Keys removed because their time to live ended.");
    sample(b, "idem_expired_keys_total", engine.expiredKeys());

    family(
        b,
        "idem_memory_used_bytes",
        "gauge",
        "Bytes the keys, their resident values, the changes waiting for the log and the snapshot"
            + " images being written take: what maxmemory limits.");
    sample(b, "idem_memory_used_bytes", engine.usedMemory());
    family(
        b,
        "idem_memory_log_queue_bytes",
        "gauge",
        "Bytes the changes waiting for the log hold, with the rows readers see meanwhile.");
    sample(b, "idem_memory_log_queue_bytes", engine.journal().queuedBytes());
    family(b, "idem_memory_max_bytes", "gauge", "The maxmemory setting; 0 means no limit.");
    sample(b, "idem_memory_max_bytes", engine.maxMemory());
    family(
        b,
        "idem_memory_by_type_bytes",
        "gauge",
        "MEMORY USAGE summed over the keys of each TYPE, as of the last complete keyspace walk.");
    Map<String, Long> byType = memoryByType(engine);
    for (String type : typesSeen) {
      b.append("idem_memory_by_type_bytes{type=\"")
          .append(escape(type))
          .append("\"} ")
          .append(byType.getOrDefault(type, 0L))
          .append('\n');
    }

    family(
        b,
        "idem_queue_jobs",
        "gauge",
        "Jobs of each queue (at most 1000 queues) by state: ready, delayed, leased, dead.");
    long[] queueTotal = new long[1];
    for (var q : io.idem.server.commands.queue.QueueStats.list(engine, queueTotal)) {
      String name = escape(new String(q.key(), java.nio.charset.StandardCharsets.UTF_8));
      long[] counts = {q.ready(), q.delayed(), q.leased(), q.dead()};
      String[] states = {"ready", "delayed", "leased", "dead"};
      for (int i = 0; i < 4; i++) {
        b.append("idem_queue_jobs{queue=\"")
            .append(name)
            .append("\",state=\"")
            .append(states[i])
            .append("\"} ")
            .append(counts[i])
            .append('\n');
      }
    }
    family(b, "idem_queues", "gauge", "Keys that hold a queue.");
    sample(b, "idem_queues", queueTotal[0]);

    family(
        b,
        "idem_persistence_log_ok",
        "gauge",
        "1 while the write-ahead log can be written; 0 when it cannot and writes are refused.");
    sample(b, "idem_persistence_log_ok", server.journalFailure() == null ? 1 : 0);
    family(
        b,
        "idem_persistence_pending_changes",
        "gauge",
        "Changes made but not yet in the write-ahead log: their replies wait for it.");
    sample(b, "idem_persistence_pending_changes", Math.max(0, store.pendingChanges()));
    family(
        b,
        "idem_persistence_log_since_snapshot_bytes",
        "gauge",
        "Log bytes written since the last snapshot: what a restart replays.");
    sample(b, "idem_persistence_log_since_snapshot_bytes", store.logBytesSinceSnapshot());
    family(
        b,
        "idem_persistence_last_snapshot_age_seconds",
        "gauge",
        "Seconds since the last snapshot ended, or since the store was loaded if none has.");
    long ageMillis = Math.max(0, System.currentTimeMillis() - store.lastSnapshotMillis());
    sample(b, "idem_persistence_last_snapshot_age_seconds", seconds(ageMillis, 3));
    family(
        b,
        "idem_persistence_last_snapshot_duration_seconds",
        "gauge",
        "How long the last snapshot took; 0 before the first.");
    sample(
        b,
        "idem_persistence_last_snapshot_duration_seconds",
        seconds(store.lastSnapshotDurationMillis(), 3));
    family(
        b,
        "idem_disk_bytes",
        "gauge",
        "Bytes the data directory's files take: SST files, write-ahead logs, manifests.");
    long disk = store.diskBytes();
    if (disk >= 0) { // -1: the directory could not be listed; no sample beats a false one
      sample(b, "idem_disk_bytes", disk);
    }
    return b.toString();
  }

  private static void perCommand(
      StringBuilder b,
      Map<String, Stats.CommandStats> commands,
      String name,
      String help,
      ToLongFunction<Stats.CommandStats> value) {
    family(b, name, "counter", help);
    for (Map.Entry<String, Stats.CommandStats> e : commands.entrySet()) {
      b.append(name)
          .append("{command=\"")
          .append(escape(e.getKey()))
          .append("\"} ")
          .append(value.applyAsLong(e.getValue()))
          .append('\n');
    }
  }

  /**
   * One histogram per command from its HdrHistogram. A bucket counts the histogram's sub-buckets
   * whose lowest value is at most its bound, so it is exact to the histogram's precision (2
   * significant digits): values up to 1% above a bound may count in it.
   */
  private static void latency(StringBuilder b, Map<String, Stats.CommandStats> commands) {
    String name = "idem_command_duration_seconds";
    family(
        b,
        name,
        "histogram",
        "Time commands took to run, by command, the wait for the write-ahead log not included.");
    long[] counts = new long[BOUNDS_MICROS.length];
    for (Map.Entry<String, Stats.CommandStats> e : commands.entrySet()) {
      String label = "command=\"" + escape(e.getKey()) + "\"";
      Histogram h = e.getValue().latencyMicros.copy(); // one consistent view of a live histogram
      Arrays.fill(counts, 0);
      long total = 0;
      for (HistogramIterationValue v : h.recordedValues()) {
        long lowest = h.lowestEquivalentValue(v.getValueIteratedTo());
        long n = v.getCountAtValueIteratedTo();
        total += n;
        for (int i = 0; i < BOUNDS_MICROS.length; i++) {
          if (lowest <= BOUNDS_MICROS[i]) {
            counts[i] += n;
            break;
          }
        }
      }
      long cumulative = 0;
      for (int i = 0; i < BOUNDS_MICROS.length; i++) {
        cumulative += counts[i];
        bucket(b, name, label, BOUND_LABELS[i], cumulative);
      }
      bucket(b, name, label, "+Inf", total);
      b.append(name)
          .append("_sum{")
          .append(label)
          .append("} ")
          .append(seconds(e.getValue().micros.sum(), 6))
          .append('\n');
      b.append(name).append("_count{").append(label).append("} ").append(total).append('\n');
    }
  }

  private static void bucket(StringBuilder b, String name, String label, String le, long n) {
    b.append(name)
        .append("_bucket{")
        .append(label)
        .append(",le=\"")
        .append(le)
        .append("\"} ")
        .append(n)
        .append('\n');
  }

  /** Advances the walk by at most WALK_STEP keys; returns the last complete walk's totals. */
  private Map<String, Long> memoryByType(Engine engine) {
    int visited = 0;
    while (visited < WALK_STEP) {
      Engine.ScanPage page = engine.scan(walkCursor, 1024, null, null);
      for (byte[] key : page.keys()) {
        // Type and size are read under the key's lock one after the other; a key that changes in
        // between is counted as it was at the second read, or not at all if it went.
        String type = engine.peek(key, e -> e == null ? null : e.codec().typeName());
        long bytes = engine.memoryUsage(key);
        if (type != null && bytes >= 0) {
          walkPartial.merge(type, bytes, Long::sum);
          typesSeen.add(type);
        }
      }
      visited += Math.max(1024, page.keys().size());
      walkCursor = page.cursor();
      if (walkCursor == 0) {
        walkTotals = walkPartial;
        walkPartial = new HashMap<>();
        break;
      }
    }
    return walkTotals;
  }

  private static void family(StringBuilder b, String name, String type, String help) {
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(name).append(' ').append(type).append('\n');
  }

  private static void sample(StringBuilder b, String name, long value) {
    b.append(name).append(' ').append(value).append('\n');
  }

  private static void sample(StringBuilder b, String name, String value) {
    b.append(name).append(' ').append(value).append('\n');
  }

  /** {@code units / 10^scale} as a plain decimal without trailing zeros: exact, unlike a double. */
  private static String seconds(long units, int scale) {
    return BigDecimal.valueOf(units, scale).stripTrailingZeros().toPlainString();
  }

  /** A label value as the exposition format quotes it. */
  private static String escape(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }

  @Override
  public void close() {
    Channel l = listener;
    if (l != null) {
      l.close().awaitUninterruptibly();
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
  }
}
