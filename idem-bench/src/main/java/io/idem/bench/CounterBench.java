package io.idem.bench;

import io.idem.bench.ClaimBench.HostPort;
import io.idem.bench.ClaimBench.UsageException;
import io.idem.bench.claims.Memory;
import io.idem.bench.claims.Pipeline;
import io.idem.bench.claims.Resp;
import io.idem.bench.claims.RespConnection;
import io.idem.bench.claims.RespWriter;
import io.idem.bench.counters.Events;
import io.idem.bench.counters.RateRun;
import io.idem.bench.counters.Side;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * Issue 5's counter benchmark, both sides in one run: Smyte's first design on Redis (a key per
 * feature and time bucket, INCRBY + EXPIRE, MGET of 24 hour keys for a day) against Idem's counter
 * table (COUNTER.INCRBY of an event's features, COUNTER.QUERY of a day). Both keep minute buckets
 * for 2 hours and hour buckets for 8 days, load the same day of events, and answer the same
 * 30-feature day queries at a fixed rate. Prints a Markdown table.
 */
public final class CounterBench {

  private static final Set<String> KNOWN =
      Set.of(
          "--redis",
          "--redis-pid",
          "--idem",
          "--idem-pid",
          "--idem-dir",
          "--events",
          "--population",
          "--rate",
          "--seconds",
          "--warmup",
          "--connections",
          "--seed",
          "--in-flight");

  static final String USAGE =
      """
      usage: CounterBench [--redis HOST:PORT --redis-pid PID] [--idem HOST:PORT --idem-pid PID
                          --idem-dir DIR] [--events N] [--population N] [--rate Q] [--seconds S]
                          [--warmup S] [--connections C] [--seed N] [--in-flight N]
        --events       events in the day loaded (default 400000), each with 30 features
        --population   values per feature type, drawn with weight ~1/rank (default 1000000)
        --rate         queries a second in the latency run (default 20000)
        --seconds      length of the measured latency run (default 20), after a second whose
                       latencies are not recorded: the CPU readings taken as it begins cost
                       milliseconds of a core, which the queries then would pay
        --warmup       seconds of the same queries before it, on the same connections (default
                       30): long enough for the JIT's one C2 thread, which the queries starve, to
                       compile their path, and for the rows they cache to be tenured (ParallelGC
                       copies a live object at each young collection, up to 15 of them, a second
                       or so apart here, before it moves it to the old generation)
        --connections  connections per side for the load and the latency run (default 2)
      """;

  /** Seconds between the CPU readings that begin the measured part and its first latency. */
  static final double SETTLE_SECONDS = 1;

  private CounterBench() {}

  public static void main(String[] args) {
    Flags.main("CounterBench", USAGE, KNOWN, args, CounterBench::run);
  }

  private record Target(Side side, HostPort at, long pid, @Nullable Path dir) {}

  private static void run(Map<String, String> v) throws IOException, InterruptedException {
    int events = (int) number(v, "--events", 400_000, 1000, 20_000_000);
    int population = (int) number(v, "--population", 1_000_000, 10, 1_000_000_000);
    double rate = number(v, "--rate", 20_000, 1, 1_000_000);
    double seconds = number(v, "--seconds", 20, 1, 3600);
    double warmup = number(v, "--warmup", 30, 0, 3600);
    int connections = (int) number(v, "--connections", 2, 1, 64);
    long seed = number(v, "--seed", 42, 0, Long.MAX_VALUE);
    int inFlight = (int) number(v, "--in-flight", 20_000, 1, 1_000_000);
    List<Target> targets = new ArrayList<>();
    if (v.containsKey("--redis")) {
      targets.add(
          new Target(
              new Side.Redis(),
              HostPort.parse("--redis", v.get("--redis")),
              number(v, "--redis-pid", 0, 1, Long.MAX_VALUE),
              null));
    }
    if (v.containsKey("--idem")) {
      targets.add(
          new Target(
              new Side.Idem("features"),
              HostPort.parse("--idem", v.get("--idem")),
              number(v, "--idem-pid", 0, 1, Long.MAX_VALUE),
              Path.of(v.getOrDefault("--idem-dir", "."))));
    }
    if (targets.isEmpty()) {
      throw new UsageException("give --redis HOST:PORT, --idem HOST:PORT or both");
    }

    long now = System.currentTimeMillis();
    Events workload = new Events(events, population, now, seed);
    long counters = distinctCounters(workload, now);
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"", "events", "feature increments/s", "commands", "seconds"});
    List<Map<String, String>> results = new ArrayList<>();
    for (Target t : targets) {
      results.add(measure(t, workload, now, counters, rate, seconds, connections, inFlight));
    }
    long end = System.currentTimeMillis();
    if (targets.size() == 2) {
      crossCheck(targets, workload, end);
    }
    // The latency runs last, each with the other side idle and its own background work done
    // (RocksDB compacts what the load wrote for a while after it; Redis has nothing to do).
    for (int i = 0; i < targets.size(); i++) {
      for (Target t : targets) {
        results.get(i).put("settle", fmt(ProcStat.settle(t.pid())));
      }
      latency(targets.get(i), workload, end, rate, warmup, seconds, connections, results.get(i));
    }
    print(targets, results, workload, counters, rate, connections);
  }

  /** Distinct (feature, bucket) counters the day makes, over both resolutions: what each keeps. */
  private static long distinctCounters(Events w, long now) {
    io.idem.bench.counters.Counting set = new io.idem.bench.counters.Counting();
    String[] names = new String[Events.FEATURES];
    for (int i = 0; i < w.events(); i++) {
      set.add(w, i, now, names);
    }
    return set.size();
  }

  private static Map<String, String> measure(
      Target t,
      Events w,
      long now,
      long counters,
      double rate,
      double seconds,
      int connections,
      int inFlight)
      throws IOException {
    Map<String, String> r = new LinkedHashMap<>();
    List<RespConnection> conns = new ArrayList<>();
    for (int c = 0; c < connections; c++) {
      conns.add(RespConnection.open(t.at().host(), t.at().port(), 60_000));
    }
    try {
      RespConnection c0 = conns.getFirst();
      if (t.side() instanceof Side.Idem idem) {
        c0.call("DEL", idem.table());
        c0.callOk("COUNTER.RESERVE", idem.table());
      } else {
        c0.callOk("FLUSHALL");
      }
      long memBefore = memory(t, c0);
      long rssBefore = Memory.rssBytes(t.pid());
      AtomicLong commands = new AtomicLong();
      List<Pipeline.Job> jobs = new ArrayList<>();
      for (int c = 0; c < connections; c++) {
        jobs.add(new LoadJob(t.side(), w, now, c, connections, commands));
      }
      long t0 = System.nanoTime();
      Pipeline.run(conns, jobs, inFlight);
      double secs = (System.nanoTime() - t0) / 1e9;
      if (t.side() instanceof Side.Idem) {
        c0.call("PING"); // every reply came after its write was in the log
      }
      r.put("load seconds", fmt(secs));
      r.put("commands", Long.toString(commands.get()));
      r.put("increments/s", fmt((double) w.events() * Events.FEATURES / secs));
      r.put("mem", Long.toString(memory(t, c0) - memBefore));
      r.put("rss", Long.toString(Memory.rssBytes(t.pid()) - rssBefore));
      if (t.dir() != null) {
        r.put("disk", Long.toString(Memory.directoryBytes(t.dir())));
      }
      if (t.side() instanceof Side.Redis) {
        Resp size = c0.call("DBSIZE");
        r.put("keys", size instanceof Resp.Int i ? Long.toString(i.value()) : "?");
      }
    } finally {
      for (RespConnection c : conns) {
        c.close();
      }
    }
    return r;
  }

  /** Redis's used_memory, or for Idem the process's resident memory. */
  private static long memory(Target t, RespConnection c) throws IOException {
    if (t.side() instanceof Side.Redis) {
      return Memory.infoField(c.call("INFO", "memory"), "used_memory").orElse(-1);
    }
    return Memory.rssBytes(t.pid());
  }

  /** One connection's share of the load: events c, c + n, c + 2n, … */
  private static final class LoadJob implements Pipeline.Job {
    private final Side side;
    private final Events w;
    private final long now;
    private final int stride;
    private final AtomicLong commands;
    private final String[] names = new String[Events.FEATURES];
    private int next;

    /** Commands of the current event written but not yet counted: Pipeline counts one a call. */
    private int owed;

    LoadJob(Side side, Events w, long now, int first, int stride, AtomicLong commands) {
      this.side = side;
      this.w = w;
      this.now = now;
      this.next = first;
      this.stride = stride;
      this.commands = commands;
    }

    @Override
    public boolean writeNext(RespWriter out) throws IOException {
      if (owed > 0) {
        owed--;
        return true;
      }
      if (next >= w.events()) {
        return false;
      }
      int n = side.writeEvent(w, next, now, names, out);
      next += stride;
      commands.addAndGet(n);
      owed = n - 1;
      return true;
    }

    @Override
    public void onReply(Resp reply) throws IOException {
      side.checkLoadReply(reply);
    }
  }

  private static void crossCheck(List<Target> targets, Events w, long end) throws IOException {
    String[] names = new String[Events.FEATURES];
    try (RespConnection redis =
            RespConnection.open(targets.get(0).at().host(), targets.get(0).at().port(), 60_000);
        RespConnection idem =
            RespConnection.open(targets.get(1).at().host(), targets.get(1).at().port(), 60_000)) {
      for (int j = 0; j < 200; j++) {
        w.queryFeatures(j, names);
        long[] a = sums(redis, targets.get(0).side(), names, end);
        long[] b = sums(idem, targets.get(1).side(), names, end);
        if (!java.util.Arrays.equals(a, b)) {
          throw new IOException(
              "query "
                  + j
                  + ": Redis sums "
                  + java.util.Arrays.toString(a)
                  + ", Idem "
                  + java.util.Arrays.toString(b));
        }
      }
    }
    System.err.println("CounterBench: 200 day queries give the same sums on both sides");
  }

  private static long[] sums(RespConnection c, Side side, String[] names, long end)
      throws IOException {
    c.writer().raw(side.query(names, end));
    c.writer().flush();
    Resp reply = c.read();
    long[] sums = new long[names.length];
    List<Resp> leaves = new ArrayList<>();
    flatten(reply, leaves);
    for (int i = 0; i < leaves.size(); i++) {
      long x =
          switch (leaves.get(i)) {
            case Resp.Int n -> n.value();
            case Resp.Bulk b ->
                Long.parseLong(new String(b.bytes(), java.nio.charset.StandardCharsets.US_ASCII));
            case Resp.Nil n -> 0;
            default -> throw new IOException("reply " + Resp.describe(leaves.get(i)));
          };
      sums[i / side.leavesPerName()] += x;
    }
    return sums;
  }

  private static void flatten(Resp r, List<Resp> out) {
    if (r instanceof Resp.Array a) {
      for (Resp e : a.elements()) {
        flatten(e, out);
      }
    } else {
      out.add(r);
    }
  }

  private static void latency(
      Target t,
      Events w,
      long end,
      double rate,
      double warmup,
      double seconds,
      int connections,
      Map<String, String> r)
      throws IOException, InterruptedException {
    List<byte[]> queries = new ArrayList<>();
    String[] names = new String[Events.FEATURES];
    for (int j = 0; j < 4096; j++) {
      w.queryFeatures(j, names);
      queries.add(t.side().query(names, end));
    }
    int per = t.side().leavesPerName();
    long self = ProcessHandle.current().pid();
    // Readings when the measured part begins, after the warm-up on the same connections.
    long[] ticks = new long[2];
    List<Map<String, long[]>> before = new ArrayList<>();
    RateRun.Result res =
        RateRun.run(
            t.at().host(),
            t.at().port(),
            queries,
            Events.FEATURES,
            per,
            rate,
            warmup,
            SETTLE_SECONDS,
            seconds,
            connections,
            () -> {
              try {
                ticks[0] = ProcStat.cpuTicks(t.pid());
                ticks[1] = ProcStat.cpuTicks(self);
                before.add(ProcStat.threadTicks(t.pid()));
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            },
            RateRun.MAX_IN_FLIGHT);
    long answered = Math.max(1, res.queries()); // per query figures of a side that answered none
    // The server's CPU time a query, clock ticks of 10 ms over the run: what its capacity is, which
    // latency alone hides once queues build.
    long cpuMicros = (ProcStat.cpuTicks(t.pid()) - ticks[0]) * 10_000;
    // The client's too: it shares the machine's cores with the server.
    long clientMicros = (ProcStat.cpuTicks(self) - ticks[1]) * 10_000;
    StringBuilder byThread =
        new StringBuilder(t.side().label() + ": CPU by thread, ms user+sys:")
            .append(ProcStat.threadsSince(before.getFirst(), ProcStat.threadTicks(t.pid()), 100));
    byThread.append(
        String.format(
            Locale.ROOT,
            " client CPU %.1f µs/query (sending threads %.1f+%.1f, reading %.1f+%.1f user+sys;"
                + " waited for a core %d ms over %d runs sending, %d ms over %d reading)",
            (double) clientMicros / answered,
            res.writersCpu()[0] / 1e3 / answered,
            res.writersCpu()[1] / 1e3 / answered,
            res.readersCpu()[0] / 1e3 / answered,
            res.readersCpu()[1] / 1e3 / answered,
            res.writersCpu()[2] / 1_000_000,
            res.writersCpu()[3],
            res.readersCpu()[2] / 1_000_000,
            res.readersCpu()[3]));
    System.err.println(byThread);
    Histogram h = res.fromSchedule();
    r.put("achieved", fmt(res.queries() / res.seconds()));
    r.put("cpu", String.format(Locale.ROOT, "%.1f", (double) cpuMicros / answered));
    r.put("p50", ms(h.getValueAtPercentile(50)));
    r.put("p99", ms(h.getValueAtPercentile(99)));
    r.put("p999", ms(h.getValueAtPercentile(99.9)));
    r.put("max", ms(h.getMaxValue()));
    r.put("p99 send", ms(res.fromSend().getValueAtPercentile(99)));
  }

  private static void print(
      List<Target> targets,
      List<Map<String, String>> results,
      Events w,
      long counters,
      double rate,
      int connections) {
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "%d events over 24 h, 30 features each (%d values a type, ~1/rank), %d counters kept"
                + " (feature x bucket: minutes for 2 h, hours for 8 d); %d connections; %s"
                + " cores%n%n",
            w.events(),
            w.population(),
            counters,
            connections,
            Runtime.getRuntime().availableProcessors()));
    b.append(
        "| side | load s | feature increments/s | commands | memory | bytes/counter | disk |"
            + " 30-feature day query at "
            + fmt(rate)
            + "/s: achieved | server CPU µs/query | p50 ms | p99 ms | p99.9 ms | max ms | p99 from"
            + " send ms |\n");
    b.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < targets.size(); i++) {
      Map<String, String> r = results.get(i);
      boolean redis = targets.get(i).side() instanceof Side.Redis;
      long mem = Long.parseLong(r.get("mem"));
      String disk = r.getOrDefault("disk", "–");
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s %s | %.1f | %s | %s | %s | %s | %s | %s | %s | %s |%n",
              targets.get(i).side().label(),
              r.get("load seconds"),
              r.get("increments/s"),
              r.get("commands"),
              mib(mem),
              redis ? "used_memory" : "RSS growth",
              (double) mem / counters,
              disk.equals("–") ? disk : mib(Long.parseLong(disk)),
              r.get("achieved"),
              r.get("cpu"),
              r.get("p50"),
              r.get("p99"),
              r.get("p999"),
              r.get("max"),
              r.get("p99 send")));
    }
    System.out.print(b);
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
  }

  private static String ms(long micros) {
    return String.format(Locale.ROOT, "%.3f", micros / 1000.0);
  }

  private static String fmt(double x) {
    return String.format(Locale.ROOT, "%,.0f", x);
  }

  private static long number(
      Map<String, String> v, String name, long fallback, long min, long max) {
    String s = v.get(name);
    return s == null ? fallback : ClaimBench.parseLong(name, s, min, max);
  }
}
