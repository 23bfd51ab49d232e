package io.idem.bench;

import io.idem.bench.claims.DuplicateCheck;
import io.idem.bench.claims.IdemClaims;
import io.idem.bench.claims.Memory;
import io.idem.bench.claims.Pipeline;
import io.idem.bench.claims.Resp;
import io.idem.bench.claims.RespConnection;
import io.idem.bench.claims.RespWriter;
import io.idem.bench.claims.TapjoyBaseline;
import io.idem.bench.claims.Workload;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The claim benchmark of issue 4: Tapjoy's Redis dedup (seed 003) beside Idem's batch claims, in
 * one run, on the same deterministic workload of UUID claims with duplicates. A load run, not JMH:
 *
 * <pre>
 * java -cp benchmarks.jar io.idem.bench.ClaimBench --redis 127.0.0.1:6379 --idem 127.0.0.1:6380 \
 *     [--claims 2000000] [--dup-rate 0.01] [--batch 1000] [--connections 2] [--seed 42] \
 *     [--redis-pid PID] [--idem-pid PID] [--idem-dir DIR]
 * </pre>
 *
 * <p>Each side gets unmeasured warm-up passes of the same claims on other keys (two by default),
 * each deleted after, then the measured pass on fresh keys. A side passes only if it reports
 * exactly the workload's duplicates, each once; otherwise the run fails (exit status 1). {@code
 * --help} lists every option. scripts/bench-claims.sh starts both servers and runs this.
 */
public final class ClaimBench {
  /*
   * Wall time is from the first command written to the last reply read, the client's work
   * included: the baseline groups each batch by bucket, Idem's side routes by id; both write
   * straight from the workload's arrays. Replies are checked as they arrive (a hash lookup per
   * reported duplicate), the final count after the clock stops.
   */
  static final String IDEM_KEY = "bench:claims";

  /**
   * As long as {@link #IDEM_KEY}: every command hashes its key, and a key length the warm-up never
   * hashed takes a branch the JIT compiled out, so the measured pass would start by recompiling.
   */
  static final String IDEM_WARMUP_KEY = "bench:warmup";

  /**
   * A pause after each side's warm-up: what the warm-up left to do in the background (RocksDB
   * flushing and compacting its log, the JIT finishing) must not land in the measured pass.
   */
  static final long SETTLE_MILLIS = 5000;

  static void settle(String side) throws IOException {
    try {
      Thread.sleep(SETTLE_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while settling");
    }
    System.out.printf(Locale.ROOT, "%s: settled %d ms after the warm-up%n", side, SETTLE_MILLIS);
  }

  static final String REDIS_WARMUP_PREFIX = "w:";
  static final int TARGET_CLAIMS = 2_000_000;

  private ClaimBench() {}

  /** The run's settings, from the command line. */
  record Options(
      @Nullable HostPort redis,
      @Nullable HostPort idem,
      int claims,
      double dupRate,
      int batch,
      int redisBatch,
      int connections,
      long seed,
      long startMillis,
      int spanMillis,
      int bucketIds,
      long idemCapacity,
      int inFlight,
      int timeoutMillis,
      int warmups,
      boolean keep,
      long redisPid,
      long idemPid,
      @Nullable Path idemDir) {}

  record HostPort(String host, int port) {
    static HostPort parse(String option, String s) {
      int colon = s.lastIndexOf(':');
      if (colon <= 0 || colon == s.length() - 1) {
        throw new UsageException(option + " needs HOST:PORT, not '" + s + "'");
      }
      String host = s.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      int port = (int) parseLong(option, s.substring(colon + 1), 1, 65535);
      return new HostPort(host, port);
    }

    @Override
    public String toString() {
      return host + ":" + port;
    }
  }

  /** A bad command line: one line of explanation, exit status 2. */
  static final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }

  /** One side's figures. Absent memory figures are -1. */
  record Row(
      String side,
      int claims,
      long duplicates,
      long wallNanos,
      long usedMemory,
      long usedMemoryBefore,
      long rss,
      String rssSource,
      long disk,
      long diskBefore) {
    double claimsPerSecond() {
      return claims * 1e9 / wallNanos;
    }
  }

