package io.idem.server.net;

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
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The HTTP port: {@code GET /metrics} (Prometheus's client writes {@link IdemMetrics}' registry in
 * the format the Accept header asks for: the text format 0.0.4 by default, or OpenMetrics), over
 * HTTP/1.1, and with {@code console yes} the {@link Console} under /console. Anything else gets
 * 404, a method other than GET on /metrics 405.
 */
final class MetricsServer implements AutoCloseable {
  /*
   * It runs on its own one-thread event loop, so a scrape never delays a RESP reply.
   *
   * Bounds, since anyone who can reach the port can send anything: request line 4 KiB, headers
   * 8 KiB, body 8 KiB (read, then ignored), 16 connections at once, 60 idle seconds.
   */

  private static final String TEXT = "text/plain; charset=utf-8";
  static final int MAX_LINE = 4096;
  static final int MAX_HEADERS = 8192;
  static final int MAX_BODY = 8192;
  static final int MAX_CONNECTIONS = 16;
  static final int IDLE_SECONDS = 60;

  private final IdemServer server;
  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final AtomicInteger open = new AtomicInteger();
  private volatile @Nullable Channel listener;

  private final PrometheusRegistry registry;
  private final @Nullable Console console;
  private final ExpositionFormats formats = ExpositionFormats.init();

  private MetricsServer(IdemServer server, boolean console) {
    this.server = server;
    this.registry = IdemMetrics.registry(server);
    this.console = console ? new Console(server) : null;
  }

  /** Listens on {@code address:port} (0 picks a free port); with the console under /console. */
  static MetricsServer start(IdemServer server, String address, int port, boolean console)
      throws IdemServer.StartException {
    MetricsServer m = new MetricsServer(server, console);
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
      Console c = console;
      if (c != null && (path.equals(Console.PREFIX) || path.startsWith(Console.PREFIX + "/"))) {
        c.handle(req, path)
            .whenComplete(
                (a, e) -> {
                  Console.Answer answer =
                      a != null ? a : Console.Answer.json(500, "{\"error\":\"internal error\"}");
                  ctx.executor().execute(() -> respond(ctx, answer, keepAlive));
                });
      } else if (!path.equals("/metrics")) {
        respond(ctx, HttpResponseStatus.NOT_FOUND, "not found: try /metrics\n", TEXT, keepAlive);
      } else if (!req.method().equals(HttpMethod.GET)) {
        respond(
            ctx,
            HttpResponseStatus.METHOD_NOT_ALLOWED,
            "method not allowed: use GET\n",
            TEXT,
            keepAlive);
      } else {
        scrape(ctx, req.headers().get(HttpHeaderNames.ACCEPT), keepAlive);
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

  /** A console answer, with the headers that keep its pages out of frames and caches. */
  private static void respond(ChannelHandlerContext ctx, Console.Answer a, boolean keepAlive) {
    FullHttpResponse res =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            HttpResponseStatus.valueOf(a.status()),
            Unpooled.wrappedBuffer(a.body()));
    res.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, a.contentType())
        .setInt(HttpHeaderNames.CONTENT_LENGTH, a.body().length)
        .set(HttpHeaderNames.CACHE_CONTROL, "no-store")
        .set("X-Content-Type-Options", "nosniff")
        .set("X-Frame-Options", "DENY")
        .set(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'");
    if (a.setCookie() != null) {
      res.headers().set(HttpHeaderNames.SET_COOKIE, a.setCookie());
    }
    HttpUtil.setKeepAlive(res, keepAlive);
    var written = ctx.writeAndFlush(res);
    if (!keepAlive) {
      written.addListener(ChannelFutureListener.CLOSE);
    }
  }

  private static void respond(
      ChannelHandlerContext ctx,
      HttpResponseStatus status,
      String body,
      String contentType,
      boolean keepAlive) {
    respond(
        ctx, status, Unpooled.copiedBuffer(body, StandardCharsets.UTF_8), contentType, keepAlive);
  }

  private static void respond(
      ChannelHandlerContext ctx,
      HttpResponseStatus status,
      ByteBuf content,
      String contentType,
      boolean keepAlive) {
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

  /** The metrics in the format the scraper's Accept header asks for (text by default). */
  private void scrape(ChannelHandlerContext ctx, @Nullable String accept, boolean keepAlive) {
    ExpositionFormatWriter writer = formats.findWriter(accept);
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(16 << 10);
    try {
      writer.write(out, registry.scrape());
    } catch (java.io.IOException | RuntimeException e) {
      respond(ctx, HttpResponseStatus.INTERNAL_SERVER_ERROR, "scrape failed\n", TEXT, false);
      return;
    }
    respond(
        ctx,
        HttpResponseStatus.OK,
        Unpooled.wrappedBuffer(out.toByteArray()),
        writer.getContentType(),
        keepAlive);
  }

  /** The text format, as a scraper without an Accept header gets it. */
  String scrape() {
    return formats.getPrometheusTextFormatWriter().toDebugString(registry.scrape());
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
