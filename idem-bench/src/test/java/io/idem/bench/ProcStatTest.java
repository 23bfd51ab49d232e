package io.idem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcStatTest {

  @Test
  void userAndSystemTicksAreCountedAfterTheNameWhateverItHolds() {
    // A thread name may hold spaces and parentheses: fields are counted after the last ')'.
    String stat =
        "4242 (odd) name (x)) S 1 4242 4242 0 -1 4194560 1234 0 0 0 57 13 0 0 20 0 30 0 99 0";
    assertThat(ProcStat.userSystemTicks(stat)).containsExactly(57, 13);
  }

  @Test
  void schedstatGivesTheRunQueueWaitAndTheTimesRun(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("schedstat");
    Files.writeString(file, "8123456789 250000000 31337\n");
    assertThat(ProcStat.schedstat(file)).containsExactly(250_000_000L, 31_337L);
    assertThat(ProcStat.schedstat(dir.resolve("absent"))).containsExactly(0L, 0L);
    Files.writeString(file, "8123456789\n");
    assertThat(ProcStat.schedstat(file)).containsExactly(0L, 0L);
  }

  @Test
  void threadsSinceShowsCpuAndWaitOfThreadsAboveTheFloor() {
    Map<String, long[]> before = new TreeMap<>();
    before.put("idem-io-#", new long[] {100, 50, 2_000_000_000L, 1000});
    Map<String, long[]> after = new TreeMap<>();
    after.put("idem-io-#", new long[] {900, 450, 2_750_000_000L, 61_000});
    after.put("C2 CompilerThre#", new long[] {3, 1, 5_000_000L, 7}); // 40 ms: under the floor
    after.put("new-thread", new long[] {20, 0, 1_000_000L, 3});
    assertThat(ProcStat.threadsSince(before, after, 100))
        .isEqualTo(" idem-io-# 8000+4000 wait 750/60000; new-thread 200+0 wait 1/3;");
  }

  @Test
  void thisThreadHasASchedstatOnLinux() throws IOException {
    Path own = Path.of("/proc/thread-self/schedstat");
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(own), "not Linux with schedstat");
    assertThat(ProcStat.schedstat(own)[1]).isPositive();
  }
}