  static final String USAGE =
      """
      usage: ClaimBench [--redis HOST:PORT] [--idem HOST:PORT] [options]   (at least one side)
        --claims N          messages to claim (default 2000000)
        --dup-rate R        fraction that are duplicate deliveries (default 0.01)
        --batch N           Idem: claims per DEDUP.MCLAIM (default 1000)
        --redis-batch N     baseline: messages per connection grouped by bucket at once
                            (default: all of them, one batch a minute as Tapjoy's Spark job)
        --connections N     connections per side (default 2)
        --seed S            workload seed (default 42)
        --start-ms T        event time of the first message, Unix ms (default: the start of the
                            previous minute); the span follows
        --span-ms N         event time the messages cover (default 60000: 2 M a minute)
        --bucket-ids N      baseline: ids per Redis hash bucket (default 100, as Tapjoy)
        --idem-capacity N   Idem: DEDUP.RESERVE's CAPACITY, claims per window (default: as
                            --claims; 0 leaves it out for the server's default)
        --in-flight N       unanswered commands per connection at most (default 128)
        --timeout-ms N      longest wait for a reply (default 120000)
        --warmups N         unmeasured warm-up passes, each on a fresh key (default 2: the
                            second lets the JIT recompile what the first table's creation and
                            deletion made it throw away)
        --no-warmup         the same as --warmups 0
        --keep              keep the measured keys (default: deleted after the figures)
        --redis-pid PID     read Redis's RSS from /proc (else INFO's used_memory_rss)
        --idem-pid PID      read Idem's RSS from /proc
        --idem-dir DIR      Idem's data directory, for its size on disk
      """;

  public static void main(String[] args) {
    Options o;
    try {
      o = parse(args);
    } catch (UsageException e) {
      System.err.println("ClaimBench: " + e.getMessage());
      System.err.print(USAGE);
      System.exit(2);
      return;
    }
    try {
      run(o);
    } catch (IOException | RuntimeException e) {
      System.err.println("ClaimBench: FAILED: " + e.getMessage());
      System.exit(1);
    }
  }

  static Options parse(String[] args) {
    Map<String, String> values = new LinkedHashMap<>();
    boolean noWarmup = false;
    boolean keep = false;
    for (int k = 0; k < args.length; k++) {
      String a = args[k];
      if (a.equals("-h") || a.equals("--help")) {
        System.out.print(USAGE);
        System.exit(0);
      }
      if (a.equals("--no-warmup")) {
        noWarmup = true;
        continue;
      }
      if (a.equals("--keep")) {
        keep = true;
        continue;
      }
      int eq = a.indexOf('=');
      String name = eq > 0 ? a.substring(0, eq) : a;
      if (!KNOWN.contains(name)) {
        throw new UsageException("unknown option " + name);
      }
      String value;
      if (eq > 0) {
        value = a.substring(eq + 1);
      } else if (k + 1 < args.length) {
        value = args[++k];
      } else {
        throw new UsageException(a + " needs a value");
      }
      values.put(name, value);
    }
    HostPort redis =
        values.containsKey("--redis") ? HostPort.parse("--redis", values.get("--redis")) : null;
    HostPort idem =
        values.containsKey("--idem") ? HostPort.parse("--idem", values.get("--idem")) : null;
    if (redis == null && idem == null) {
      throw new UsageException("give --redis HOST:PORT, --idem HOST:PORT or both");
    }
    int claims = (int) number(values, "--claims", 2_000_000, 1, 50_000_000);
    String rate = values.getOrDefault("--dup-rate", "0.01");
    double dupRate;
    try {
      dupRate = Double.parseDouble(rate);
    } catch (NumberFormatException e) {
      throw new UsageException("--dup-rate needs a number, not '" + rate + "'");
    }
    if (!(dupRate >= 0 && dupRate <= 0.5)) {
      throw new UsageException("--dup-rate (" + rate + ") must be in [0, 0.5]");
    }
    int batch = (int) number(values, "--batch", 1000, 1, 1_000_000);
    long now = System.currentTimeMillis();
    return new Options(
        redis,
        idem,
        claims,
        dupRate,
        batch,
        (int) number(values, "--redis-batch", claims, 1, 50_000_000),
        (int) number(values, "--connections", 2, 1, 64),
        number(values, "--seed", 42, Long.MIN_VALUE, Long.MAX_VALUE),
        number(values, "--start-ms", now - now % 60_000 - 60_000, 0, 253_402_300_799_999L),
        (int) number(values, "--span-ms", 60_000, 1, 86_400_000),
        (int) number(values, "--bucket-ids", 100, 1, 100_000),
        number(values, "--idem-capacity", claims, 0, 1L << 40),
        (int) number(values, "--in-flight", 128, 1, 1_000_000),
        (int) number(values, "--timeout-ms", 120_000, 1, 3_600_000),
        warmups(values, noWarmup),
        keep,
        number(values, "--redis-pid", -1, 1, Integer.MAX_VALUE),
        number(values, "--idem-pid", -1, 1, Integer.MAX_VALUE),
        values.containsKey("--idem-dir") ? Path.of(values.get("--idem-dir")) : null);
  }

