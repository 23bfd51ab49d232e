package io.idem.bench;

import io.idem.bench.claims.Resp;
import io.idem.bench.claims.RespConnection;
import io.idem.bench.claims.RespWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.Histogram;

/**
 * Issue 46's queue benchmarks, Idem's side (scripts/bench-queue-features.sh runs BullMQ's beside
 * it, on the same jobs):
 *
 * <pre>
 * java -cp benchmarks.jar io.idem.bench.QueueFeaturesBench --idem HOST:PORT --idem-pid PID \
 *     [--limit 2000] [--limited-jobs 20000] [--heavy 20000] [--light 200] [--tenants 10]
 *     [--workers 4] [--batch 50]
 * </pre>
 *
 * <p>A rate-limited queue: {@code limited-jobs} no-op jobs queued under a limit of {@code limit} a
 * second (QUEUE.CONFIG RATE), drained by {@code workers} workers with blocked reserves; the rate
 * reached against the limit, the most jobs started in any 100 ms (a smooth limit starts a tenth of
 * the limit), and the CPU the server and the workers spent a thousand jobs (a limited queue that
 * polls spends it waiting).
 *
 * <p>A grouped queue: one tenant's {@code heavy} jobs are queued, the workers start, and once a
 * tenth of them are done every other tenant queues {@code light} jobs; the latency from a light
 * job's add to its start (fair groups serve it within a round, a FIFO queue after the heavy
 * backlog), how many heavy jobs still waited when the last light one started, and the jobs a second
 * over all of them.
 */
public final class QueueFeaturesBench {

  private QueueFeaturesBench() {}

  private static final class Options {
    String idem;
    long idemPid;
    int limit = 2000;
    int burst;
    int warm = 10_000;
    int limitedJobs = 20_000;
    int heavy = 20_000;
    int light = 200;
    int tenants = 10;
    int workers = 4;
    int batch = 50;
  }

  /** Adds jobs with QUEUE.MADD, a thousand a command: each {@code payload(i)}, with the options. */
  private static void madd(
      RespConnection c,
      String key,
      int n,
      java.util.function.IntFunction<String> payload,
      String... options)
      throws IOException {
    for (int from = 0; from < n; from += 1000) {
      int k = Math.min(1000, n - from);
      RespWriter w = c.writer();
      w.array(2 + options.length + 2 * k).bulk("QUEUE.MADD").bulk(key);
      for (String o : options) {
        w.bulk(o);
      }
      for (int i = 0; i < k; i++) {
        w.bulk("JOB").bulk(payload.apply(from + i));
      }
      w.flush();
      Resp r = c.reader().read();
      if (!(r instanceof Resp.Array a) || a.elements().size() != k) {
        throw new IOException("QUEUE.MADD replied " + Resp.describe(r));
      }
    }
  }

  /** Reserves up to {@code batch} (blocking a second), acks them in one command; the payloads. */
  private static List<String> take(RespConnection c, String key, int batch) throws IOException {
    Resp r =
        c.call(
            "QUEUE.RESERVE", key, "COUNT", Integer.toString(batch), "LEASE", "60s", "BLOCK", "1s");
    List<String> payloads = new ArrayList<>();
    if (!(r instanceof Resp.Array a) || a.elements().isEmpty()) {
      return payloads;
    }
    RespWriter w = c.writer();
    w.array(2 + 2 * a.elements().size()).bulk("QUEUE.ACK").bulk(key);
    for (Resp job : a.elements()) {
      List<Resp> f = ((Resp.Array) job).elements();
      payloads.add(new String(((Resp.Bulk) f.get(1)).bytes(), StandardCharsets.UTF_8));
      w.bulk(((Resp.Bulk) f.get(0)).bytes()).bulkDecimal(((Resp.Int) f.get(2)).value());
    }
    w.flush();
    Resp ack = c.reader().read();
    if (!(ack instanceof Resp.Int n) || n.value() != payloads.size()) {
      throw new IOException("QUEUE.ACK replied " + Resp.describe(ack));
    }
    return payloads;
  }

