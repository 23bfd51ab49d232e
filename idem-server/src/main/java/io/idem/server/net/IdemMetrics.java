package io.idem.server.net;

import io.idem.server.commands.queue.QueueStats;
import io.idem.server.dispatch.Stats;
import io.idem.server.engine.Engine;
import io.idem.server.store.RocksStore;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.registry.MetricType;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.Unit;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * Idem's metrics, in a Prometheus registry of the server's own, beside the JVM's (heap, GC pauses,
 * threads, from Prometheus's instrumentation). Each value is read at the scrape from what the
 * server keeps anyway (counters, its memory by type, its queue registry), so a scrape costs the
 * number of commands and queues it lists, never a walk of the keyspace, and commands pay nothing
 * for it.
 */
final class IdemMetrics {

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

  private static final String[] STATES = {"ready", "delayed", "leased", "dead"};

  private IdemMetrics() {}

  /** A registry with the server's metrics and the JVM's. */
  static PrometheusRegistry registry(IdemServer server) {
    PrometheusRegistry r = new PrometheusRegistry();
    Stats stats = server.stats();
    Engine engine = server.engine();
    RocksStore store = server.store();

    perCommand(
        r,
        stats,
        "idem_commands",
        "Commands run, by command: those that failed included, those rejected not.",
        c -> c.calls.sum());
    perCommand(
        r,
        stats,
        "idem_commands_failed",
        "Commands that ran and replied with an error.",
        c -> c.failed.sum());
    perCommand(
        r,
        stats,
        "idem_commands_rejected",
        "Commands refused before running: arity, NOAUTH, OOM, or writes while the log fails.",
        c -> c.rejected.sum());
    r.register(new Latency(stats));

    gauge(r, "idem_connected_clients", "Client connections open now.", server::connectedClients);
    counter(
        r,
        "idem_connections_received",
        "Client connections accepted by the socket, rejected ones included.",
        stats.connectionsReceived::sum);
    counter(
        r,
        "idem_connections_rejected",
        "Client connections closed at once because maxclients were connected.",
        stats.rejectedConnections::sum);
    counter(
        r,
        "idem_output_buffer_limit_disconnections",
        "Clients closed for passing client-output-buffer-limit.",
        stats.outputBufferLimitDisconnections::sum);
    counter(
        r,
        "idem_evicted_clients",
        "Clients closed because all clients' buffers together passed maxmemory-clients.",
        stats.evictedClients::sum);
    gauge(r, "idem_keys", "Keys held, expired ones not yet removed included.", engine::size);
    counter(
        r,
        "idem_expired_keys",
        "Keys removed because their time to live ended.",
        engine::expiredKeys);
    gauge(
        r,
        "idem_memory_used_bytes",
        "Bytes the keys, their resident values, the changes waiting for the log and the snapshot"
            + " images being written take: what maxmemory limits.",
        engine::usedMemory);
    gauge(
        r,
        "idem_memory_log_queue_bytes",
        "Bytes the changes waiting for the log hold, with the rows readers see meanwhile.",
        () -> engine.journal().queuedBytes());
    gauge(
        r, "idem_memory_max_bytes", "The maxmemory setting; 0 means no limit.", engine::maxMemory);
    labelled(
        r,
        "idem_memory_by_type_bytes",
        "MEMORY USAGE summed over the keys of each TYPE, kept as keys change.",
        new String[] {"type"},
        cb -> engine.memoryByType().forEach((type, bytes) -> cb.call(bytes, type)));
    labelled(
        r,
        "idem_queue_jobs",
        "Jobs of each queue (at most " + QueueStats.MAX_LISTED + " queues) by state.",
        new String[] {"queue", "state"},
        cb -> {
          for (QueueStats.Counts q : QueueStats.list(engine, new long[1])) {
            String name = new String(q.key(), StandardCharsets.UTF_8);
            long[] n = {q.ready(), q.delayed(), q.leased(), q.dead()};
            for (int i = 0; i < n.length; i++) {
              cb.call(n[i], name, STATES[i]);
            }
          }
        });
    gauge(
        r,
        "idem_queues",
        "Keys that hold a queue.",
        () -> engine.countOf(io.idem.server.commands.queue.QueueCodec.INSTANCE));
    gauge(
        r,
        "idem_persistence_log_ok",
        "1 while the write-ahead log can be written; 0 when it cannot and writes are refused.",
        () -> server.journalFailure() == null ? 1 : 0);
    gauge(
        r,
        "idem_persistence_pending_changes",
        "Changes made but not yet in the write-ahead log: their replies wait for it.",
        () -> Math.max(0, store.pendingChanges()));
    gauge(
        r,
        "idem_persistence_log_since_snapshot_bytes",
        "Log bytes written since the last snapshot: what a restart replays.",
        store::logBytesSinceSnapshot);
    GaugeWithCallback.builder()
        .name("idem_persistence_last_snapshot_age_seconds")
        .help("Seconds since the last snapshot ended, or since the store was loaded if none has.")
        .callback(
            cb ->
                cb.call(Math.max(0, System.currentTimeMillis() - store.lastSnapshotMillis()) / 1e3))
        .register(r);
    GaugeWithCallback.builder()
        .name("idem_persistence_last_snapshot_duration_seconds")
        .help("How long the last snapshot took; 0 before the first.")
        .callback(cb -> cb.call(store.lastSnapshotDurationMillis() / 1e3))
        .register(r);
    GaugeWithCallback.builder()
        .name("idem_disk_bytes")
        .help("Bytes the data directory's files take: SST files, write-ahead logs, manifests.")
        .callback(
            cb -> {
              long disk = store.diskBytes();
              if (disk >= 0) { // -1: the directory could not be listed; no sample beats a false one
                cb.call(disk);
              }
            })
        .register(r);
    gauge(r, "idem_slowlog_entries", "Entries SLOWLOG holds now.", stats.slowLog::len);
    JvmMetrics.builder().register(r);
    return r;
  }