  private static int warmups(Map<String, String> values, boolean noWarmup) {
    if (noWarmup && values.containsKey("--warmups")) {
      throw new UsageException("give --no-warmup or --warmups N, not both");
    }
    return noWarmup ? 0 : (int) number(values, "--warmups", 2, 0, 100);
  }

  private static final List<String> KNOWN =
      List.of(
          "--redis",
          "--idem",
          "--claims",
          "--dup-rate",
          "--batch",
          "--redis-batch",
          "--connections",
          "--seed",
          "--start-ms",
          "--span-ms",
          "--bucket-ids",
          "--idem-capacity",
          "--in-flight",
          "--warmups",
          "--timeout-ms",
          "--redis-pid",
          "--idem-pid",
          "--idem-dir");

  private static long number(
      Map<String, String> values, String name, long fallback, long min, long max) {
    String v = values.get(name);
    return v == null ? fallback : parseLong(name, v, min, max);
  }

  static long parseLong(String name, String v, long min, long max) {
    long n;
    try {
      n = Long.parseLong(v.replace("_", ""));
    } catch (NumberFormatException e) {
      throw new UsageException(name + " needs a whole number, not '" + v + "'");
    }
    if (n < min || n > max) {
      throw new UsageException(name + " (" + n + ") must be in [" + min + ", " + max + "]");
    }
    return n;
  }

  static void run(Options o) throws IOException {
    long t0 = System.nanoTime();
    Workload w =
        Workload.generate(o.seed(), o.claims(), o.dupRate(), o.startMillis(), o.spanMillis());
    DuplicateCheck check = new DuplicateCheck(w);
    System.out.printf(
        Locale.ROOT,
        "workload: %,d messages, %,d duplicates (%s), seed %d, event time %s + %,d ms"
            + " (--start-ms %d), %d partitions; made in %d ms%n",
        w.size,
        w.duplicates,
        o.dupRate(),
        o.seed(),
        Instant.ofEpochMilli(w.startMillis),
        w.spanMillis,
        w.startMillis,
        Workload.PARTITIONS,
        (System.nanoTime() - t0) / 1_000_000);
    Row redis = o.redis() != null ? runRedis(o, o.redis(), w, check) : null;
    Row idem = o.idem() != null ? runIdem(o, o.idem(), w, check) : null;
    printTable(redis, idem);
  }

  // ---- The baseline: Tapjoy's buckets and Lua script on Redis ----

