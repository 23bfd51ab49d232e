package io.idem.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time of a process and of its threads, from Linux's /proc, in clock ticks of 10 ms: what a
 * load run's server and client spend, which wall time alone hides once two processes share the
 * machine's cores.
 */
final class ProcStat {
  /** Milliseconds a clock tick (USER_HZ is 100 on Linux). */
  static final long TICK_MILLIS = 10;

  private ProcStat() {}

  /** utime + stime of a process, in clock ticks. */
  static long cpuTicks(long pid) throws IOException {
    long[] t = userSystemTicks(Files.readString(Path.of("/proc/" + pid + "/stat")));
    return t[0] + t[1];
  }

  /**
   * CPU time of this process in milliseconds, or -1 where the platform does not say (not /proc).
   */
  static long selfCpuMillis() {
    return ProcessHandle.current()
        .info()
        .totalCpuDuration()
        .map(java.time.Duration::toMillis)
        .orElse(-1L);
  }

  /** utime and stime from a /proc stat line (fields 14 and 15, counted after the name's ')'). */
  static long[] userSystemTicks(String stat) {
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return new long[] {Long.parseLong(f[11]), Long.parseLong(f[12])};
  }

  /**
   * User and system clock ticks of each thread name of a process (a pool's numbered threads summed
   * under one name ending in '#'), the kernel's part included.
   */
  static Map<String, long[]> threadTicks(long pid) throws IOException {
    Map<String, long[]> out = new TreeMap<>();
    try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        String stat;
        try {
          stat = Files.readString(task.resolve("stat"));
        } catch (NoSuchFileException gone) {
          continue; // the thread ended
        }
        String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        name = name.replaceAll("[0-9]+$", "#");
        long[] ticks = userSystemTicks(stat);
        long[] t = out.computeIfAbsent(name, k -> new long[2]);
        t[0] += ticks[0];
        t[1] += ticks[1];
      }
    }
    return out;
  }

  /**
   * " name user+sys;" in milliseconds for each thread name that spent at least {@code minMillis}
   * between two {@link #threadTicks} readings.
   */
  static String threadsSince(
      Map<String, long[]> before, Map<String, long[]> after, long minMillis) {
    StringBuilder s = new StringBuilder();
    after.forEach(
        (name, a) -> {
          long[] b = before.getOrDefault(name, new long[2]);
          long user = (a[0] - b[0]) * TICK_MILLIS;
          long sys = (a[1] - b[1]) * TICK_MILLIS;
          if (user + sys >= minMillis) {
            s.append(String.format(Locale.ROOT, " %s %d+%d;", name, user, sys));
          }
        });
    return s.toString();
  }
}