  private static void perCommand(
      PrometheusRegistry r,
      Stats stats,
      String name,
      String help,
      ToLongFunction<Stats.CommandStats> value) {
    CounterWithCallback.builder()
        .name(name)
        .help(help)
        .labelNames("command")
        .callback(
            cb -> {
              for (Map.Entry<String, Stats.CommandStats> e :
                  new TreeMap<>(stats.commands()).entrySet()) {
                cb.call(value.applyAsLong(e.getValue()), e.getKey());
              }
            })
        .register(r);
  }

  private static void gauge(
      PrometheusRegistry r, String name, String help, java.util.function.LongSupplier value) {
    GaugeWithCallback.builder()
        .name(name)
        .help(help)
        .callback(cb -> cb.call(value.getAsLong()))
        .register(r);
  }

  private static void labelled(
      PrometheusRegistry r,
      String name,
      String help,
      String[] labels,
      Consumer<GaugeWithCallback.Callback> samples) {
    GaugeWithCallback.builder()
        .name(name)
        .help(help)
        .labelNames(labels)
        .callback(samples)
        .register(r);
  }

  private static void counter(
      PrometheusRegistry r, String name, String help, java.util.function.LongSupplier value) {
    CounterWithCallback.builder()
        .name(name)
        .help(help)
        .callback(cb -> cb.call(value.getAsLong()))
        .register(r);
  }

  /**
   * One histogram per command, from the HdrHistogram the dispatcher keeps anyway. A bucket counts
   * the histogram's sub-buckets whose lowest value is at most its bound, so it is exact to the
   * histogram's precision (2 significant digits): values up to 1% above a bound may count in it.
   */
  private static final class Latency implements Collector {
    private static final String NAME = "idem_command_duration_seconds";
    private final Stats stats;

    Latency(Stats stats) {
      this.stats = stats;
    }

    @Override
    public MetricSnapshot collect() {
      HistogramSnapshot.Builder b =
          HistogramSnapshot.builder()
              .name(NAME)
              .help(
                  "Time commands took to run, by command, the wait for the write-ahead log not"
                      + " included.")
              .unit(Unit.SECONDS);
      long[] counts = new long[BOUNDS_MICROS.length];
      for (Map.Entry<String, Stats.CommandStats> e : new TreeMap<>(stats.commands()).entrySet()) {
        Histogram h = e.getValue().latencyMicros.copy(); // one consistent view of a live histogram
        java.util.Arrays.fill(counts, 0);
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
        ClassicHistogramBuckets.Builder buckets = ClassicHistogramBuckets.builder();
        long inBuckets = 0;
        for (int i = 0; i < BOUNDS_MICROS.length; i++) {
          buckets.bucket(BOUNDS_MICROS[i] / 1e6, counts[i]);
          inBuckets += counts[i];
        }
        buckets.bucket(Double.POSITIVE_INFINITY, total - inBuckets);
        b.dataPoint(
            HistogramSnapshot.HistogramDataPointSnapshot.builder()
                .labels(Labels.of("command", e.getKey()))
                .classicHistogramBuckets(buckets.build())
                .sum(e.getValue().micros.sum() / 1e6)
                .build());
      }
      return b.build();
    }

    @Override
    public String getPrometheusName() {
      return NAME;
    }

    @Override
    public MetricType getMetricType() {
      return MetricType.HISTOGRAM;
    }
  }
}