  /**
   * Runs {@code workers} threads of {@code body} on connections of their own; the first failure.
   */
  private static void workers(Options o, String host, int port, Body body) throws Exception {
    List<Thread> threads = new ArrayList<>();
    ConcurrentLinkedQueue<Exception> failures = new ConcurrentLinkedQueue<>();
    for (int i = 0; i < o.workers; i++) {
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try (RespConnection c = RespConnection.open(host, port, 60_000)) {
                      body.run(c);
                    } catch (Exception e) {
                      failures.add(e);
                    }
                  }));
    }
    for (Thread t : threads) {
      t.join();
    }
    if (!failures.isEmpty()) {
      throw failures.peek();
    }
  }

  private interface Body {
    void run(RespConnection c) throws Exception;
  }

  private static void limited(Options o, String host, int port) throws Exception {
    String key = "bench:limited";
    try (RespConnection c = RespConnection.open(host, port, 60_000)) {
      c.call("DEL", key);
      c.callOk(
          "QUEUE.CONFIG",
          key,
          "RATE",
          Integer.toString(o.limit),
          "1s",
          "BURST",
          Integer.toString(o.burst));
      madd(c, key, o.limitedJobs, i -> "job-" + i);
    }
    AtomicLong done = new AtomicLong();
    AtomicLongArray windows = new AtomicLongArray(100_000);
    long serverTicks = ProcStat.cpuTicks(o.idemPid);
    long selfMillis = ProcStat.selfCpuMillis();
    long start = System.nanoTime();
    workers(
        o,
        host,
        port,
        c -> {
          while (done.get() < o.limitedJobs) {
            int n = take(c, key, o.batch).size();
            int window = (int) ((System.nanoTime() - start) / 100_000_000L);
            windows.addAndGet(Math.min(window, windows.length() - 1), n);
            done.addAndGet(n);
          }
        });
    double seconds = (System.nanoTime() - start) / 1e9;
    double serverMillis = (ProcStat.cpuTicks(o.idemPid) - serverTicks) * ProcStat.TICK_MILLIS;
    double clientMillis = ProcStat.selfCpuMillis() - selfMillis;
    long fullest = 0;
    for (int i = 0; i < windows.length(); i++) {
      fullest = Math.max(fullest, windows.get(i));
    }
    System.out.printf(
        Locale.ROOT,
        "| Idem: QUEUE.CONFIG RATE %d 1s BURST %d; %d workers, blocked reserves of %d | %,.0f | %.2f"
            + " | %d | %.0f | %.0f |%n",
        o.limit,
        o.burst,
        o.workers,
        o.batch,
        o.limitedJobs / seconds,
        o.limitedJobs / seconds / o.limit,
        fullest,
        serverMillis * 1000 / o.limitedJobs,
        clientMillis * 1000 / o.limitedJobs);
  }

  private static void grouped(Options o, String host, int port) throws Exception {
    String key = "bench:grouped";
    try (RespConnection c = RespConnection.open(host, port, 60_000)) {
      c.call("DEL", key);
      madd(c, key, o.heavy, i -> "h", "GROUP", "tenant-0");
    }
    int lightJobs = o.light * (o.tenants - 1);
    AtomicLong heavyDone = new AtomicLong();
    AtomicLong lightDone = new AtomicLong();
    AtomicLong heavyLeftAtLastLight = new AtomicLong(-1);
    AtomicLong started = new AtomicLong();
    AtomicLong addedAt = new AtomicLong(Long.MAX_VALUE);
    AtomicLong lightInWindow = new AtomicLong();
    Histogram latency = new Histogram(3_600_000_000L, 3);
    long start = System.nanoTime();
    Thread adder =
        Thread.ofPlatform()
            .start(
                () -> {
                  try (RespConnection c = RespConnection.open(host, port, 60_000)) {
                    while (heavyDone.get() < o.heavy / 10) {
                      Thread.sleep(1);
                    }
                    // Every light tenant's jobs in one QUEUE.MADD: they all queue at once.
                    String payload = "l " + System.nanoTime();
                    RespWriter w = c.writer();
                    w.array(2 + 4 * lightJobs).bulk("QUEUE.MADD").bulk(key);
                    for (int t = 1; t < o.tenants; t++) {
                      for (int i = 0; i < o.light; i++) {
                        w.bulk("JOB").bulk(payload).bulk("GROUP").bulk("tenant-" + t);
                      }
                    }
                    w.flush();
                    Resp r = c.reader().read();
                    if (!(r instanceof Resp.Array a) || a.elements().size() != lightJobs) {
                      throw new IOException("QUEUE.MADD replied " + Resp.describe(r));
                    }
                    addedAt.set(started.get());
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                });
    workers(
        o,
        host,
        port,
        c -> {
          while (heavyDone.get() + lightDone.get() < o.heavy + lightJobs) {
            for (String p : take(c, key, o.batch)) {
              long n = started.incrementAndGet();
              if (p.startsWith("l ") && n > addedAt.get() && n <= addedAt.get() + WINDOW) {
                lightInWindow.incrementAndGet();
              }
              if (p.startsWith("l ")) {
                long added = Long.parseLong(p.substring(2));
                synchronized (latency) {
                  latency.recordValue((System.nanoTime() - added) / 1000);
                }
                if (lightDone.incrementAndGet() == lightJobs) {
                  heavyLeftAtLastLight.set(o.heavy - heavyDone.get());
                }
              } else {
                heavyDone.incrementAndGet();
              }
            }
          }
        });
    adder.join();
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf(
        Locale.ROOT,
        "| Idem: one queue, GROUP per tenant (fair groups) | %,.0f | %.2f | %.1f | %.1f | %.1f |"
            + " %,d |%n",
        (o.heavy + lightJobs) / seconds,
        (double) lightInWindow.get() / WINDOW,
        latency.getValueAtPercentile(50) / 1000.0,
        latency.getValueAtPercentile(99) / 1000.0,
        latency.getMaxValue() / 1000.0,
        heavyLeftAtLastLight.get());
  }

  /** Starts counted for the light tenants' share, once all of them have jobs. */
  private static final int WINDOW = 1000;

  public static void main(String[] args) throws Exception {
    Options o = new Options();
    for (int i = 0; i < args.length; i += 2) {
      String v = args[i + 1];
      switch (args[i]) {
        case "--idem" -> o.idem = v;
        case "--idem-pid" -> o.idemPid = Long.parseLong(v);
        case "--limit" -> o.limit = Integer.parseInt(v);
        case "--burst" -> o.burst = Integer.parseInt(v);
        case "--warm" -> o.warm = Integer.parseInt(v);
        case "--limited-jobs" -> o.limitedJobs = Integer.parseInt(v);
        case "--heavy" -> o.heavy = Integer.parseInt(v);
        case "--light" -> o.light = Integer.parseInt(v);
        case "--tenants" -> o.tenants = Integer.parseInt(v);
        case "--workers" -> o.workers = Integer.parseInt(v);
        case "--batch" -> o.batch = Integer.parseInt(v);
        default -> {} // the sides' other options (bench-lib's), not this benchmark's
      }
    }
    String host = o.idem.substring(0, o.idem.lastIndexOf(':'));
    int port = Integer.parseInt(o.idem.substring(o.idem.lastIndexOf(':') + 1));
    String which = System.getProperty("bench.part", "limited");
    if (o.warm > 0) {
      // The JIT's warm-up first, its figures dropped: a server runs warm.
      Options w = new Options();
      w.idemPid = o.idemPid;
      w.limit = 1_000_000;
      w.limitedJobs = o.warm;
      w.heavy = o.warm;
      w.light = o.warm / 100;
      w.workers = o.workers;
      w.batch = o.batch;
      java.io.PrintStream out = System.out;
      System.setOut(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
      try {
        limited(w, host, port);
        grouped(w, host, port);
      } finally {
        System.setOut(out);
      }
    }
    if (which.equals("limited")) {
      limited(o, host, port);
    } else {
      grouped(o, host, port);
    }
  }
}
