package io.idem.bench;

import io.idem.bench.ClaimBench.HostPort;
import io.idem.bench.ClaimBench.UsageException;
import io.idem.bench.claims.Memory;
import io.idem.bench.claims.Resp;
import io.idem.bench.claims.RespConnection;
import io.idem.bench.idemkeys.Design;
import io.idem.bench.idemkeys.Mix;
import io.idem.bench.idemkeys.Run;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Issue 45's benchmark, both sides in one run: idempotency keys on Idem's IDEMKEY.* against what
 * people build on Redis (a SET NX in-progress marker, a result key, retries that poll). Three parts
 * a side: a month's keys stored (their memory and disk a key, and the rate of first requests
 * alone); a fixed rate of first requests and retries (latency of each, from the schedule); the same
 * mix as fast as the side takes it (requests a second). Prints a Markdown table.
 */
public final class IdemKeyBench {

  private static final Set<String> KNOWN =
      Set.of(
          "--redis",
          "--redis-pid",
          "--idem",
          "--idem-pid",
          "--idem-dir",
          "--stored",
          "--rate",
          "--seconds",
          "--warmup",
          "--retries",
          "--work-ms",
          "--retry-seconds",
          "--result-bytes",
          "--poll-ms",
          "--connections",
          "--saturation",
          "--saturation-mix-rate",
          "--in-flight",
          "--seed");

  static final String USAGE =
      """
      usage: IdemKeyBench [--redis HOST:PORT --redis-pid PID] [--idem HOST:PORT --idem-pid PID
                          --idem-dir DIR] [options]
        --stored         keys stored first, first requests only, for memory a key (1000000)
        --rate           requests a second in the latency run (10000)
        --seconds        its measured seconds (20), after --warmup seconds (10) not counted
        --retries        share of requests that retry an earlier one's key (0.25): half within
                         the work's time after it (it may still run), half up to --retry-seconds
                         (5) after it
        --work-ms        a first request's work, between its begin and its completion (20)
        --result-bytes   a result's size (256)
        --poll-ms        Redis's retries poll a key in progress this often (20)
        --connections    connections a side shares among requests (8); Idem's waiting begins
                         take connections of their own
        --saturation     requests in the run as fast as the side takes them (600000), at most
                         --in-flight (2000) at once; its retries' lags are set for
                         --saturation-mix-rate (50000) requests a second
        --seed           the requests' keys and retries (42)
      """;

  private IdemKeyBench() {}

  public static void main(String[] args) {
    Flags.main("IdemKeyBench", USAGE, KNOWN, args, IdemKeyBench::run);
  }

  private record Target(String name, Design design, HostPort at, long pid, @Nullable Path dir) {}

  private record Settings(
      int stored,
      double rate,
      double seconds,
      double warmup,
      double retries,
      double workMillis,
      double retrySeconds,
      int resultBytes,
      int connections,
      int saturation,
      double saturationMixRate,
      int inFlight,
      long seed) {}

  private static final String TABLE = "bench:idemkeys";
  private static final long LEASE_MILLIS = 30_000;
  private static final long RETENTION_SECONDS = 30L * 24 * 3600;

