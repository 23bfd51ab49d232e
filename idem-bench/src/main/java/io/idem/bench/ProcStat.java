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
public final class ProcStat {
  /** Milliseconds a clock tick (USER_HZ is 100 on Linux). */
  static final long TICK_MILLIS = 10;

  private ProcStat() {}

  /**
   * Waits until the process uses under 5 % of a core over a second (at most two minutes), so that a
   * latency run does not pay for the work a load left behind (RocksDB's compactions); returns the
   * seconds waited.
   */
  static double settle(long pid) throws IOException, InterruptedException {
    long t0 = System.nanoTime();
    long ticks = cpuTicks(pid);
    for (int i = 0; i < 120; i++) {
      Thread.sleep(1000);
      long now = cpuTicks(pid);
      if (now - ticks < 5) { // clock ticks are 1/100 s
        break;
      }
      ticks = now;
    }
    return (System.nanoTime() - t0) / 1e9;
  }

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
   * For each thread name of a process (a pool's numbered threads summed under one name ending in
   * '#'): user and system clock ticks, the kernel's part included, then the nanoseconds its threads
   * waited runnable for a core and the times they were put on one (from schedstat; 0 and 0 where
   * the kernel does not keep it). The wait is what a latency tail is made of once more threads are
   * runnable than there are cores.
   */
  static Map<String, long[]> threadTicks(long pid) throws IOException {
    Map<String, long[]> out = new TreeMap<>();
    try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        String stat;
        long[] sched;
        try {
          stat = Files.readString(task.resolve("stat"));
          sched = schedstat(task.resolve("schedstat"));
        } catch (NoSuchFileException gone) {
          continue; // the thread ended
        }
        String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        name = name.replaceAll("[0-9]+$", "#");
        long[] ticks = userSystemTicks(stat);
        long[] t = out.computeIfAbsent(name, k -> new long[4]);
        t[0] += ticks[0];
        t[1] += ticks[1];
        t[2] += sched[0];
        t[3] += sched[1];
      }
    }
    return out;
  }

  /** Run-queue wait in nanoseconds and times run, fields 2 and 3 of a schedstat line. */
  public static long[] schedstat(Path file) throws IOException {
    if (!Files.exists(file)) {
      return new long[2];
    }
    String[] f = Files.readString(file).trim().split(" ");
    return f.length < 3 ? new long[2] : new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])};
  }

  /**
   * " name user+sys wait W/N;" for each thread name that spent at least {@code minMillis} between
   * two {@link #threadTicks} readings: milliseconds of CPU, then of waiting runnable for a core
   * over N times run.
   */
  static String threadsSince(
      Map<String, long[]> before, Map<String, long[]> after, long minMillis) {
    StringBuilder s = new StringBuilder();
    after.forEach(
        (name, a) -> {
          long[] b = before.getOrDefault(name, new long[4]);
          long user = (a[0] - b[0]) * TICK_MILLIS;
          long sys = (a[1] - b[1]) * TICK_MILLIS;
          if (user + sys >= minMillis) {
            s.append(
                String.format(
                    Locale.ROOT,
                    " %s %d+%d wait %d/%d;",
                    name,
                    user,
                    sys,
                    (a[2] - b[2]) / 1_000_000,
                    a[3] - b[3]));
          }
        });
    return s.toString();
  }
}
