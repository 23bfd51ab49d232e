package io.idem.server.dispatch;

import io.idem.server.engine.Engine;
import java.util.Collection;
import org.jspecify.annotations.Nullable;

/**
 * What handlers may reach of the server. The network server implements it; handler tests use a
 * server with no network.
 */
public interface ServerContext {

  Engine engine();

  Config config();

  CommandRegistry commands();

  /** The sessions connected now (CLIENT LIST, CLIENT KILL, INFO clients). */
  Collection<Session> sessions();

  Stats stats();

  /** Millis since the epoch when the server started. */
  long startMillis();

  /** Takes a snapshot of every resident value now and truncates the log behind it (SAVE). */
  void save();

  /** Starts {@link #save} in the background; false if one is already running (BGSAVE). */
  boolean saveInBackground();

  /**
   * Makes a checkpoint of the store named {@code name} (CHECKPOINT) and returns its directory.
   *
   * @throws java.nio.file.FileAlreadyExistsException if a checkpoint of that name exists
   */
  default java.nio.file.Path checkpoint(String name) throws java.io.IOException {
    throw new java.io.IOException("this server has no store to checkpoint");
  }

  /** Seconds since the epoch of the last completed snapshot (LASTSAVE). */
  long lastSaveSeconds();

  /** Stops the server gracefully after this reply (SHUTDOWN). */
  void shutdown();

  /** The cluster this server is a node of, or null when it runs alone (cluster-enabled no). */
  default io.idem.server.cluster.@Nullable ClusterTopology cluster() {
    return null;
  }

  /** The Kafka log this cluster node's writes go through, or null when it has none. */
  default io.idem.server.cluster.@Nullable ClusterLog clusterLog() {
    return null;
  }

  /** Why the log cannot be written, or null while it can: writes are refused then. */
  default @org.jspecify.annotations.Nullable String journalFailure() {
    return null;
  }

  // ---- figures INFO reports. The defaults are what a server without a network or a store can
  // say truthfully; the network server overrides each one it knows better.

  /** Idem's own version (INFO idem_version): the jar's Implementation-Version when it has one. */
  default String idemVersion() {
    String v = ServerContext.class.getPackage().getImplementationVersion();
    return v == null ? "unknown" : v;
  }

  /** The process id (INFO process_id). */
  default long pid() {
    return ProcessHandle.current().pid();
  }

  /**
   * The TCP port listened on (INFO tcp_port): the configured one, which is 0 when it was picked.
   */
  default int port() {
    return config().getInt("port");
  }

  /** Connections open now (INFO connected_clients). */
  default int connectedClients() {
    return sessions().size();
  }

  /** Connections waiting in a blocking command (INFO blocked_clients). */
  default int blockedClients() {
    return 0;
  }

  /** Commands per second over the last few seconds (INFO instantaneous_ops_per_sec). */
  default long instantaneousOpsPerSec() {
    return 0;
  }

  /** Whether the store is still loading the keyspace (INFO loading). */
  default boolean loading() {
    return false;
  }

  /** Whether a snapshot is being taken now (INFO rdb_bgsave_in_progress; SAVE refuses then). */
  default boolean saveInProgress() {
    return false;
  }

  /** Journal changes since the last completed snapshot (INFO rdb_changes_since_last_save). */
  default long changesSinceLastSave() {
    return 0;
  }

  /**
   * The last journal sequence number known to be in the write-ahead log (INFO persistence): with
   * {@code engine().journal().lastSeq()} it tells how many changes wait for their fsync.
   */
  default long durableSeq() {
    return engine().journal().lastSeq();
  }

  /** Bytes the store takes on disk: SST files and logs (INFO persistence). */
  default long diskBytes() {
    return 0;
  }

  /** RocksDB's compaction and size figures (INFO persistence); none without a store. */
  default java.util.Map<String, Long> rocksdbFigures() {
    return java.util.Map.of();
  }
}
