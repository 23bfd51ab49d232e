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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * Issue 33's queue benchmark, for Idem's QUEUE.* and for seed 000's design on Redis (a sorted set
 * scored by due time, popped by a Lua script; a popped job is gone, so there is no ack and no
 * lease), in one run on the same jobs:
 *
 * <pre>
 * java -cp benchmarks.jar io.idem.bench.QueueBench --idem HOST:PORT --redis HOST:PORT \
 *     [--jobs 200000] [--connections 4] [--workers 4] [--batch 100] [--rate 2000] [--seconds 10]
 * </pre>
 *
 * <p>Three phases a side: enqueue {@code jobs} no-op jobs pipelined on {@code connections}
 * connections; drain them with {@code workers} workers, each reserving {@code batch} at a time and
 * acking each (Idem) or popping them (Redis); then, for {@code seconds}, a producer adds jobs due
 * 50 ms later at {@code rate} a second while the workers wait for them (Idem: a blocked reserve;
 * Redis: the seed's poll, every millisecond while empty), and the latency from each job's due time
 * to its delivery is recorded ({@code --seconds 0} skips it). scripts/bench-queue.sh starts the
 * servers and runs this and BullMQ; scripts/bench-percore.sh runs the first two phases per core.
 */
public final class QueueBench {

  private static final String KEY = "bench:queue";
  private static final long DUE_AFTER_MILLIS = 50;

  /** Seed 000's pop: the due jobs, at most ARGV[2], removed as they are taken. */
  private static final String POP =
      "local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2]) "
          + "if #ids > 0 then redis.call('ZREM', KEYS[1], unpack(ids)) end "
          + "return ids";

  private QueueBench() {}

  /** One side's commands. */
  private interface Side {
    String name();

    /** Writes the command that adds a job due at {@code due} (0: now). */
    void add(RespWriter out, String payload, long due) throws IOException;

    /** Takes up to {@code n} due jobs; their payloads. The connection is the worker's own. */
    List<String> take(RespConnection c, int n, boolean block) throws IOException;
  }

  private static final class Idem implements Side {
    @Override
    public String name() {
      return "Idem QUEUE.* (appendfsync everysec)";
    }

    @Override
    public void add(RespWriter out, String payload, long due) throws IOException {
      if (due == 0) {
        out.array(3).bulk("QUEUE.ADD").bulk(KEY).bulk(payload);
      } else {
        out.array(5).bulk("QUEUE.ADD").bulk(KEY).bulk(payload).bulk("AT").bulkDecimal(due);
      }
    }

    @Override
    public List<String> take(RespConnection c, int n, boolean block) throws IOException {
      Resp r =
          block
              ? c.call(
                  "QUEUE.RESERVE",
                  KEY,
                  "COUNT",
                  Integer.toString(n),
                  "LEASE",
                  "60s",
                  "BLOCK",
                  "200ms")
              : c.call("QUEUE.RESERVE", KEY, "COUNT", Integer.toString(n), "LEASE", "60s");
      if (!(r instanceof Resp.Array a)) {
        return List.of(); // nil: the block ran out
      }
      List<String> payloads = new ArrayList<>(a.elements().size());
      if (a.elements().isEmpty()) {
        return payloads;
      }
      RespWriter w = c.writer();
      w.array(2 + 2 * a.elements().size()).bulk("QUEUE.ACK").bulk(KEY); // the batch in one ack
      for (Resp job : a.elements()) {
        List<Resp> f = ((Resp.Array) job).elements();
        payloads.add(text(f.get(1)));
        w.bulk(((Resp.Bulk) f.get(0)).bytes()).bulkDecimal(((Resp.Int) f.get(2)).value());
      }
      w.flush();
      Resp ack = c.reader().read();
      if (!(ack instanceof Resp.Int acked) || acked.value() != payloads.size()) {
        throw new IOException("QUEUE.ACK replied " + Resp.describe(ack));
      }
      return payloads;
    }
  }

  private static final class SeedDesign implements Side {
    private String sha;

    @Override
    public String name() {
      return "seed 000: sorted set + Lua pop (Redis)";
    }

    @Override
    public void add(RespWriter out, String payload, long due) throws IOException {
      long score = due == 0 ? System.currentTimeMillis() : due;
      out.array(4).bulk("ZADD").bulk(KEY).bulkDecimal(score).bulk(payload);
    }

    @Override
    public List<String> take(RespConnection c, int n, boolean block) throws IOException {
      String script = sha == null ? (sha = text(c.call("SCRIPT", "LOAD", POP))) : sha;
      Resp r =
          c.call(
              "EVALSHA",
              script,
              "1",
              KEY,
              Long.toString(System.currentTimeMillis()),
              Integer.toString(n));
      List<String> payloads = new ArrayList<>();
      for (Resp m : ((Resp.Array) r).elements()) {
        payloads.add(text(m));
      }
      if (payloads.isEmpty() && block) {
        sleepMillis(1); // the seed polls: nothing wakes a worker when a job becomes due
      }
      return payloads;
    }
  }

  private static String text(Resp r) {
    return r instanceof Resp.Bulk b ? new String(b.bytes(), StandardCharsets.UTF_8) : r.toString();
  }

  private static void sleepMillis(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private record Result(double enqueuePerSec, double drainPerSec, Histogram latencyMicros) {}

  private static Result run(Side side, String address, Options o) throws Exception {
    String host = address.substring(0, address.lastIndexOf(':'));
    int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
    try (RespConnection admin = RespConnection.open(host, port, 30_000)) {
      admin.call("DEL", KEY);
    }
    // Enqueue.
    long start = System.nanoTime();
    List<Thread> threads = new ArrayList<>();
    ConcurrentLinkedQueue<Exception> failures = new ConcurrentLinkedQueue<>();
    for (int c = 0; c < o.connections; c++) {
      int lane = c;
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try (RespConnection conn = RespConnection.open(host, port, 60_000)) {
                      int mine = o.jobs / o.connections + (lane < o.jobs % o.connections ? 1 : 0);
                      int sent = 0;
                      while (sent < mine) {
                        int n = Math.min(1000, mine - sent);
                        for (int i = 0; i < n; i++) {
                          side.add(conn.writer(), "job-" + lane + "-" + (sent + i), 0);
                        }
                        conn.writer().flush();
                        for (int i = 0; i < n; i++) {
                          Resp r = conn.reader().read();
                          if (r instanceof Resp.Err e) {
                            throw new IOException(e.message());
                          }
                        }
                        sent += n;
                      }
                    } catch (Exception e) {
                      failures.add(e);
                    }
                  }));
    }
    join(threads, failures);
    double enqueueSeconds = (System.nanoTime() - start) / 1e9;
    // Drain.
    AtomicLong taken = new AtomicLong();
    start = System.nanoTime();
    threads.clear();
    for (int w = 0; w < o.workers; w++) {
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try (RespConnection conn = RespConnection.open(host, port, 60_000)) {
                      while (true) {
                        List<String> got = side.take(conn, o.batch, false);
                        if (got.isEmpty()) {
                          return;
                        }
                        taken.addAndGet(got.size());
                      }
                    } catch (Exception e) {
                      failures.add(e);
                    }
                  }));
    }
    join(threads, failures);
    double drainSeconds = (System.nanoTime() - start) / 1e9;
    if (taken.get() != o.jobs) {
      throw new IllegalStateException(side.name() + " drained " + taken.get() + " of " + o.jobs);
    }
    // Latency from due to delivered, under a steady trickle (none with --seconds 0).
    Histogram latency = new Histogram(60_000_000L, 3);
    if (o.seconds == 0) {
      return new Result(o.jobs / enqueueSeconds, o.jobs / drainSeconds, latency);
    }
    AtomicBoolean producing = new AtomicBoolean(true);
    AtomicLong produced = new AtomicLong();
    AtomicLong delivered = new AtomicLong();
    threads.clear();
    threads.add(
        Thread.ofPlatform()
            .start(
                () -> {
                  try (RespConnection conn = RespConnection.open(host, port, 60_000)) {
                    long t0 = System.nanoTime();
                    long end = t0 + o.seconds * 1_000_000_000L;
                    long i = 0;
                    while (System.nanoTime() < end) {
                      long due = System.currentTimeMillis() + DUE_AFTER_MILLIS;
                      side.add(conn.writer(), "due-" + due + "-" + i, due);
                      conn.writer().flush();
                      conn.reader().read();
                      i++;
                      long next = t0 + i * 1_000_000_000L / o.rate;
                      long wait = next - System.nanoTime();
                      if (wait > 0) {
                        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                      }
                    }
                    produced.set(i);
                  } catch (Exception e) {
                    failures.add(e);
                  } finally {
                    producing.set(false);
                  }
                }));
    for (int w = 0; w < o.workers; w++) {
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try (RespConnection conn = RespConnection.open(host, port, 60_000)) {
                      long giveUp = Long.MAX_VALUE;
                      while (producing.get() || delivered.get() < produced.get()) {
                        if (!producing.get() && giveUp == Long.MAX_VALUE) {
                          giveUp = System.nanoTime() + 10_000_000_000L;
                        }
                        if (System.nanoTime() > giveUp) {
                          throw new IOException(
                              side.name() + " delivered " + delivered + " of " + produced);
                        }
                        for (String p : side.take(conn, o.batch, true)) {
                          long due = Long.parseLong(p.substring(4, p.indexOf('-', 4)));
                          long late = System.currentTimeMillis() - due;
                          synchronized (latency) {
                            latency.recordValue(Math.max(0, late) * 1000);
                          }
                          delivered.incrementAndGet();
                        }
                      }
                    } catch (Exception e) {
                      failures.add(e);
                    }
                  }));
    }
    join(threads, failures);
    return new Result(o.jobs / enqueueSeconds, o.jobs / drainSeconds, latency);
  }

  private static void join(List<Thread> threads, ConcurrentLinkedQueue<Exception> failures)
      throws Exception {
    for (Thread t : threads) {
      t.join();
    }
    if (!failures.isEmpty()) {
      throw failures.peek();
    }
  }

  private static final class Options {
    String idem;
    String redis;
    int jobs = 200_000;
    int connections = 4;
    int workers = 4;
    int batch = 100;
    int rate = 2000;
    int seconds = 10;
  }

  public static void main(String[] args) throws Exception {
    Options o = new Options();
    for (int i = 0; i < args.length; i += 2) {
      String v = args[i + 1];
      switch (args[i]) {
        case "--idem" -> o.idem = v;
        case "--redis" -> o.redis = v;
        case "--jobs" -> o.jobs = Integer.parseInt(v);
        case "--connections" -> o.connections = Integer.parseInt(v);
        case "--workers" -> o.workers = Integer.parseInt(v);
        case "--batch" -> o.batch = Integer.parseInt(v);
        case "--rate" -> o.rate = Integer.parseInt(v);
        case "--seconds" -> o.seconds = Integer.parseInt(v);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    System.out.printf(
        Locale.ROOT,
        "| side | enqueue jobs/s | reserve+ack jobs/s | due→delivered p50 ms | p99 ms | max ms |%n"
            + "|---|---:|---:|---:|---:|---:|%n");
    List<Side> sides = new ArrayList<>();
    List<String> addresses = new ArrayList<>();
    if (o.idem != null) {
      sides.add(new Idem());
      addresses.add(o.idem);
    }
    if (o.redis != null) {
      sides.add(new SeedDesign());
      addresses.add(o.redis);
    }
    for (int s = 0; s < sides.size(); s++) {
      Result r = run(sides.get(s), addresses.get(s), o);
      System.out.printf(
          Locale.ROOT,
          "| %s | %,.0f | %,.0f | %.1f | %.1f | %.1f |%n",
          sides.get(s).name(),
          r.enqueuePerSec(),
          r.drainPerSec(),
          r.latencyMicros().getValueAtPercentile(50) / 1000.0,
          r.latencyMicros().getValueAtPercentile(99) / 1000.0,
          r.latencyMicros().getMaxValue() / 1000.0);
    }
  }
}
