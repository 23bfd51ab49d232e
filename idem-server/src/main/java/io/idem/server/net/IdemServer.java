package io.idem.server.net;

import io.idem.server.cluster.ClusterLog;
import io.idem.server.cluster.ClusterTopology;
import io.idem.server.commands.Commands;
import io.idem.server.dispatch.CommandRegistry;
import io.idem.server.dispatch.Config;
import io.idem.server.dispatch.Dispatcher;
import io.idem.server.dispatch.OutputBufferLimit;
import io.idem.server.dispatch.ServerContext;
import io.idem.server.dispatch.Session;
import io.idem.server.dispatch.Stats;
import io.idem.server.engine.Engine;
import io.idem.server.resp.RespDecoder;
import io.idem.server.resp.RespLimits;
import io.idem.server.store.RocksStore;
import io.idem.server.store.StoreFaults;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.File;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Idem server: the durable engine behind RESP on Netty. {@link #start} opens the store, loads
 * the keyspace and binds; {@link #close} stops gracefully (stop accepting, drain replies, snapshot,
 * close RocksDB).
 */
public final class IdemServer implements ServerContext, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(IdemServer.class);

  /** Idem's version, as INFO's idem_version reports it; kept equal to the Maven version. */
  public static final String VERSION = "0.1.0-SNAPSHOT";

  /** Raised when the server cannot start: the message is the one line the user sees. */
  public static final class StartException extends Exception {
    public StartException(String message, @Nullable Throwable cause) {
      super(message, cause);
    }
  }

  private final Config config;
  private final @Nullable ClusterTopology cluster;
  private volatile @Nullable ClusterLog clusterLog;
  private final RocksStore store;
  private final Engine engine;
  private final CommandRegistry commands = Commands.registry();
  private final Stats stats = new Stats();
  private final Dispatcher dispatcher;
  private final Map<Long, Session> sessions = new ConcurrentHashMap<>();
  private final Map<Long, Channel> channels = new ConcurrentHashMap<>();
  private final AtomicLong nextClientId = new AtomicLong(1);
  private final long startMillis = System.currentTimeMillis();
  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final List<Channel> listeners = new ArrayList<>();
  private final ScheduledExecutorService cron;
  private final ExecutorService snapshotter;

  /** Values' background work (dedup tables write pending claims as rows): off the cron thread. */
  private final ScheduledExecutorService background;

  private final AtomicBoolean snapshotQueued = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final java.util.function.Supplier<RespLimits> limits;
  private volatile OutputBufferLimit outputBufferLimit;
  private volatile long maxMemoryClients;
  private final ClientMemory clientMemory =
      new ClientMemory(() -> maxMemoryClients, this::connections);
  private volatile long lastSaveSeconds;
  private volatile boolean saveOnShutdown = true;
  private int port;
  private volatile long opsPerSec;
  private volatile boolean started = true;
  private long lastCommandCount;

  /**
   * Seconds the log may stand still with changes waiting before it is said to be stalled. The queue
   * itself stays bounded (connections stop being read about 4,096 changes behind), but every write
   * reply waits, so a stall is worth a line.
   */
  static final int LOG_STALL_SECONDS = 5;

  /** The log's position at the last once-a-second round, and the rounds it has not moved since. */
  private long lastDurableSeq;

  private int logStillRounds;

  private int tlsPort;
  private @Nullable MetricsServer metrics;

  private IdemServer(Config config, RocksStore.Opened opened, @Nullable ClusterTopology cluster) {
    this.config = config;
    this.cluster = cluster;
    this.store = opened.store();
    this.engine = opened.engine();
    this.dispatcher = new Dispatcher(this);
    this.lastSaveSeconds = System.currentTimeMillis() / 1000;
    this.limits = RespLimits.tracking(config);
    engine.setMaxMemory(config.getLong("maxmemory"));
    config.onChange("maxmemory", v -> engine.setMaxMemory(Long.parseLong(v)));
    this.outputBufferLimit = OutputBufferLimit.parse(config.get("client-output-buffer-limit"));
    this.maxMemoryClients = config.getLong("maxmemory-clients");
    config.onChange("maxmemory-clients", v -> maxMemoryClients = Long.parseLong(v));
    config.onChange(
        "client-output-buffer-limit", v -> outputBufferLimit = OutputBufferLimit.parse(v));
    config.onChange("appendfsync", v -> store.setFsyncPolicy(RocksStore.FsyncPolicy.parse(v)));
    boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    workers =
        new MultiThreadIoEventLoopGroup(
            Runtime.getRuntime().availableProcessors(), NioIoHandler.newFactory());
    cron =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("idem-cron").daemon().factory());
    snapshotter =
        Executors.newSingleThreadExecutor(
            Thread.ofPlatform().name("idem-snapshot").daemon().factory());
    background =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("idem-background").daemon().factory());
  }

  /** Opens the store in the configured directory, loads it, and listens. */
  public static IdemServer start(Config config) throws StartException {
    return start(config, StoreFaults.NONE);
  }

  /** As above, with the store's faults injected where {@code faults} says (tests). */
  public static IdemServer start(Config config, StoreFaults faults) throws StartException {
    ClusterTopology cluster;
    try {
      cluster = clusterOf(config);
    } catch (IllegalArgumentException e) {
      throw new StartException(e.getMessage(), null); // before anything is opened
    }
    Path dir = Path.of(config.get("dir"));
    String from = config.get("load-checkpoint");
    if (!from.isBlank()) {
      try {
        if (RocksStore.loadCheckpoint(Path.of(from), dir)) {
          log.info("filled {} from the checkpoint {}", dir, from);
        } else {
          log.warn(
              "load-checkpoint: {} already holds a store; starting from it, not {}", dir, from);
        }
      } catch (IOException e) {
        throw new StartException("load-checkpoint: " + e.getMessage(), e);
      }
    }
    RocksStore.Opened opened;
    try {
      opened =
          RocksStore.open(
              dir,
              Commands.codecs(),
              RocksStore.FsyncPolicy.parse(config.get("appendfsync")),
              clock(config.getLong("test-clock-offset")),
              faults);
    } catch (IOException e) {
      throw new StartException(e.getMessage(), e);
    }
    IdemServer server = new IdemServer(config, opened, cluster);
    try {
      if (cluster != null && !config.get("cluster-log").isBlank()) {
        try {
          Session applier = Session.applier(0);
          server.clusterLog =
              new ClusterLog(
                  cluster,
                  new ClusterLog.Options(
                      config.get("cluster-log"),
                      config.get("cluster-topic"),
                      config.getInt("cluster-node-timeout"),
                      config.getInt("cluster-write-timeout")),
                  server.engine,
                  server.store,
                  server.dispatcher.recordApplier(applier),
                  server::journalFailure,
                  faults);
          server.engine.expireByLog(server.dueByLog);
        } catch (RuntimeException e) {
          throw new StartException("cluster-log: " + e.getMessage(), e);
        }
      }
      server.bind();
      int metricsPort = config.getInt("metrics-port");
      boolean console = config.getBool("console");
      if (console && metricsPort == 0) {
        metricsPort = CONSOLE_PORT; // one setting turns the console on: its port has a default
      }
      if (metricsPort > 0) {
        server.metrics =
            MetricsServer.start(server, config.get("metrics-bind"), metricsPort, console);
      }
    } catch (StartException e) {
      server.started = false; // a failed start closes quietly: the one-line error says it all
      server.close();
      throw e;
    }
    server.startBackground();
    return server;
  }

  private void bind() throws StartException {
    SslContext ssl = null;
    int wantTls = config.getInt("tls-port");
    if (wantTls > 0) {
      String cert = config.get("tls-cert-file");
      String key = config.get("tls-key-file");
      if (cert.isEmpty() || key.isEmpty()) {
        throw new StartException("tls-port needs tls-cert-file and tls-key-file", null);
      }
      try {
        ssl = SslContextBuilder.forServer(new File(cert), new File(key)).build();
      } catch (Exception e) {
        throw new StartException(
            "cannot load TLS certificate " + cert + " and key " + key + ": " + e.getMessage(), e);
      }
    }
    int wantPort = config.getInt("port");
    for (String address : config.get("bind").trim().split("\\s+")) {
      port = listen(address, wantPort, null);
      if (wantPort == 0) {
        wantPort = port; // every address on the same port
      }
      if (ssl != null) {
        tlsPort = listen(address, wantTls, ssl);
      }
    }
  }

  private int listen(String address, int port, @Nullable SslContext ssl) throws StartException {
    ServerBootstrap b =
        new ServerBootstrap()
            .group(boss, workers)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, 511)
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.SO_KEEPALIVE, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    if (ssl != null) {
                      ch.pipeline().addLast(ssl.newHandler(ch.alloc()));
                    }
                    Connection connection = new Connection(IdemServer.this, dispatcher, store);
                    ch.pipeline()
                        .addLast(new RespDecoder(limits, connection::authRequired, connection))
                        .addLast(connection);
                  }
                });
    try {
      Channel ch = b.bind(new InetSocketAddress(address, port)).sync().channel();
      listeners.add(ch);
      return ((InetSocketAddress) ch.localAddress()).getPort();
    } catch (Exception e) {
      String why =
          e instanceof BindException
              ? e.getMessage()
              : e instanceof java.nio.channels.UnresolvedAddressException
                  ? "the address cannot be resolved"
                  : e.getClass().getSimpleName() + ": " + e.getMessage();
      throw new StartException("cannot listen on " + address + ":" + port + ": " + why, e);
    }
  }

  /**
   * The engine's clock: the system's, moved by test-clock-offset in the tests of skewed nodes, and
   * never going back (MonotonicClock).
   */
  private static java.util.function.LongSupplier clock(long offsetMillis) {
    return new io.idem.server.engine.MonotonicClock(
        offsetMillis == 0
            ? System::currentTimeMillis
            : () -> System.currentTimeMillis() + offsetMillis);
  }

  /**
   * The records this node asked the log for whose record is not applied yet (the command's name, a
   * space, the key): asked once each.
   */
  private final java.util.Set<java.nio.ByteBuffer> asked = ConcurrentHashMap.newKeySet();

  /**
   * On a node with a log, work that this node's clock starts on a key: the acting node of its slot
   * produces the record (EXPIREDUE for a key whose time came, WINDOWDUE for a window to move),
   * which every server of the slot applies at the same point of the log (as a Redis primary sends
   * its replicas a DEL). The other servers leave it to that node.
   */
  private final Engine.DueKeys dueByLog =
      new Engine.DueKeys() {
        @Override
        public boolean due(byte[] key, long atMillis) {
          return askLog(EXPIREDUE, key);
        }

        @Override
        public boolean windowDue(byte[] key) {
          return askLog(WINDOWDUE, key);
        }

        @Override
        public boolean ask(byte[] key, byte[][] command) {
          return askLog(command, key);
        }
      };

  private boolean askLog(byte[] command, byte[] key) {
    return askLog(new byte[][] {command, key}, key);
  }

  /** Submits {@code words} for {@code key}'s slot, once per command name and key in flight. */
  private boolean askLog(byte[][] words, byte[] key) {
    byte[] command = words[0];
    ClusterLog log = clusterLog;
    ClusterTopology topology = cluster;
    int slot = io.idem.server.cluster.Slots.of(key);
    if (log == null
        || topology == null
        || !log.caughtUp()
        || topology.nodeOfSlot(slot) != topology.self()) {
      return false;
    }
    java.nio.ByteBuffer k =
        java.nio.ByteBuffer.allocate(command.length + 1 + key.length)
            .put(command)
            .put((byte) ' ')
            .put(key)
            .flip();
    if (!asked.add(k)) {
      return false;
    }
    log.submit(new io.idem.server.request.Command(words), slot)
        .whenComplete((r, e) -> asked.remove(k));
    return true;
  }

  private static final byte[] EXPIREDUE = "EXPIREDUE".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] WINDOWDUE = "WINDOWDUE".getBytes(StandardCharsets.US_ASCII);

  private void startBackground() {
    // Active expiry: only due keys are visited, from the expiry index.
    repeat(
        cron,
        "active expiry",
        100,
        () -> {
          while (engine.expireDue(1000) == 1000) {
            // more are due: keep going, in bounded steps
          }
        });
    repeat(cron, "the once-a-second round", 1000, this::everySecond);
    // Often, so a write load overshoots snapshot-log-bytes by little: the default is chosen so the
    // log is truncated while still in memory (RocksStore.LOG_BYTES_BEFORE_FLUSH).
    repeat(
        cron,
        "the snapshot trigger",
        20,
        () -> {
          if (store.failure() == null && store.logBytesSinceSnapshot() >= snapshotLogBytes()) {
            saveInBackground();
          }
        });
    repeat(background, "background work (dedup rows, dropped slices)", 50, engine::runBackground);
  }

  /**
   * Log bytes that start a snapshot round: at least snapshot-log-bytes, and at least a percentage
   * of what the last round wrote, as Redis rewrites its AOF once it has grown by a percentage of
   * its base. A round rewrites each changed value whole, so a large value changed a little at a
   * time (a queue of millions of jobs) would otherwise be rewritten every few MB of log: rewriting
   * costs at most that percentage's inverse times the log written.
   */
  private long snapshotLogBytes() {
    long floor = config.getLong("snapshot-log-bytes");
    long pct = config.getLong("snapshot-log-percentage");
    long last = store.lastSnapshotBytes();
    long proportional = last > Long.MAX_VALUE / 100_000_000L ? Long.MAX_VALUE : last * pct / 100;
    return Math.max(floor, proportional);
  }

  /**
   * Runs {@code task} every {@code millis} on {@code executor}. A failure, even an Error, is logged
   * and the task runs again next time: a scheduled executor cancels a task for good once it throws.
   * (A real OutOfMemoryError ends the process first: the launcher runs the JVM with
   * ExitOnOutOfMemoryError.)
   */
  private static void repeat(
      ScheduledExecutorService executor, String what, long millis, Runnable task) {
    executor.scheduleWithFixedDelay(
        () -> {
          try {
            task.run();
          } catch (Throwable e) {
            log.error("{} failed; it runs again in {} ms", what, millis, e);
          }
        },
        millis,
        millis,
        TimeUnit.MILLISECONDS);
  }

  /** Says, once each time, when the log stands still with changes waiting, and when it moves. */
  private void watchTheLog() {
    long durable = store.durableSeq();
    long waiting = store.pendingChanges();
    if (durable != lastDurableSeq || waiting == 0) {
      if (logStillRounds >= LOG_STALL_SECONDS) {
        log.info("the log moves again: {} changes wait for it", waiting);
      }
      lastDurableSeq = durable;
      logStillRounds = 0;
    } else if (++logStillRounds == LOG_STALL_SECONDS && store.failure() == null) {
      log.warn(
          "the log has not moved for {} s while {} changes wait for it (RocksDB stalled, or the"
              + " disk is slow): write replies wait (INFO persistence journal_pending)",
          LOG_STALL_SECONDS,
          waiting);
    }
  }

  private void everySecond() {
    long processed = stats.commandsProcessed.sum();
    opsPerSec = processed - lastCommandCount;
    lastCommandCount = processed;
    long now = System.currentTimeMillis();
    long interval = config.getLong("snapshot-interval") * 1000;
    // After a log failure no round can complete: the failure is logged once, not every second.
    if (store.failure() == null
        && store.dirtyValues() > 0
        && now - store.lastSnapshotMillis() >= interval) {
      saveInBackground();
    }
    for (Channel ch : channels.values()) {
      Connection c = ch.pipeline().get(Connection.class);
      if (c != null) {
        c.checkOutputLimitSoon(); // a client over the soft limit that gets no new replies
      }
    }
    clientMemory.check();
    watchTheLog();
    long timeout = config.getLong("timeout") * 1000;
    if (timeout > 0) {
      for (Session s : sessions.values()) {
        if (now - s.lastCommandMillis() > timeout) {
          log.info("closing client id={} addr={}: idle past timeout", s.id(), s.address());
          s.close();
        }
      }
    }
  }

  // ---- connections

  /** A new connection's session, or null if maxclients are connected already. */
  @Nullable Session register(Channel ch, Runnable closer) {
    stats.connectionsReceived.increment();
    if (sessions.size() >= config.getLong("maxclients") || closed.get()) {
      stats.rejectedConnections.increment();
      log.warn(
          "rejected a connection from {}: {}",
          address(ch.remoteAddress()),
          closed.get() ? "shutting down" : "maxclients (" + config.get("maxclients") + ") reached");
      return null;
    }
    boolean open = config.get("requirepass").isEmpty();
    Session s =
        new Session(
            nextClientId.getAndIncrement(),
            address(ch.remoteAddress()),
            address(ch.localAddress()),
            System.currentTimeMillis(),
            open,
            closer);
    sessions.put(s.id(), s);
    channels.put(s.id(), ch);
    return s;
  }

  /**
   * The reply that turns a client away in protected mode, or null to serve it. Protected mode
   * serves only loopback clients while no password is set, so a server bound to a public address by
   * mistake is not open to the network.
   */
  @Nullable String protectedModeDenial(Channel ch) {
    if (!config.getBool("protected-mode") || !config.get("requirepass").isEmpty()) {
      return null;
    }
    if (ch.remoteAddress() instanceof InetSocketAddress a
        && a.getAddress() != null
        && !a.getAddress().isLoopbackAddress()) {
      log.warn("denied a connection from {}: protected mode", address(a));
      return PROTECTED_MODE;
    }
    return null;
  }

  static final String PROTECTED_MODE =
      "DENIED Idem is in protected mode: no password is set, so it serves clients on the loopback"
          + " interface only. To serve others, set a password (CONFIG SET requirepass from a"
          + " loopback client, or --set requirepass=...), or, on a network you trust only, turn"
          + " protected mode off (CONFIG SET protected-mode no, or --set protected-mode=no).";

  ClientMemory clientMemory() {
    return clientMemory;
  }

  /** The open connections' handlers. */
  private Iterable<Connection> connections() {
    List<Connection> out = new ArrayList<>(channels.size());
    for (Channel ch : channels.values()) {
      Connection c = ch.pipeline().get(Connection.class);
      if (c != null) {
        out.add(c);
      }
    }
    return out;
  }

  /** The normal clients' client-output-buffer-limit, as set now. */
  OutputBufferLimit outputBufferLimit() {
    return outputBufferLimit;
  }

  /** Logs a connection the server closes on its own, with why: one line each. */
  void logDropped(Session s, String why) {
    log.warn("closed client id={} addr={}: {}", s.id(), s.address(), why);
  }

  void unregister(Session s) {
    sessions.remove(s.id());
    channels.remove(s.id());
  }

  private static String address(java.net.SocketAddress a) {
    return a instanceof InetSocketAddress i
        ? i.getAddress().getHostAddress() + ":" + i.getPort()
        : String.valueOf(a);
  }

  /** The cluster the settings describe, or null when cluster-enabled is no. */
  static @Nullable ClusterTopology clusterOf(Config config) {
    if (!config.getBool("cluster-enabled")) {
      return null;
    }
    return ClusterTopology.parse(
        config.get("cluster-nodes"),
        config.get("cluster-node"),
        config.getInt("cluster-partitions"),
        config.getInt("cluster-replicas"));
  }

  // ---- ServerContext

  @Override
  public @Nullable ClusterTopology cluster() {
    return cluster;
  }

  @Override
  public @Nullable ClusterLog clusterLog() {
    return clusterLog;
  }

  @Override
  public Engine engine() {
    return engine;
  }

  /** The HTTP port {@code console yes} serves on when {@code metrics-port} is 0 (off). */
  public static final int CONSOLE_PORT = 9121;

  /** The dispatcher every client's commands run through (the console's too). */
  public Dispatcher dispatcher() {
    return dispatcher;
  }

  @Override
  public Config config() {
    return config;
  }

  @Override
  public CommandRegistry commands() {
    return commands;
  }

  @Override
  public Collection<Session> sessions() {
    return sessions.values();
  }

  @Override
  public Stats stats() {
    return stats;
  }

  @Override
  public long startMillis() {
    return startMillis;
  }

  public RocksStore store() {
    return store;
  }

  /** The port the first address listens on (the real one when configured as 0). */
  public int port() {
    return port;
  }

  public int tlsPort() {
    return tlsPort;
  }

  /** The port of the Prometheus endpoint, or 0 when it is off. */
  public int metricsPort() {
    MetricsServer m = metrics;
    return m == null ? 0 : m.port();
  }

  @Override
  public @Nullable String journalFailure() {
    return store.failure();
  }

  @Override
  public String idemVersion() {
    return VERSION;
  }

  @Override
  public int connectedClients() {
    return sessions.size();
  }

  @Override
  public long instantaneousOpsPerSec() {
    return opsPerSec;
  }

  @Override
  public boolean saveInProgress() {
    return store.snapshotRunning();
  }

  @Override
  public long changesSinceLastSave() {
    return store.changesSinceSnapshot();
  }

  @Override
  public long durableSeq() {
    return store.durableSeq();
  }

  @Override
  public long diskBytes() {
    return store.diskBytes();
  }

  @Override
  public java.util.Map<String, Long> rocksdbFigures() {
    return store.rocksdbFigures();
  }

  @Override
  public void save() {
    try {
      store.snapshot(engine);
      lastSaveSeconds = System.currentTimeMillis() / 1000;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Where CHECKPOINT puts its checkpoints: a directory of the data directory. */
  static final String CHECKPOINTS = "checkpoints";

  @Override
  public Path checkpoint(String name) throws IOException {
    Path target = Path.of(config.get("dir")).resolve(CHECKPOINTS).resolve(name).toAbsolutePath();
    if (java.nio.file.Files.exists(target)) {
      throw new java.nio.file.FileAlreadyExistsException(target.toString());
    }
    java.nio.file.Files.createDirectories(target.getParent());
    synchronized (checkpointLock) { // the store must not close under RocksDB's checkpoint
      if (storeClosing) {
        throw new IOException("the server is stopping");
      }
      store.checkpoint(target);
    }
    return target;
  }

  private final Object checkpointLock = new Object();
  private boolean storeClosing;

  @Override
  public boolean saveInBackground() {
    if (!snapshotQueued.compareAndSet(false, true)) {
      return false;
    }
    snapshotter.execute(
        () -> {
          try {
            store.snapshot(engine);
            lastSaveSeconds = System.currentTimeMillis() / 1000;
          } catch (Throwable e) {
            log.error("background snapshot failed", e);
          } finally {
            snapshotQueued.set(false);
          }
        });
    return true;
  }

  @Override
  public long lastSaveSeconds() {
    return lastSaveSeconds;
  }

  @Override
  public void shutdown() {
    Thread.ofPlatform().name("idem-shutdown").start(this::close);
  }

  /** SHUTDOWN NOSAVE: skip the final snapshot (the log still holds every change). */
  public void setSaveOnShutdown(boolean save) {
    this.saveOnShutdown = save;
  }

  /** Blocks until the server has stopped. */
  public void awaitStop() throws InterruptedException {
    stopped.await();
  }

  /**
   * Stops gracefully: no new connections, held replies drained (they wait for the log, which keeps
   * committing), connections closed, a final snapshot, RocksDB closed.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (started) {
      log.info("shutting down");
    }
    if (metrics != null) {
      metrics.close();
    }
    for (Channel l : listeners) {
      l.close().awaitUninterruptibly();
    }
    // Replies already computed wait only for the committer, which is still running: each
    // connection stops reading, writes its held replies as the log releases them, then closes.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    for (Channel ch : channels.values()) {
      Connection c = ch.pipeline().get(Connection.class);
      if (c != null) {
        c.drainAndClose(deadline);
      } else {
        ch.close();
      }
    }
    for (Channel ch : channels.values()) {
      ch.closeFuture()
          .awaitUninterruptibly(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }
    workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    ClusterLog l = clusterLog;
    if (l != null) {
      l.close(); // the tailer stops before the store it writes to
    }
    cron.shutdownNow();
    background.shutdown(); // a round under way finishes: it may be writing to the store
    snapshotter.shutdown();
    try {
      background.awaitTermination(1, TimeUnit.MINUTES);
      snapshotter.awaitTermination(1, TimeUnit.MINUTES);
      if (started && saveOnShutdown && store.failure() == null) {
        store.snapshot(engine);
      }
    } catch (IOException | InterruptedException | RuntimeException e) {
      log.error("final snapshot failed; the log still holds every change", e);
    }
    synchronized (checkpointLock) { // waits for a checkpoint under way
      storeClosing = true;
    }
    store.close();
    if (started) {
      log.info("stopped");
    }
    stopped.countDown();
  }
}
