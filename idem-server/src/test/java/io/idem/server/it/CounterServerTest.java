package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Counter tables on the real store: counts are rows in RocksDB, there after a restart. */
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
}
