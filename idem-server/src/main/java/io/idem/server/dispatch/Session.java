package io.idem.server.dispatch;

import io.idem.server.request.Command;
import org.jspecify.annotations.Nullable;

/**
 * A client connection's state, as {@code CLIENT LIST} shows it. Mutated only on the connection's
 * event loop; other threads (CLIENT LIST, INFO) read the volatile fields.
 */
public final class Session {

  private final long id;
  private final String address;
  private final String localAddress;
  private final long createdMillis;
  private final Runnable closer;
  private volatile int protocol = 2;
  private volatile boolean authenticated;
  private volatile @Nullable String name;
  private volatile long lastCommandMillis;
  private volatile String lastCommand = "NULL";
  private volatile boolean closing;
  private long durableSeqNeeded;
  private volatile long outputBytes;
  private volatile long queryBytes;

  // MULTI ... EXEC: the queued commands (null outside MULTI), whether one was refused while
  // queueing, and the keys WATCH recorded, by key bytes.
  private java.util.@Nullable List<Command> queued;
  private boolean queueRefused;
  // What CLIENT LIST shows of them, read from other threads.
  private volatile int queuedShown = -1;
  private volatile int watchedShown;
  private final java.util.Map<java.nio.ByteBuffer, io.idem.server.engine.Engine.Watched> watched =
      new java.util.LinkedHashMap<>();

  /**
   * @param closer closes the connection after the replies already queued are written
   */
  public Session(
      long id,
      String address,
      String localAddress,
      long createdMillis,
      boolean authenticated,
      Runnable closer) {
    this.id = id;
    this.address = address;
    this.localAddress = localAddress;
    this.createdMillis = createdMillis;
    this.lastCommandMillis = createdMillis;
    this.authenticated = authenticated;
    this.closer = closer;
  }

  /**
   * The session a cluster node applies its log's records under: authenticated, and its writes are
   * applied here rather than produced to the log again.
   */
  public static Session applier(long id) {
    Session s = detached(id);
    s.applier = true;
    return s;
  }

  private boolean applier;

  /** Whether this session applies a cluster log's records (see {@link #applier(long)}). */
  public boolean isApplier() {
    return applier;
  }

  /** A session with no connection behind it, for handler tests. */
  public static Session detached(long id) {
    return new Session(
        id, "127.0.0.1:0", "127.0.0.1:0", System.currentTimeMillis(), true, () -> {});
  }

  public long id() {
    return id;
  }

  public String address() {
    return address;
  }

  public String localAddress() {
    return localAddress;
  }

  public long createdMillis() {
    return createdMillis;
  }

  public int protocol() {
    return protocol;
  }

  public void setProtocol(int protocol) {
    if (protocol != 2 && protocol != 3) {
      throw new IllegalArgumentException("protocol " + protocol);
    }
    this.protocol = protocol;
  }

  public boolean authenticated() {
    return authenticated;
  }

  public void setAuthenticated(boolean authenticated) {
    this.authenticated = authenticated;
  }

  public @Nullable String name() {
    return name;
  }

  public void setName(@Nullable String name) {
    this.name = name;
  }

  public long lastCommandMillis() {
    return lastCommandMillis;
  }

  public String lastCommand() {
    return lastCommand;
  }

  /** Called by the dispatcher before each command. */
  public void touch(String command, long nowMillis) {
    this.lastCommand = command;
    this.lastCommandMillis = nowMillis;
  }

  /** The reply to the command being run may leave only once the log holds change {@code seq}. */
  public void requireDurable(long seq) {
    if (seq > durableSeqNeeded) {
      durableSeqNeeded = seq;
    }
  }

  /** The log position the last command's reply waits for (0: none), and resets it. */
  public long takeDurableSeq() {
    long s = durableSeqNeeded;
    durableSeqNeeded = 0;
    return s;
  }

  /** Bytes of replies not yet sent, as the connection last counted them (CLIENT LIST omem). */
  public long outputBytes() {
    return outputBytes;
  }

  public void setOutputBytes(long bytes) {
    this.outputBytes = bytes;
  }

  /** Bytes held for a request not fully arrived (CLIENT LIST qbuf). */
  public long queryBytes() {
    return queryBytes;
  }

  public void setQueryBytes(long bytes) {
    this.queryBytes = bytes;
  }

  /** Asks the connection to close once the replies already queued are written (QUIT, KILL). */
  public void close() {
    closing = true;
    closer.run();
  }

  public boolean closing() {
    return closing;
  }

  // ---- transactions

  /** Whether MULTI has begun a transaction that EXEC or DISCARD has not ended. */
  public boolean inMulti() {
    return queued != null;
  }

  public void beginMulti() {
    queued = new java.util.ArrayList<>();
    queueRefused = false;
    queuedShown = 0;
  }

  /** Queues a command for EXEC. */
  public void queue(Command command) {
    if (queued == null) {
      throw new IllegalStateException("not in MULTI");
    }
    queued.add(command);
    queuedShown = queued.size();
  }

  /** A command was refused while queueing: EXEC will discard the transaction. */
  public void refuseQueue() {
    queueRefused = true;
  }

  public boolean queueRefused() {
    return queueRefused;
  }

  /** Ends the transaction and forgets every watched key; returns what was queued. */
  public java.util.List<Command> endMulti() {
    java.util.List<Command> q = queued == null ? java.util.List.of() : queued;
    queued = null;
    queueRefused = false;
    queuedShown = -1;
    unwatch();
    return q;
  }

  /** Commands queued so far, -1 outside MULTI (CLIENT LIST's multi=); from any thread. */
  public int queuedCount() {
    return queuedShown;
  }

  /** Keys watched (CLIENT LIST's watch=); from any thread. */
  public int watchedCount() {
    return watchedShown;
  }

  /** Records a key as WATCH saw it; a key watched again keeps what was seen first. */
  public void watch(byte[] key, io.idem.server.engine.Engine.Watched seen) {
    watched.putIfAbsent(java.nio.ByteBuffer.wrap(key.clone()), seen);
    watchedShown = watched.size();
  }

  public java.util.Map<java.nio.ByteBuffer, io.idem.server.engine.Engine.Watched> watched() {
    return watched;
  }

  public void unwatch() {
    watched.clear();
    watchedShown = 0;
  }
}
