package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Counting values on the real store: counter rows in RocksDB, sketches from snapshots and the log,
 * all there after a restart.
 */
class CounterServerTest {

  @TempDir Path tmp;

  @Test
  void countsSurviveRestart_withAndWithoutASnapshot() throws Exception {
    Path dir = tmp.resolve("data");
    long now = System.currentTimeMillis();
    try (ServerHarness s = new ServerHarness(dir);
        RespClient c = new RespClient(s.port())) {
      assertThat(
              c.call("COUNTER.RESERVE", "t", "RESOLUTION", "1m", "1h", "RESOLUTION", "1d", "30d"))
          .isEqualTo("OK");
      assertThat(c.call("COUNTER.INCRBY", "t", Long.toString(now), "a", "5", "b", "1"))
          .isEqualTo(2L);
      assertThat(c.call("SAVE")).isEqualTo("OK");
      assertThat(c.call("COUNTER.INCRBY", "t", Long.toString(now - 2 * 86_400_000L), "a", "100"))
          .isEqualTo(1L);
      assertThat(c.call("COUNTER.INCRBY", "auto", "*", "x", "-3")).isEqualTo(2L);
      s.server.setSaveOnShutdown(false);
    }
    try (ServerHarness s = new ServerHarness(dir);
        RespClient c = new RespClient(s.port())) {
      String end = Long.toString(now);
      assertThat(c.call("COUNTER.QUERY", "t", end, "1h", "30d", "NAMES", "a", "b", "c"))
          .isEqualTo(List.of(List.of(5L, 105L), List.of(1L, 1L), List.of(0L, 0L)));
      assertThat(c.call("COUNTER.QUERY", "auto", "*", "2h", "NAMES", "x"))
          .isEqualTo(List.of(List.of(-3L)));
      List<?> info = (List<?>) c.call("COUNTER.INFO", "t");
      assertThat(info.subList(0, 2))
          .isEqualTo(
              List.of(
                  "Resolutions",
                  List.of(List.of(60_000L, 3_600_000L), List.of(86_400_000L, 2_592_000_000L))));
      assertThat(c.call("TYPE", "t")).isEqualTo("counter");
    }
  }

  @Test
  void distinctCountsAndHyperLogLogsSurviveRestart() throws Exception {
    Path dir = tmp.resolve("data");
    List<String> add = new java.util.ArrayList<>(List.of("DISTINCT.ADD", "d", "*"));
    for (int i = 0; i < 300; i++) {
      add.add("ip:1");
      add.add("user-" + i);
    }
    List<?> before;
    try (ServerHarness s = new ServerHarness(dir);
        RespClient c = new RespClient(s.port())) {
      assertThat(c.call("DISTINCT.RESERVE", "d", "PRECISION", "12")).isEqualTo("OK");
      assertThat((Long) c.call(add.toArray(String[]::new))).isBetween(280L, 300L);
      assertThat(c.call("PFADD", "h", "a", "b", "c")).isEqualTo(1L);
      assertThat(c.call("SAVE")).isEqualTo("OK");
      assertThat(c.call("PFADD", "h", "d")).isEqualTo(1L);
      before = (List<?>) c.call("DISTINCT.COUNT", "d", "*", "1h", "7d", "NAMES", "ip:1");
      s.server.setSaveOnShutdown(false);
    }
    try (ServerHarness s = new ServerHarness(dir);
        RespClient c = new RespClient(s.port())) {
      assertThat(c.call("DISTINCT.COUNT", "d", "*", "1h", "7d", "NAMES", "ip:1")).isEqualTo(before);
      assertThat((List<?>) before.getFirst())
          .allSatisfy(n -> assertThat((Long) n).isBetween(290L, 310L));
      assertThat(c.call("PFCOUNT", "h")).isEqualTo(4L);
      assertThat(c.call("TYPE", "d")).isEqualTo("distinct");
      assertThat(((List<?>) c.call("DISTINCT.INFO", "d")).subList(2, 4))
          .isEqualTo(List.of("Precision", 12L));
    }
  }

  @Test
  void tDigestsSurviveRestart_asTheyWere_queriesBetweenWritesIncluded() throws Exception {
    Path dir = tmp.resolve("data");
    List<String> add = new java.util.ArrayList<>(List.of("TDIGEST.ADD", "t"));
    for (int i = 0; i < 500; i++) {
      add.add(Integer.toString(i * 7919 % 1000));
    }
    List<String> asked = List.of("TDIGEST.QUANTILE", "t", "0.01", "0.5", "0.99");
    List<?> info;
    List<?> merged;
    Object quantiles;
    try (ServerHarness s = new ServerHarness(dir);
        RespClient c = new RespClient(s.port())) {
      assertThat(c.call("TDIGEST.CREATE", "t", "COMPRESSION", "20")).isEqualTo("OK");
      assertThat(c.call(add.toArray(String[]::new))).isEqualTo("OK"); // compresses on the way
      assertThat(c.call("TDIGEST.ADD", "t", "5000", "-5")).isEqualTo("OK");
      c.call(asked.toArray(String[]::new)); // compresses the buffer, logs nothing
      assertThat(c.call("TDIGEST.ADD", "t", "7", "8")).isEqualTo("OK"); // logs the compression
      c.call(asked.toArray(String[]::new));
      assertThat(c.call("SAVE")).isEqualTo("OK"); // a snapshot of the compressed digest
      assertThat(c.call("TDIGEST.ADD", "t", "9")).isEqualTo("OK");
      c.call(asked.toArray(String[]::new));
      assertThat(c.call("TDIGEST.ADD", "t", "42")).isEqualTo("OK");
      info = (List<?>) c.call("TDIGEST.INFO", "t");
      // Compresses t in place, logging nothing for t: after a restart, t is as it was here.
      assertThat(c.call("TDIGEST.MERGE", "m", "2", "t", "t", "COMPRESSION", "50")).isEqualTo("OK");
      merged = (List<?>) c.call("TDIGEST.INFO", "m");
      quantiles = texts(c.call(asked.toArray(String[]::new)));
      s.server.setSaveOnShutdown(false);
    }
    try (ServerHarness s = new ServerHarness(dir);
        RespClient c = new RespClient(s.port())) {
      // The log replays to the very digests: nodes, weights and compressions (the memory of
      // their slots may differ: live arrays grow by doubling, loaded ones are exact).
      assertThat(((List<?>) c.call("TDIGEST.INFO", "t")).subList(0, 16))
          .isEqualTo(info.subList(0, 16));
      assertThat(((List<?>) c.call("TDIGEST.INFO", "m")).subList(0, 16))
          .isEqualTo(merged.subList(0, 16));
      assertThat(info.subList(6, 8)).isEqualTo(List.of("Unmerged nodes", 1L));
      assertThat(texts(c.call(asked.toArray(String[]::new)))).isEqualTo(quantiles);
      assertThat(texts(c.call("TDIGEST.MIN", "t"))).isEqualTo("-5");
      assertThat(merged.subList(0, 2)).isEqualTo(List.of("Compression", 50L));
      assertThat(c.call("TYPE", "m")).isEqualTo("TDIS-TYPE");
    }
  }

  /** Bulk strings as text, in lists too. */
  private static Object texts(Object reply) {
    return switch (reply) {
      case byte[] b -> new String(b, java.nio.charset.StandardCharsets.UTF_8);
      case List<?> l -> l.stream().map(CounterServerTest::texts).toList();
      default -> reply;
    };
  }
}