  private static void run(Map<String, String> v) throws IOException, InterruptedException {
    Settings s =
        new Settings(
            (int) Flags.number(v, "--stored", 1_000_000, 1000, 50_000_000),
            Flags.number(v, "--rate", 10_000, 1, 1_000_000),
            Flags.number(v, "--seconds", 20, 1, 3600),
            Flags.number(v, "--warmup", 10, 0, 3600),
            Flags.number(v, "--retries", 0.25, 0, 0.9),
            Flags.number(v, "--work-ms", 20, 0, 10_000),
            Flags.number(v, "--retry-seconds", 5, 0.001, 3600),
            (int) Flags.number(v, "--result-bytes", 256, 2, 65_536),
            (int) Flags.number(v, "--connections", 8, 1, 256),
            (int) Flags.number(v, "--saturation", 600_000, 1000, 50_000_000),
            Flags.number(v, "--saturation-mix-rate", 50_000, 1, 10_000_000),
            (int) Flags.number(v, "--in-flight", 2000, 1, 100_000),
            (long) Flags.number(v, "--seed", 42, 0, Long.MAX_VALUE));
    if (s.retrySeconds() * 1000 <= s.workMillis()) {
      throw new UsageException("--retry-seconds must be longer than --work-ms");
    }
    double pollMillis = Flags.number(v, "--poll-ms", 20, 0.1, 10_000);
    List<Target> targets = new ArrayList<>(); // in the order given: who goes first alternates
    for (String side : v.keySet()) {
      if (side.equals("--redis")) {
        targets.add(
            new Target(
                "Redis",
                new Design.Redis(LEASE_MILLIS, RETENTION_SECONDS, pollMillis),
                HostPort.parse("--redis", v.get("--redis")),
                (long) Flags.number(v, "--redis-pid", 0, 1, Long.MAX_VALUE),
                null));
      } else if (side.equals("--idem")) {
        targets.add(
            new Target(
                "Idem",
                new Design.Idem(TABLE, LEASE_MILLIS),
                HostPort.parse("--idem", v.get("--idem")),
                (long) Flags.number(v, "--idem-pid", 0, 1, Long.MAX_VALUE),
                Path.of(v.getOrDefault("--idem-dir", "."))));
      }
    }
    if (targets.isEmpty()) {
      throw new UsageException("give --redis HOST:PORT, --idem HOST:PORT or both");
    }
    List<Map<String, String>> rows = new ArrayList<>();
    for (Target t : targets) {
      rows.add(measure(t, s));
    }
    print(targets, rows, s);
  }