  static Row runRedis(Options o, HostPort at, Workload w, DuplicateCheck check) throws IOException {
    TapjoyBaseline tapjoy = new TapjoyBaseline(w, o.bucketIds());
    try (RespConnection admin = open(at, o)) {
      String version = Memory.infoText(admin.callOk("INFO", "server"), "redis_version");
      String sha = text(admin.callOk("SCRIPT", "LOAD", TapjoyBaseline.SCRIPT));
      int largest = tapjoy.largestBucket();
      long listpackLimit = listpackLimit(admin);
      System.out.printf(
          Locale.ROOT,
          "redis %s at %s: %d slices a second, %,d buckets, at most %d ids in one;"
              + " hash-max-listpack-entries %s%n",
          version,
          at,
          tapjoy.slicesPerSecond(),
          tapjoy.bucketCount(),
          largest,
          listpackLimit < 0 ? "unknown" : Long.toString(listpackLimit));
      if (listpackLimit >= 0 && largest > listpackLimit) {
        System.out.println(
            "redis: WARNING: some buckets exceed hash-max-listpack-entries and leave the compact"
                + " encoding Tapjoy relies on; raise it (Redis 2.x's default was 512)");
      }
      for (int k = 0; k < o.warmups(); k++) {
        delete(admin, tapjoy.keys(REDIS_WARMUP_PREFIX));
        long warm = redisPass(o, at, tapjoy, sha, REDIS_WARMUP_PREFIX, check).wallNanos;
        delete(admin, tapjoy.keys(REDIS_WARMUP_PREFIX));
        System.out.printf(
            Locale.ROOT, "redis: warm-up pass %d ms (not measured)%n", warm / 1_000_000);
        settle("redis");
      }
      delete(admin, tapjoy.keys(""));
      long before = Memory.infoField(admin.callOk("INFO", "memory"), "used_memory").orElse(-1);
      Pass pass = redisPass(o, at, tapjoy, sha, "", check);
      Resp info = admin.callOk("INFO", "memory");
      long used = Memory.infoField(info, "used_memory").orElse(-1);
      long rss;
      String rssSource;
      if (o.redisPid() > 0) {
        rss = Memory.rssBytes(o.redisPid());
        rssSource = "VmRSS";
      } else {
        rss = Memory.infoField(info, "used_memory_rss").orElse(-1);
        rssSource = "used_memory_rss";
      }
      verifyBuckets(o, at, tapjoy, w);
      if (!o.keep()) {
        delete(admin, tapjoy.keys(""));
      }
      System.out.printf(
          Locale.ROOT,
          "redis: %,d ms, %,d duplicates (%,d with the holder's owner), used_memory %,d -> %,d"
              + " (%.1f bytes per id), RSS %,d (%s)%n",
          pass.wallNanos / 1_000_000,
          pass.result.found(),
          pass.result.withHolderOwner(),
          before,
          used,
          (double) (used - before) / (w.size - w.duplicates),
          rss,
          rssSource);
      System.out.printf(Locale.ROOT, "redis: CPU in the pass: %s%n", pass.cpu());
      String side =
          String.format(
              Locale.ROOT,
              "Redis %s, Tapjoy buckets + Lua (%s, %d conn)",
              version,
              o.redisBatch() >= w.size ? "one batch" : "batch " + o.redisBatch(),
              o.connections());
      return new Row(
          side, w.size, pass.result.found(), pass.wallNanos, used, before, rss, rssSource, -1, -1);
    }
  }

  /**
   * A pass's wall time, its checked duplicates, and the CPU the server (-1 without its pid) and
   * this client spent in it, in milliseconds, with the server's threads that took 100 ms or more.
   */
  private record Pass(
      long wallNanos,
      DuplicateCheck.Result result,
      long serverCpuMillis,
      long clientCpuMillis,
      String serverThreads) {
    String cpu() {
      return serverCpuMillis < 0
          ? String.format(Locale.ROOT, "client %,d ms (no server pid given)", clientCpuMillis)
          : String.format(
              Locale.ROOT,
              "server %,d ms, client %,d ms; server threads, ms user+sys:%s",
              serverCpuMillis,
              clientCpuMillis,
              serverThreads);
    }
  }

