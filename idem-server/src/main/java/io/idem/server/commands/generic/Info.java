package io.idem.server.commands.generic;

import io.idem.core.filter.BloomFilter;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Parse;
import io.idem.server.dispatch.ServerContext;
import io.idem.server.dispatch.Stats;
import io.idem.server.engine.Engine;
import io.idem.server.reply.Reply;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * INFO [section ...]: Redis's sections and field names where Redis has the figure, Idem's own names
 * (idem_version, jvm_heap_used, journal_*) where it does not. Lines end in CRLF and sections are
 * separated by an empty line, as redis-cli and client libraries parse them.
 */
public final class Info {

  /** In Redis's order. */
  static final List<String> SECTIONS =
      List.of(
          "server",
          "clients",
          "memory",
          "persistence",
          "stats",
          "replication",
          "modules",
          "commandstats",
          "latencystats",
          "cluster",
          "keyspace",
          "queues");

  /** What INFO with no argument, or "default", shows: everything but commandstats. */
  static final List<String> DEFAULT_SECTIONS =
      List.of(
          "server",
          "clients",
          "memory",
          "persistence",
          "stats",
          "replication",
          "modules",
          "cluster",
          "keyspace");

  private Info() {}

  /** INFO: a bulk string in RESP2, a verbatim string in RESP3. */
  public static Reply info(Call call) {
    Set<String> wanted = new LinkedHashSet<>();
    if (call.argc() == 1) {
      wanted.addAll(DEFAULT_SECTIONS);
    }
    for (int i = 1; i < call.argc(); i++) {
      String s = Parse.text(call.arg(i)).toLowerCase(Locale.ROOT);
      switch (s) {
        case "default" -> wanted.addAll(DEFAULT_SECTIONS);
        case "all", "everything" -> wanted.addAll(SECTIONS);
        default -> wanted.add(s); // unknown sections are left out, as in Redis
      }
    }
    return new Reply.Verbatim("txt", render(call.server(), wanted));
  }

  static String render(ServerContext server, Set<String> wanted) {
    StringBuilder b = new StringBuilder();
    for (String section : SECTIONS) {
      if (!wanted.contains(section)) {
        continue;
      }
      if (!b.isEmpty()) {
        b.append("\r\n");
      }
      switch (section) {
        case "server" -> server(server, b);
        case "clients" -> clients(server, b);
        case "memory" -> memory(server, b);
        case "modules" -> Modules.info(b);
        case "persistence" -> persistence(server, b);
        case "stats" -> stats(server, b);
        case "replication" -> replication(b);
        case "commandstats" -> commandStats(server, b);
        case "latencystats" -> latencyStats(server, b);
        case "cluster" -> {
          title(b, "Cluster");
          field(b, "cluster_enabled", server.cluster() == null ? 0 : 1);
          if (server.clusterLog() != null) {
            // Idem's own: whether this node has applied its partitions up to where they ended at
            // its start (it joins the live nodes then), the records it applied since, and the live
            // nodes as it sees them.
            field(b, "cluster_log_caught_up", server.clusterLog().caughtUp() ? 1 : 0);
            field(b, "cluster_log_applied", server.clusterLog().applied());
            field(b, "cluster_log_offsets", server.clusterLog().appliedOffsets());
            String stopped = server.clusterLog().stopped();
            String membership = server.clusterLog().membershipError();
            String unreachable = server.clusterLog().brokersUnreachable();
            field(
                b,
                "cluster_log_status",
                stopped != null
                    ? "stopped: " + stopped
                    : unreachable != null ? "unreachable: " + unreachable : "ok");
            field(b, "cluster_membership_status", membership == null ? "ok" : "err: " + membership);
            String durability = server.clusterLog().durabilityWarning();
            field(b, "cluster_log_durability", durability == null ? "ok" : "warn: " + durability);
            field(b, "cluster_live_nodes", String.join(",", server.cluster().liveNames()));
          }
        }
        case "keyspace" -> keyspace(server, b);
        case "queues" -> queues(server, b);
        default -> throw new IllegalStateException(section);
      }
    }
    return b.toString();
  }

  private static void server(ServerContext s, StringBuilder b) {
    long now = s.engine().now();
    long uptime = Math.max(0, (now - s.startMillis()) / 1000);
    String arch = System.getProperty("os.arch", "");
    title(b, "Server");
    field(b, "redis_version", ConnectionHandlers.REDIS_VERSION);
    field(b, "idem_version", s.idemVersion());
    field(b, "redis_mode", "standalone");
    field(
        b,
        "os",
        System.getProperty("os.name", "")
            + " "
            + System.getProperty("os.version", "")
            + " "
            + arch);
    field(b, "arch_bits", arch.contains("64") ? 64 : 32);
    field(b, "java_version", Runtime.version().toString());
    field(b, "bloom_probe", BloomFilter.probeKind());
    field(b, "process_id", s.pid());
    field(b, "tcp_port", s.port());
    field(b, "server_time_usec", now * 1000);
    field(b, "uptime_in_seconds", uptime);
    field(b, "uptime_in_days", uptime / 86_400);
  }

