package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills server processes with SIGKILL at random moments while every family's writes run on
 * connections of their own ({@link CrashWorkload}: filters, sketches, merges, LOADCHUNK, dedup
 * tables in each mode with slice drops, counter and distinct tables, a job queue), restarts them on
 * the same data, and checks each workload's model: every acknowledged write is there and none
 * applied twice. The keyspace workload (DEL, RENAME, EXPIRE, expiry, FLUSHALL) runs on a second
 * server, since FLUSHALL takes every key. Snapshots run every second, so kills also land during and
 * after snapshots and log truncation. After the last cycle a graceful stop and a restart check all
 * again.
 *
 * <p>Cycles: {@code -Didem.crash.cycles=N} (default 3; scripts/crash-test.sh runs a hundred).
 */
class CrashTest {

  @TempDir Path tmp;

  private static final String[] SETTINGS = {"snapshot-interval", "1", "snapshot-log-bytes", "1mb"};

  @Test
  void everyAcknowledgedWriteSurvivesKillNine() throws Exception {
    int cycles = Integer.getInteger("idem.crash.cycles", 3);
    Random random = new Random(20261127);
    List<CrashWorkload> types = new ArrayList<>();
    types.addAll(FilterWorkloads.all());
    types.addAll(SketchWorkloads.all());
    types.addAll(DedupWorkloads.all());
    types.add(new QueueWorkload());
    types.add(new QueueLeaseWorkload());
    types.add(new QueueControlWorkload());
    types.add(new QueueGroupsWorkload());
    types.add(new QueueScheduleWorkload());
    types.add(new QueueResultWorkload());
    types.add(new QueueFlowWorkload());
    types.add(new IdemKeyWorkload());
    types.add(new ThrottleWorkload());
    List<CrashWorkload> keyspace = List.of(new KeyspaceWorkload());
    Path typesDir = tmp.resolve("types");
    Path keyspaceDir = tmp.resolve("keyspace");
    for (int cycle = 0; cycle < cycles; cycle++) {
      try (ServerProcess a = ServerProcess.start(typesDir, SETTINGS);
          ServerProcess b = ServerProcess.start(keyspaceDir, SETTINGS)) {
        prepare(a, types, cycle, random);
        prepare(b, keyspace, cycle, random);
        long before = acknowledged(types) + acknowledged(keyspace);
        AtomicBoolean killed = new AtomicBoolean();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (CrashWorkload w : types) {
          threads.add(runUntilKilled(a, w, cycle, killed, failures));
        }
        for (CrashWorkload w : keyspace) {
          threads.add(runUntilKilled(b, w, cycle, killed, failures));
        }
        Thread.sleep(500 + random.nextInt(3000));
        killed.set(true);
        a.kill();
        b.kill();
        for (Thread t : threads) {
          t.join();
        }
        if (!failures.isEmpty()) {
          Throwable first = failures.remove();
          failures.forEach(first::addSuppressed);
          // The cause's message goes into ours: CI's log keeps only the report's last lines.
          throw new AssertionError("cycle " + cycle + " failed: " + describe(first), first);
        }
        assertThat(acknowledged(types) + acknowledged(keyspace))
            .as("cycle %d acknowledged something before the kill", cycle)
            .isGreaterThan(before);
      }
    }
    try (ServerProcess a = ServerProcess.start(typesDir, SETTINGS);
        ServerProcess b = ServerProcess.start(keyspaceDir, SETTINGS)) {
      prepare(a, types, cycles, random);
      prepare(b, keyspace, cycles, random);
      // SIGTERM: the JVM runs the shutdown hook (graceful stop), then exits with 128 + 15.
      assertThat(a.terminate()).isEqualTo(143);
      assertThat(b.terminate()).isEqualTo(143);
    }
    try (ServerProcess a = ServerProcess.start(typesDir, SETTINGS);
        ServerProcess b = ServerProcess.start(keyspaceDir, SETTINGS)) {
      prepare(a, types, cycles + 1, random);
      prepare(b, keyspace, cycles + 1, random);
    }
    for (CrashWorkload w : types) {
      System.out.printf("crash test: %-60s %,12d acknowledged%n", w.name, w.acknowledged);
    }
    for (CrashWorkload w : keyspace) {
      System.out.printf("crash test: %-60s %,12d acknowledged%n", w.name, w.acknowledged);
    }
  }

  /** Creates the workloads' keys on the first start; checks them on every later one. */
  private static void prepare(
      ServerProcess server, List<CrashWorkload> workloads, int cycle, Random random)
      throws IOException {
    try (RespClient c = new RespClient(server.port())) {
      for (CrashWorkload w : workloads) {
        if (cycle == 0) {
          w.create(c);
        } else {
          w.verify(c, random);
        }
        w.cycle = cycle;
      }
    }
  }

  private static String describe(Throwable t) {
    StringBuilder b = new StringBuilder(String.valueOf(t.getMessage()));
    for (Throwable c = t.getCause(); c != null; c = c.getCause()) {
      b.append(" <- ").append(c);
    }
    return b.toString();
  }

  private static long acknowledged(List<CrashWorkload> workloads) {
    return workloads.stream().mapToLong(w -> w.acknowledged).sum();
  }

  /** A thread running the workload's batches on its own connection until the kill. */
  private static Thread runUntilKilled(
      ServerProcess server,
      CrashWorkload w,
      int cycle,
      AtomicBoolean killed,
      ConcurrentLinkedQueue<Throwable> failures) {
    return Thread.ofPlatform()
        .name("crash-" + w.name)
        .start(
            () -> {
              Random random = new Random(cycle * 31L + w.name.hashCode());
              w.port = server.port();
              try (RespClient c = new RespClient(server.port())) {
                while (true) {
                  w.batch(c, random);
                }
              } catch (IOException e) {
                if (!killed.get()) {
                  failures.add(new AssertionError(w.name + ": the server failed on its own", e));
                }
              } catch (Throwable t) {
                failures.add(new AssertionError(w.name + " in cycle " + cycle, t));
              }
            });
  }
}