  /** Makes connection {@code c}'s share of a pass, reporting to {@code tally}. */
  private interface JobMaker {
    Pipeline.Job make(int c, int connections, DuplicateCheck.Tally tally);
  }

  private static Pass redisPass(
      Options o,
      HostPort at,
      TapjoyBaseline tapjoy,
      String sha,
      String prefix,
      DuplicateCheck check)
      throws IOException {
    return pass(
        "redis",
        o,
        at,
        o.redisPid(),
        check,
        (c, n, tally) -> tapjoy.job(sha, prefix, c, n, o.redisBatch(), tally));
  }

  /** Runs one pass over fresh connections, timed from the first command to the last reply. */
  private static Pass pass(
      String side, Options o, HostPort at, long pid, DuplicateCheck check, JobMaker maker)
      throws IOException {
    List<RespConnection> connections = openAll(at, o);
    try {
      List<DuplicateCheck.Tally> tallies = new ArrayList<>();
      List<Pipeline.Job> jobs = new ArrayList<>();
      for (int c = 0; c < connections.size(); c++) {
        DuplicateCheck.Tally tally = check.tally();
        tallies.add(tally);
        jobs.add(maker.make(c, connections.size(), tally));
      }
      long server = pid > 0 ? ProcStat.cpuTicks(pid) : -1;
      Map<String, long[]> threads = pid > 0 ? ProcStat.threadTicks(pid) : Map.of();
      long client = ProcStat.selfCpuMillis();
      long start = System.nanoTime();
      Pipeline.run(connections, jobs, o.inFlight());
      long wall = System.nanoTime() - start;
      long clientMillis = client < 0 ? -1 : ProcStat.selfCpuMillis() - client;
      long serverMillis = pid > 0 ? (ProcStat.cpuTicks(pid) - server) * ProcStat.TICK_MILLIS : -1;
      String byThread =
          pid > 0 ? ProcStat.threadsSince(threads, ProcStat.threadTicks(pid), 100) : "";
      return new Pass(wall, checked(side, check, tallies), serverMillis, clientMillis, byThread);
    } finally {
      closeAll(connections);
    }
  }

  /** After the pass: every unique id is stored, and every bucket has its 24 h expiry. */
  private static void verifyBuckets(Options o, HostPort at, TapjoyBaseline tapjoy, Workload w)
      throws IOException {
    List<byte[]> keys = tapjoy.keys("");
    long[] fields = {0};
    long[] noTtl = {0};
    try (RespConnection c = open(at, o)) {
      Pipeline.Job job =
          new Pipeline.Job() {
            private int written;
            private int read;

            @Override
            public boolean writeNext(RespWriter out) throws IOException {
              if (written == 2 * keys.size()) {
                return false;
              }
              out.array(2).bulk(written % 2 == 0 ? "HLEN" : "TTL").bulk(keys.get(written / 2));
              written++;
              return true;
            }

            @Override
            public void onReply(Resp reply) throws IOException {
              if (!(reply instanceof Resp.Int(long v))) {
                throw new IOException("HLEN/TTL replied " + Resp.describe(reply));
              }
              if (read % 2 == 0) {
                fields[0] += v;
              } else if (v != -2 && (v <= 0 || v > TapjoyBaseline.TTL_SECONDS)) {
                noTtl[0]++;
              }
              read++;
            }
          };
      Pipeline.run(List.of(c), List.of(job), o.inFlight());
    }
    long uniques = w.size - w.duplicates;
    if (fields[0] != uniques) {
      throw new IOException("Redis holds " + fields[0] + " ids; the workload has " + uniques);
    }
    if (noTtl[0] != 0) {
      throw new IOException(noTtl[0] + " Redis buckets have no 24 h expiry");
    }
  }

  private static long listpackLimit(RespConnection admin) throws IOException {
    for (String name : new String[] {"hash-max-listpack-entries", "hash-max-ziplist-entries"}) {
      Resp r = admin.call("CONFIG", "GET", name);
      if (r instanceof Resp.Array(List<Resp> kv)
          && kv.size() == 2
          && kv.get(1) instanceof Resp.Bulk(byte[] v)) {
        return Long.parseLong(new String(v, StandardCharsets.US_ASCII));
      }
    }
    return -1;
  }

