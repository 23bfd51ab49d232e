package io.idem.bench;

import io.idem.bench.counters.Events;
import io.idem.core.window.Resolution;
import io.idem.core.window.WindowedCounters;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A 30-feature day query of a counter table, in process: what {@code COUNTER.QUERY} costs the
 * server beside the network and RESP. The table is loaded as {@code scripts/bench-counters.sh}
 * loads it (the same events, 30 features each, minutes for 2 h and hours for 8 d) into a map
 * standing in for RocksDB, then queried with the same 4,096 prepared queries in turn, so after the
 * warm-up the rows a query reads are in the table's row cache, but for those that share their set
 * of slots with two others or more (read from the map each time; setup prints how many): the score
 * is the cached path, 60 row lookups and sums a query (the day ending at midnight spans two 64-hour
 * rows).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+UseParallelGC"})
public class CounterQueryBenchmark {
  static final long END = 1_767_225_600_000L; // 2026-01-01T00:00Z
  static final long[] DAY = {Events.DAY};

  @Param({"200000"})
  int events;

  /**
   * Prepared queries, cycled: 4,096 as the server benchmark; 64 keep every row in the CPU's caches.
   */
  @Param({"4096"})
  int queries;

  private WindowedCounters table;
  private WindowedCounters.RowSource store;
  private byte[][][] prepared;
  private int[] hourResolution;
  private int next;

  @Setup
  public void setup() throws IOException {
    table =
        new WindowedCounters(
            List.of(
                new Resolution(Events.MINUTE, Events.MINUTE_RETENTION),
                new Resolution(Events.HOUR, Events.HOUR_RETENTION)),
            1 << 20);
    Map<ByteBuffer, byte[]> rows = new HashMap<>();
    store = key -> rows.get(ByteBuffer.wrap(key));
    Events load = new Events(events, 1_000_000, END, 42);
    String[] names = new String[Events.FEATURES];
    for (int i = 0; i < events; i++) {
      load.features(i, names);
      WindowedCounters.Increments inc = table.increments(store, END);
      for (String n : names) {
        inc.add(n.getBytes(StandardCharsets.UTF_8), load.time(i), 1);
      }
      inc.writeTo(
          (keys, changed) -> {
            for (int k = 0; k < keys.size(); k++) {
              rows.put(ByteBuffer.wrap(keys.get(k)), changed.get(k));
            }
          });
    }
    prepared = new byte[queries][Events.FEATURES][];
    for (int q = 0; q < queries; q++) {
      load.queryFeatures(q, names);
      for (int k = 0; k < Events.FEATURES; k++) {
        prepared[q][k] = names[k].getBytes(StandardCharsets.UTF_8);
      }
    }
    hourResolution = new int[] {table.resolve(Events.DAY, END, END)};
    reportCacheMisses(rows);
  }

  /**
   * Runs every query twice through a store that notes the rows it is asked for, and says on stderr
   * how many of the distinct rows the queries read the second pass still asks for: rows the cache
   * keeps losing to others that share their slots (BENCHMARKS.md), each counted once however often
   * it is read. The table's cache stays warm for the benchmark.
   */
  private void reportCacheMisses(Map<ByteBuffer, byte[]> rows) throws IOException {
    List<Set<ByteBuffer>> asked = List.of(new HashSet<>(), new HashSet<>());
    int[] pass = new int[1];
    WindowedCounters.RowSource noting =
        key -> {
          ByteBuffer k = ByteBuffer.wrap(key);
          asked.get(pass[0]).add(k);
          return rows.get(k);
        };
    for (pass[0] = 0; pass[0] < 2; pass[0]++) {
      for (byte[][] names : prepared) {
        table.sums(noting, names, DAY, hourResolution, END);
      }
    }
    int distinct = asked.get(0).size();
    int missed = asked.get(1).size();
    System.err.printf(
        "row cache: %,d distinct rows read by %,d queries; %,d of them (%.1f %%) missed again on a"
            + " second pass%n",
        distinct, queries, missed, 100.0 * missed / distinct);
  }

  @Benchmark
  public long[] dayQuery() throws IOException {
    byte[][] names = prepared[next];
    next = next + 1 == queries ? 0 : next + 1;
    return table.sums(store, names, DAY, hourResolution, END);
  }
}