  private static void clients(ServerContext s, StringBuilder b) {
    title(b, "Clients");
    field(b, "connected_clients", s.connectedClients());
    field(b, "maxclients", s.config().get("maxclients"));
    field(b, "blocked_clients", s.blockedClients());
  }

  private static void memory(ServerContext s, StringBuilder b) {
    Engine e = s.engine();
    Runtime rt = Runtime.getRuntime();
    long heapUsed = rt.totalMemory() - rt.freeMemory();
    long maxMemory = s.config().getLong("maxmemory");
    title(b, "Memory");
    // used_memory is what maxmemory limits: the resident values, the changes waiting for the log
    // (Redis's AOF buffer) and the snapshot images being written; not the JVM's heap.
    long used = e.usedMemory();
    field(b, "used_memory", used);
    field(b, "used_memory_human", human(used));
    field(b, "used_memory_dataset", e.datasetMemory());
    field(b, "mem_aof_buffer", e.journal().queuedBytes());
    field(b, "mem_snapshot_images", e.journal().imageBytes());
    // As Redis counts it: unfinished requests and unsent replies, what maxmemory-clients bounds.
    long clients = 0;
    for (io.idem.server.dispatch.Session session : s.sessions()) {
      clients += session.queryBytes() + session.outputBytes();
    }
    field(b, "mem_clients_normal", clients);
    field(b, "maxmemory_clients", s.config().getLong("maxmemory-clients"));
    field(b, "jvm_heap_used", heapUsed);
    field(b, "jvm_heap_used_human", human(heapUsed));
    field(b, "jvm_heap_max", rt.maxMemory());
    field(b, "jvm_heap_max_human", human(rt.maxMemory()));
    long system = totalSystemMemory();
    if (system > 0) {
      field(b, "total_system_memory", system);
      field(b, "total_system_memory_human", human(system));
    }
    field(b, "maxmemory", maxMemory);
    field(b, "maxmemory_human", human(maxMemory));
    // Idem's own: the dataset's bytes by TYPE, kept as keys change (MEMORY USAGE summed).
    StringBuilder types = new StringBuilder();
    for (Map.Entry<String, Long> t : e.memoryByType().entrySet()) {
      types.append(types.isEmpty() ? "" : ",").append(t.getKey()).append('=').append(t.getValue());
    }
    field(b, "used_memory_by_type", types);
    // Past maxmemory Idem refuses writes and evicts nothing: Redis's noeviction.
    field(b, "maxmemory_policy", "noeviction");
  }

  private static void persistence(ServerContext s, StringBuilder b) {
    long last = s.engine().journal().lastSeq();
    long durable = s.durableSeq();
    String failure = s.journalFailure();
    title(b, "Persistence");
    field(b, "loading", s.loading() ? 1 : 0);
    field(b, "rdb_changes_since_last_save", s.changesSinceLastSave());
    field(b, "rdb_bgsave_in_progress", s.saveInProgress() ? 1 : 0);
    field(b, "rdb_last_save_time", s.lastSaveSeconds());
    field(b, "appendfsync", s.config().get("appendfsync"));
    field(b, "journal_last_seq", last);
    field(b, "journal_durable_seq", durable);
    field(b, "journal_pending", Math.max(0, last - durable));
    field(b, "journal_status", failure == null ? "ok" : "err");
    if (failure != null) {
      field(b, "journal_error", failure);
    }
    field(b, "data_dir", s.config().get("dir"));
    field(b, "disk_bytes", s.diskBytes());
    for (Map.Entry<String, Long> f : s.rocksdbFigures().entrySet()) {
      field(b, f.getKey(), f.getValue());
    }
  }

  private static void stats(ServerContext s, StringBuilder b) {
    Stats st = s.stats();
    title(b, "Stats");
    field(b, "total_connections_received", st.connectionsReceived.sum());
    field(b, "total_commands_processed", st.commandsProcessed.sum());
    field(b, "instantaneous_ops_per_sec", s.instantaneousOpsPerSec());
    field(b, "total_net_input_bytes", st.netInputBytes.sum());
    field(b, "total_net_output_bytes", st.netOutputBytes.sum());
    field(b, "rejected_connections", st.rejectedConnections.sum());
    field(b, "client_output_buffer_limit_disconnections", st.outputBufferLimitDisconnections.sum());
    field(b, "evicted_clients", st.evictedClients.sum());
    field(b, "expired_keys", s.engine().expiredKeys());
    field(b, "evicted_keys", 0);
    field(b, "keyspace_hits", s.engine().keyspaceHits());
    field(b, "keyspace_misses", s.engine().keyspaceMisses());
    field(b, "total_error_replies", st.errorReplies.sum());
  }

