package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

/**
 * The crash test's schedule: a queue that runs a job every 200 ms on the multiples of 200 ms
 * (ALIGN), every missed run caught up (MISSED ALL), fired by the server's background while this
 * workload reserves and acks the runs. After each restart: the runs so far are exactly the
 * multiples from the first to the last fired, with no gap (none lost to a kill, none skipped when
 * the server came back) and none twice (no run leased twice, and the schedule's count equals the
 * runs).
 */
final class QueueScheduleWorkload extends CrashWorkload {

  private static final String KEY = "scheduled";
  private static final long EVERY = 200;

  /** Run times leased to this worker (acknowledged reserves). */
  private final TreeSet<Long> seen = new TreeSet<>();

  QueueScheduleWorkload() {
    super("QUEUE.SCHEDULE EVERY 200ms ALIGN MISSED ALL, fired in the background");
  }

  @Override
  void create(RespClient c) throws IOException {
    Object r =
        c.call(
            "QUEUE.SCHEDULE",
            KEY,
            "tick",
            "EVERY",
            "200ms",
            "ALIGN",
            "run",
            "MISSED",
            "ALL",
            "MAX",
            "1000",
            "UNIQUE",
            "1d");
    assertThat(RespClient.text(r)).isEqualTo("new");
  }

  private static long time(Object id) {
    String s = RespClient.text(id);
    assertThat(s).startsWith("tick:");
    return Long.parseLong(s.substring(5));
  }

  @Override
  void batch(RespClient c, Random random) throws IOException {
    try {
      Thread.sleep(random.nextInt(50));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
    List<?> jobs = list(c.call("QUEUE.RESERVE", KEY, "COUNT", "1000", "LEASE", "1h"), "RESERVE");
    List<Object[]> acks = new ArrayList<>();
    for (Object job : jobs) {
      List<?> f = (List<?>) job;
      long t = time(f.get(0));
      assertThat(t % EVERY).as("run %d on a multiple of 200 ms", t).isZero();
      assertThat(seen.add(t)).as("run %d leased twice", t).isTrue();
      acks.add(new Object[] {f.get(0), f.get(2)});
      acknowledged++;
    }
    for (Object[] a : acks) {
      c.send("QUEUE.ACK", KEY, RespClient.text(a[0]), Long.toString((Long) a[1]));
    }
    c.flush();
    for (int i = 0; i < acks.size(); i++) {
      assertThat(c.read()).isEqualTo(1L);
      acknowledged++;
    }
  }

  @Override
  void verify(RespClient c, Random random) throws IOException {
    List<?> tick = (List<?>) list(c.call("QUEUE.SCHEDULES", KEY), "QUEUE.SCHEDULES").get(0);
    long runs = (Long) tick.get(11);
    if (runs == 0) {
      return; // killed before its first run
    }
    long lastRun = (Long) tick.get(13);
    // Take every run fired so far, those missed while down included (fired by now).
    for (int round = 0; round < 1000 && (seen.isEmpty() || seen.last() < lastRun); round++) {
      batch(c, random);
    }
    // Runs leased by a reserve whose reply a kill cut off are leased to no one here: still there.
    for (long t = seen.first() - EVERY; isLeased(c, t); t -= EVERY) {
      seen.add(t);
    }
    for (long t = seen.first(); t < lastRun; t += EVERY) {
      if (!seen.contains(t)) {
        assertThat(isLeased(c, t)).as("run %d, never seen, is leased", t).isTrue();
        seen.add(t);
      }
    }
    long first = seen.first();
    assertThat(runs)
        .as("the schedule's count, against the multiples from %d to %d", first, lastRun)
        .isEqualTo((lastRun - first) / EVERY + 1);
  }

  private static boolean isLeased(RespClient c, long t) throws IOException {
    Object job = c.call("QUEUE.JOB", KEY, "tick:" + t);
    return job instanceof List<?> f && RespClient.text(f.get(1)).equals("leased");
  }
}