  private static Map<String, String> measure(Target t, Settings s)
      throws IOException, InterruptedException {
    Map<String, String> r = new LinkedHashMap<>();
    String host = t.at().host();
    int port = t.at().port();
    try (RespConnection c = RespConnection.open(host, port, 120_000)) {
      if (t.dir() == null) {
        c.callOk("FLUSHALL");
      } else {
        c.call("DEL", TABLE);
        c.callOk(
            "IDEMKEY.RESERVE",
            TABLE,
            "30d",
            "CAPACITY",
            Long.toString(s.stored() + (long) s.saturation()),
            "LEASE",
            LEASE_MILLIS + "ms");
      }
      // A month's keys: first requests only, no work, as fast as the side takes them.
      long memBefore = t.dir() == null ? usedMemory(c) : 0;
      long rssBefore = Memory.rssBytes(t.pid());
      long diskBefore = disk(t, c);
      Mix month = new Mix(s.stored(), s.saturationMixRate(), 0, 0, 1, s.resultBytes(), s.seed());
      Run.Result load =
          Run.run(
              t.design(),
              month,
              host,
              port,
              new Run.Plan(s.connections(), 1e7, 0, 0, s.inFlight()),
              () -> {});
      r.put("load/s", fmt(load.perSecond()));
      long mem = t.dir() == null ? usedMemory(c) - memBefore : infoNumber(c, "Memory bytes");
      r.put("mem/key", fmt((double) mem / s.stored()));
      r.put("rss/key", fmt((double) (Memory.rssBytes(t.pid()) - rssBefore) / s.stored()));
      if (t.dir() != null) {
        r.put("disk/key", fmt((double) (disk(t, c) - diskBefore) / s.stored()));
        r.put("rows/key", fmt((double) infoNumber(c, "Disk bytes") / s.stored()));
      }

      // The store's background work after a million writes (RocksDB's compactions, on the one
      // core) is let finish first: latencies are of the mix, not of that debt.
      r.put("settle", fmt(ProcStat.settle(t.pid())));

      // The fixed rate: latency of first requests and of retries, and the server's CPU a request.
      int requests = (int) Math.round(s.rate() * (s.warmup() + s.seconds()));
      Mix mix =
          new Mix(
              requests,
              s.rate(),
              s.retries(),
              s.workMillis(),
              s.retrySeconds(),
              s.resultBytes(),
              s.seed() + 1);
      long[] ticks = new long[1];
      Run.Result lat =
          Run.run(
              t.design(),
              mix,
              host,
              port,
              new Run.Plan(s.connections(), s.rate(), s.warmup(), s.workMillis(), s.inFlight()),
              () -> ticks[0] = cpuTicks(t.pid()));
      long cpuMicros = (cpuTicks(t.pid()) - ticks[0]) * ProcStat.TICK_MILLIS * 1000;
      check(t, lat);
      r.put("achieved", fmt(lat.perSecond()));
      r.put("first p50", ms(lat.firsts().getValueAtPercentile(50)));
      r.put("first p99", ms(lat.firsts().getValueAtPercentile(99)));
      r.put("retry p99", ms(lat.duplicates().getValueAtPercentile(99)));
      r.put("at once p50", ms(lat.atOnce().getValueAtPercentile(50)));
      r.put("at once p99", ms(lat.atOnce().getValueAtPercentile(99)));
      r.put("in progress p99", ms(lat.waited().getValueAtPercentile(99)));
      r.put("after stored p50", ms(lat.afterStored().getValueAtPercentile(50)));
      r.put("after stored p99", ms(lat.afterStored().getValueAtPercentile(99)));
      r.put("retries", lat.atOnce().getTotalCount() + "+" + lat.waited().getTotalCount());
      r.put("polls", Long.toString(lat.polls()));
      r.put("cmds/req", fmt2((double) lat.commands() / lat.requests()));
      r.put("cpu/req", fmt2((double) cpuMicros / lat.requests()));

      // The same mix as fast as the side takes it.
      Mix sat =
          new Mix(
              s.saturation(),
              s.saturationMixRate(),
              s.retries(),
              s.workMillis(),
              s.retrySeconds(),
              s.resultBytes(),
              s.seed() + 2);
      long[] satTicks = new long[1];
      Run.Result top =
          Run.run(
              t.design(),
              sat,
              host,
              port,
              new Run.Plan(
                  s.connections(),
                  1e7,
                  s.warmup() > 0 ? 0.2 * s.saturation() / 1e7 : 0,
                  s.workMillis(),
                  s.inFlight()),
              () -> satTicks[0] = cpuTicks(t.pid()));
      long satCpuMicros = (cpuTicks(t.pid()) - satTicks[0]) * ProcStat.TICK_MILLIS * 1000;
      check(t, top);
      r.put("max/s", fmt(top.perSecond()));
      r.put("max cpu", fmt2(satCpuMicros / 1e6 / top.seconds()));
      r.put("max client cpu", fmt2(top.clientCpuNanos() / 1e9 / top.seconds()));
      r.put("max cmds/req", fmt2((double) top.commands() / top.requests()));
    }
    return r;
  }

  private static void check(Target t, Run.Result res) throws IOException {
    if (res.workRunTwice() > 0) {
      throw new IOException(t.name() + " ran the work of " + res.workRunTwice() + " keys twice");
    }
  }