  private static void delete(RespConnection admin, List<byte[]> keys) throws IOException {
    for (int from = 0; from < keys.size(); from += 1000) {
      List<byte[]> chunk = keys.subList(from, Math.min(keys.size(), from + 1000));
      byte[][] args = new byte[chunk.size() + 1][];
      args[0] = "DEL".getBytes(StandardCharsets.US_ASCII);
      for (int k = 0; k < chunk.size(); k++) {
        args[k + 1] = chunk.get(k);
      }
      admin.callOk(args);
    }
  }

  // ---- Idem: DEDUP.MCLAIM on one exact table ----

  static Row runIdem(Options o, HostPort at, Workload w, DuplicateCheck check) throws IOException {
    IdemClaims idem = new IdemClaims(w);
    try (RespConnection admin = open(at, o)) {
      admin.callOk("PING");
      System.out.printf(
          Locale.ROOT, "idem at %s: one EXACT table, window %s%n", at, IdemClaims.WINDOW);
      for (int k = 0; k < o.warmups(); k++) {
        IdemClaims.reserve(admin, IDEM_WARMUP_KEY, o.idemCapacity());
        long warm = idemPass(o, at, idem, IDEM_WARMUP_KEY, check).wallNanos;
        admin.callOk("DEL", IDEM_WARMUP_KEY);
        System.out.printf(
            Locale.ROOT, "idem: warm-up pass %d ms (not measured)%n", warm / 1_000_000);
        settle("idem");
      }
      IdemClaims.reserve(admin, IDEM_KEY, o.idemCapacity());
      long rssBefore = o.idemPid() > 0 ? Memory.rssBytes(o.idemPid()) : -1;
      long diskBefore = o.idemDir() != null ? Memory.directoryBytes(o.idemDir()) : -1;
      Pass pass = idemPass(o, at, idem, IDEM_KEY, check);
      long rss = o.idemPid() > 0 ? Memory.rssBytes(o.idemPid()) : -1;
      long disk = o.idemDir() != null ? Memory.directoryBytes(o.idemDir()) : -1;
      Map<String, Resp> info = IdemClaims.info(admin, IDEM_KEY);
      if (info.get("Items") instanceof Resp.Int(long items) && items != w.size - w.duplicates) {
        throw new IOException(
            "idem: DEDUP.INFO counts "
                + items
                + " items; the workload has "
                + (w.size - w.duplicates));
      }
      if (!o.keep()) {
        admin.callOk("DEL", IDEM_KEY);
      }
      System.out.printf(
          Locale.ROOT,
          "idem: %,d ms, %,d duplicates (%,d with the holder's owner), RSS %,d -> %,d,"
              + " disk %,d -> %,d; DEDUP.INFO Items %s, Memory bytes %s, Disk bytes %s%n",
          pass.wallNanos / 1_000_000,
          pass.result.found(),
          pass.result.withHolderOwner(),
          rssBefore,
          rss,
          diskBefore,
          disk,
          infoValue(info, "Items"),
          infoValue(info, "Memory bytes"),
          infoValue(info, "Disk bytes"));
      System.out.printf(Locale.ROOT, "idem: CPU in the pass: %s%n", pass.cpu());
      String side =
          String.format(
              Locale.ROOT,
              "Idem DEDUP.MCLAIM EXACT (batch %d, %d conn)",
              o.batch(),
              o.connections());
      return new Row(
          side,
          w.size,
          pass.result.found(),
          pass.wallNanos,
          -1,
          -1,
          rss,
          "VmRSS",
          disk,
          diskBefore);
    }
  }

  private static Pass idemPass(
      Options o, HostPort at, IdemClaims idem, String key, DuplicateCheck check)
      throws IOException {
    return pass(
        "idem", o, at, o.idemPid(), check, (c, n, tally) -> idem.job(key, c, n, o.batch(), tally));
  }