  private static void replication(StringBuilder b) {
    title(b, "Replication");
    field(b, "role", "master");
    field(b, "connected_slaves", 0);
  }

  /**
   * Redis 7's latencystats: each command's p50, p99 and p99.9 in microseconds, from the histogram
   * the dispatcher keeps (2 significant digits).
   */
  private static void latencyStats(ServerContext s, StringBuilder b) {
    title(b, "Latencystats");
    Map<String, Stats.CommandStats> byName = new TreeMap<>(s.stats().commands());
    for (Map.Entry<String, Stats.CommandStats> e : byName.entrySet()) {
      org.HdrHistogram.Histogram h = e.getValue().latencyMicros.copy();
      if (h.getTotalCount() == 0) {
        continue;
      }
      field(
          b,
          "latency_percentiles_usec_" + e.getKey(),
          "p50="
              + percentile(h, 50)
              + ",p99="
              + percentile(h, 99)
              + ",p99.9="
              + percentile(h, 99.9));
    }
  }

  private static String percentile(org.HdrHistogram.Histogram h, double p) {
    return String.format(Locale.ROOT, "%.3f", (double) h.getValueAtPercentile(p));
  }

  private static void commandStats(ServerContext s, StringBuilder b) {
    title(b, "Commandstats");
    Map<String, Stats.CommandStats> byName = new TreeMap<>(s.stats().commands());
    for (Map.Entry<String, Stats.CommandStats> e : byName.entrySet()) {
      Stats.CommandStats c = e.getValue();
      long calls = c.calls.sum();
      long micros = c.micros.sum();
      long rejected = c.rejected.sum();
      long failed = c.failed.sum();
      if (calls == 0 && rejected == 0 && failed == 0) {
        continue;
      }
      field(
          b,
          "cmdstat_" + e.getKey(),
          "calls="
              + calls
              + ",usec="
              + micros
              + ",usec_per_call="
              + String.format(Locale.ROOT, "%.2f", calls == 0 ? 0.0 : (double) micros / calls)
              + ",rejected_calls="
              + rejected
              + ",failed_calls="
              + failed);
    }
  }

  /**
   * Idem's own section, shown when asked for (INFO queues, INFO all). Each queue's jobs ready,
   * delayed, leased and dead, as of now; at most 1000 listed, found without a walk of the keys.
   */
  private static void queues(ServerContext s, StringBuilder b) {
    long[] total = new long[1];
    var queues = io.idem.server.commands.queue.QueueStats.list(s.engine(), total);
    title(b, "Queues");
    field(b, "queues", total[0]);
    int i = 0;
    for (var q : queues) {
      field(
          b,
          "queue" + i++,
          "name="
              + io.idem.server.commands.queue.QueueStats.printable(q.key())
              + ",ready="
              + q.ready()
              + ",delayed="
              + q.delayed()
              + ",leased="
              + q.leased()
              + ",dead="
              + q.dead());
    }
  }

  private static void keyspace(ServerContext s, StringBuilder b) {
    Engine e = s.engine();
    long keys = e.size();
    long expires = e.keysWithExpiry();
    title(b, "Keyspace");
    if (keys > 0 || expires > 0) {
      // avg_ttl: the engine keeps no estimate yet; Redis also reports 0 before it has one.
      b.append("db0:keys=")
          .append(keys)
          .append(",expires=")
          .append(expires)
          .append(",avg_ttl=0,subexpiry=0\r\n");
    }
  }

  /** Redis's bytesToHuman: 1023B, 1.00K, 64.00M, ... with two decimals. */
  static String human(long n) {
    if (n < 1024) {
      return n + "B";
    }
    String units = "KMGTP";
    double d = n;
    for (int i = 0; i < units.length(); i++) {
      d /= 1024;
      if (d < 1024) {
        return String.format(Locale.ROOT, "%.2f%c", d, units.charAt(i));
      }
    }
    return n + "B"; // past petabytes, as Redis
  }

  private static long totalSystemMemory() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getTotalMemorySize();
    }
    return 0;
  }

  private static void title(StringBuilder b, String name) {
    b.append("# ").append(name).append("\r\n");
  }

  /** Appends a {@code name:value} line; the value loses characters that would break the format. */
  private static void field(StringBuilder b, String name, Object value) {
    String v = String.valueOf(value);
    b.append(name).append(':');
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      b.append(c == '\r' || c == '\n' ? ' ' : c);
    }
    b.append("\r\n");
  }
}