  private static long cpuTicks(long pid) {
    try {
      return ProcStat.cpuTicks(pid);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long usedMemory(RespConnection c) throws IOException {
    return Memory.infoField(c.call("INFO", "memory"), "used_memory").orElse(-1);
  }

  /**
   * The files of Idem's store after a SAVE (a snapshot, and the log cut behind it): its top
   * directory only, as checkpoints below it hard-link the same files. 0 for Redis.
   */
  private static long disk(Target t, RespConnection c) throws IOException {
    if (t.dir() == null) {
      return 0;
    }
    c.callOk("SAVE");
    long bytes = 0;
    try (var files = Files.list(t.dir())) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(f)) {
          try {
            bytes += Files.size(f);
          } catch (NoSuchFileException e) {
            // compacted away while listed
          }
        }
      }
    }
    return bytes;
  }

  private static long infoNumber(RespConnection c, String label) throws IOException {
    Resp info = c.call("IDEMKEY.INFO", TABLE);
    if (info instanceof Resp.Array a) {
      for (int i = 0; i + 1 < a.elements().size(); i += 2) {
        Resp name = a.elements().get(i);
        boolean named =
            name instanceof Resp.Simple t && t.text().equals(label)
                || name instanceof Resp.Bulk b
                    && new String(b.bytes(), StandardCharsets.UTF_8).equals(label);
        if (named && a.elements().get(i + 1) instanceof Resp.Int n) {
          return n.value();
        }
      }
    }
    throw new IOException("IDEMKEY.INFO has no " + label + ": " + Resp.describe(info));
  }

  private static void print(List<Target> targets, List<Map<String, String>> rows, Settings s) {
    System.out.printf(
        Locale.ROOT,
        "%d keys stored; %s requests/s for %s s (after %s s), %.0f %% retries, work %s ms,"
            + " results of %d bytes, %d connections; then %d requests, at most %d in flight%n%n",
        s.stored(),
        fmt(s.rate()),
        fmt(s.seconds()),
        fmt(s.warmup()),
        s.retries() * 100,
        fmt(s.workMillis()),
        s.resultBytes(),
        s.connections(),
        s.saturation(),
        s.inFlight());
    StringBuilder h = new StringBuilder("| |");
    StringBuilder line = new StringBuilder("|---|");
    for (Target t : targets) {
      h.append(' ').append(t.design().label()).append(" |");
      line.append("---|");
    }
    System.out.println(h);
    System.out.println(line);
    for (Map.Entry<String, String> m : METRICS.entrySet()) {
      StringBuilder b = new StringBuilder("| ").append(m.getValue()).append(" |");
      for (Map<String, String> row : rows) {
        b.append(' ').append(row.getOrDefault(m.getKey(), "—")).append(" |");
      }
      System.out.println(b);
    }
    if (targets.size() == 2) {
      int ri = targets.get(0).name().equals("Redis") ? 0 : 1;
      double redis = Double.parseDouble(rows.get(ri).get("max/s"));
      double idem = Double.parseDouble(rows.get(1 - ri).get("max/s"));
      System.out.printf(Locale.ROOT, "%nIdem ÷ Redis, requests a second: %.2f%n", idem / redis);
    }
  }

  /** The figures printed, in order, with what each row of the table says. */
  private static final Map<String, String> METRICS = new LinkedHashMap<>();

  static {
    METRICS.put("load/s", "storing: first requests a second, no work");
    METRICS.put(
        "mem/key", "stored: memory a key (Redis: used_memory; Idem: IDEMKEY.INFO Memory bytes)");
    METRICS.put("rss/key", "stored: resident memory growth a key");
    METRICS.put("rows/key", "stored: Idem's rows a key (IDEMKEY.INFO Disk bytes)");
    METRICS.put("disk/key", "stored: Idem's store files a key, after SAVE");
    METRICS.put("settle", "seconds the server's background work took after storing");
    METRICS.put("achieved", "fixed rate: requests a second answered");
    METRICS.put("first p50", "first requests p50, ms (work included)");
    METRICS.put("first p99", "first requests p99, ms");
    METRICS.put("retry p99", "retries p99, ms");
    METRICS.put("at once p50", "retries of a done key p50, ms");
    METRICS.put("at once p99", "retries of a done key p99, ms");
    METRICS.put("in progress p99", "retries of a key in progress p99, ms");
    METRICS.put("after stored p50", "those, from the first's completion to their answer, p50 ms");
    METRICS.put("after stored p99", "the same, p99 ms");
    METRICS.put("retries", "retries: done + in progress");
    METRICS.put("polls", "polls");
    METRICS.put("cmds/req", "commands a request");
    METRICS.put("cpu/req", "server CPU a request, µs");
    METRICS.put("max/s", "as fast as taken: requests a second");
    METRICS.put("max cpu", "server cores busy");
    METRICS.put("max client cpu", "client cores busy");
    METRICS.put("max cmds/req", "commands a request");
  }

  private static String ms(long micros) {
    return String.format(Locale.ROOT, "%.3f", micros / 1000.0);
  }

  private static String fmt(double x) {
    return x == Math.rint(x) && Math.abs(x) < 1e15
        ? Long.toString((long) x)
        : String.format(Locale.ROOT, "%.1f", x);
  }

  private static String fmt2(double x) {
    return String.format(Locale.ROOT, "%.2f", x);
  }
}