  // ---- Shared ----

  private static DuplicateCheck.Result checked(
      String side, DuplicateCheck check, List<DuplicateCheck.Tally> tallies) throws IOException {
    try {
      return check.total(tallies);
    } catch (IOException e) {
      throw new IOException(side + ": " + e.getMessage(), e);
    }
  }

  private static RespConnection open(HostPort at, Options o) throws IOException {
    return RespConnection.open(at.host(), at.port(), o.timeoutMillis());
  }

  private static List<RespConnection> openAll(HostPort at, Options o) throws IOException {
    List<RespConnection> connections = new ArrayList<>();
    try {
      for (int c = 0; c < o.connections(); c++) {
        connections.add(open(at, o));
      }
    } catch (IOException e) {
      closeAll(connections);
      throw e;
    }
    return connections;
  }

  private static void closeAll(List<RespConnection> connections) {
    for (RespConnection c : connections) {
      try {
        c.close();
      } catch (IOException ignored) {
        // the pass is over; nothing is left to lose on this connection
      }
    }
  }

  private static String infoValue(Map<String, Resp> info, String name) {
    Resp value = info.get(name);
    return switch (value) {
      case null -> "n/a";
      case Resp.Int(long v) -> String.format(Locale.ROOT, "%,d", v);
      case Resp.Bulk(byte[] b) -> new String(b, StandardCharsets.UTF_8);
      case Resp.Simple(String t) -> t;
      default -> Resp.describe(value);
    };
  }

  private static String text(Resp reply) throws IOException {
    return switch (reply) {
      case Resp.Bulk(byte[] b) -> new String(b, StandardCharsets.UTF_8);
      case Resp.Simple(String s) -> s;
      default -> throw new IOException("expected a string, got " + Resp.describe(reply));
    };
  }

  static void printTable(@Nullable Row redis, @Nullable Row idem) {
    System.out.println();
    System.out.println(
        "| side | claims | duplicates | wall ms | claims/s | used_memory | RSS | disk |");
    System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (Row r : new Row[] {redis, idem}) {
      if (r == null) {
        continue;
      }
      System.out.printf(
          Locale.ROOT,
          "| %s | %,d | %,d | %,d | %,.0f | %s | %s | %s |%n",
          r.side(),
          r.claims(),
          r.duplicates(),
          r.wallNanos() / 1_000_000,
          r.claimsPerSecond(),
          mb(r.usedMemory()),
          mb(r.rss()),
          mb(r.disk()));
    }
    System.out.println();
    if (idem != null) {
      System.out.printf(
          Locale.ROOT,
          "Idem: %,d ms for %,d claims (target: 2,000,000 claims in at most 1,000 ms: %s)%n",
          idem.wallNanos() / 1_000_000,
          idem.claims(),
          idem.claims() != TARGET_CLAIMS
              ? "not this run's size"
              : idem.wallNanos() <= 1_000_000_000L ? "met" : "not met");
    }
    if (redis != null && idem != null) {
      double speed = idem.claimsPerSecond() / redis.claimsPerSecond();
      System.out.printf(
          Locale.ROOT,
          "Idem / baseline: %.2fx the claims per second (target: at least 2x: %s)%n",
          speed,
          speed >= 2 ? "met" : "not met");
      System.out.printf(
          Locale.ROOT,
          "Idem / baseline memory: Idem RSS / Redis used_memory %s; Idem RSS / Redis RSS %s;"
              + " Idem disk / Redis used_memory %s%n",
          ratio(idem.rss(), redis.usedMemory()),
          ratio(idem.rss(), redis.rss()),
          ratio(idem.disk(), redis.usedMemory()));
    }
  }

  private static String ratio(long a, long b) {
    return a < 0 || b <= 0 ? "n/a" : String.format(Locale.ROOT, "%.2f", (double) a / b);
  }

  private static String mb(long bytes) {
    return bytes < 0 ? "–" : String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
  }
}
