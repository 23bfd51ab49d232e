package io.idem.kafka.bench;

import io.idem.server.cluster.KafkaBroker;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The operator against what users write today (Confluent's window-store dedup recipe), on one
 * in-process KRaft broker and the same input: records a second, state bytes an id (the state
 * directory, and the changelog on the broker), and the restore after a SIGKILL, as the state grows.
 * Input for a size N: N distinct ids in a scattered order, after every tenth a repeat of an earlier
 * one, timestamped over half the window so that none expires. Each (N, mode) is one {@link
 * DedupBenchApp} in its own JVM, application id and state directory: run until it has seen every
 * record, given 5 s to commit, measured, killed, restarted on its state, and timed until it runs.
 *
 * <pre>
 * DedupBench [--dir target/dedup-bench] [--window-seconds 86400] [--settle-seconds 5]
 *            [--out bench-out/kafka-dedup.tsv] [--modes recipe,idem] [--profile] N...
 * </pre>
 *
 * <p>--profile records each app's first run with Flight Recorder's profiling settings, to {@code
 * <dir>/logs/<app id>.jfr}: where its time goes while it processes ({@code jfr print --events
 * jdk.ExecutionSample}).
 *
 * <p>PIN=yes runs the apps on CPU 0 ({@code taskset -c 0}); the caller pins this JVM, the broker's,
 * to CPU 1. Clears the work directory's kafka, state and logs folders first. Appends each result to
 * the TSV file as soon as it has it, so a long run that fails keeps what it measured.
 */
public final class DedupBench {

  private static final String APP_HEAP = "-Xmx4g";
  private static final long SEED = 42;

  private static final String HEADER =
      "| mode   |         ids |     records |  records/s | state B/id | changelog B/id | restore s"
          + " |    restored | restart to running s |\n"
          + "|--------|------------:|------------:|-----------:|-----------:|---------------:"
          + "|----------:|------------:|---------------------:|";
  private static final String ROW =
      "| %-6s | %,11d | %,11d | %,10.0f | %10.1f | %14.1f | %9.2f | %,11d | %20.2f |";
  private static final String TSV_HEADER =
      "date\tmode\tids\trecords\trecords_per_s\tstate_bytes_per_id\tchangelog_bytes_per_id"
          + "\trestore_s\trestored_records\trestart_to_running_s\n";
  private static final String TSV = "%s\t%d\t%d\t%.0f\t%.1f\t%.1f\t%.3f\t%d\t%.3f%n";

  private record Options(
      Path dir,
      long windowSeconds,
      long settleSeconds,
      Path out,
      List<String> modes,
      List<Long> sizes,
      boolean pin,
      boolean profile) {}

  /** One (N, mode)'s figures, in the order of the table's columns. */
  private record Result(
      String mode,
      long ids,
      long records,
      double recordsPerSecond,
      double stateBytesPerId,
      double changelogBytesPerId,
      double restoreSeconds,
      long restored,
      double runningSeconds) {

    /** The figures through {@code pattern}: {@code ROW} or {@code TSV}. */
    String format(String pattern) {
      return String.format(
          Locale.ROOT,
          pattern,
          mode,
          ids,
          records,
          recordsPerSecond,
          stateBytesPerId,
          changelogBytesPerId,
          restoreSeconds,
          restored,
          runningSeconds);
    }
  }

  private DedupBench() {}

  public static void main(String[] args) throws Exception {
    Options o = parse(args);
    System.out.println(
        "command: java "
            + String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments())
            + " -cp <idem-kafka test classpath> "
            + DedupBench.class.getName()
            + " "
            + String.join(" ", args));
    System.out.printf(
        "dedup bench: %d cores, PIN=%s, window %d s, sizes %s, modes %s, app JVM %s%n",
        Runtime.getRuntime().availableProcessors(),
        o.pin() ? "yes" : "no",
        o.windowSeconds(),
        o.sizes(),
        o.modes(),
        APP_HEAP);
    for (String sub : List.of("kafka", "state", "logs")) {
      deleteTree(o.dir().resolve(sub));
    }
    Files.createDirectories(o.dir().resolve("logs"));
    Path out = o.out().toAbsolutePath();
    Files.createDirectories(out.getParent());
    if (!Files.exists(out)) {
      Files.writeString(out, TSV_HEADER);
    }

    List<Result> results = new ArrayList<>();
    KafkaBroker broker = KafkaBroker.start(o.dir().resolve("kafka"));
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
      for (long ids : o.sizes()) {
        String in = "in-" + ids;
        broker.createTopic(in, 1);
        long records = fill(broker.bootstrapServers(), in, ids, o.windowSeconds() * 1000);
        for (String mode : o.modes()) {
          Result r = killAndRestart(o, admin, first(o, broker, mode, ids, records));
          results.add(r);
          System.out.println(HEADER + "\n" + r.format(ROW));
          Files.writeString(out, Instant.now() + "\t" + r.format(TSV), StandardOpenOption.APPEND);
        }
      }
    } finally {
      broker.close();
    }
    System.out.println();
    System.out.println(HEADER);
    results.forEach(r -> System.out.println(r.format(ROW)));
    System.out.println("appended to " + out);
  }

  private static Properties producerConfig(String bootstrap) {
    Properties config = new Properties();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    config.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    config.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    return config;
  }

  /**
   * Writes ids distinct ids and ids / 10 repeats to {@code topic}; returns the number of records.
   * The i-th new id is {@code id-(i * P mod ids)}, P a prime above ids: a permutation, so the ids
   * reach the stores in no particular order, with no table of them in memory.
   */
  private static long fill(String bootstrap, String topic, long ids, long windowMillis) {
    long prime = Integer.MAX_VALUE; // 2^31 - 1, a prime: the map is one-to-one while ids < it
    if (ids < 1 || ids >= prime) {
      throw new IllegalArgumentException("from 1 to " + (prime - 1) + " ids, not " + ids);
    }
    long records = ids + ids / 10;
    long spread = windowMillis / 2;
    long t0 = System.currentTimeMillis() - spread; // within the topics' retention, none expired
    Properties config = producerConfig(bootstrap);
    Random random = new Random(SEED);
    AtomicReference<Exception> failed = new AtomicReference<>();
    Callback onError =
        (meta, e) -> {
          if (e != null) {
            failed.compareAndSet(null, e);
          }
        };
    long start = System.nanoTime();
    try (KafkaProducer<String, String> p =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      long k = 0; // the record's place in the topic: its timestamp and value
      for (long i = 0; i < ids; i++) {
        String id = "id-" + (i * prime % ids);
        p.send(new ProducerRecord<>(topic, null, t0 + k * spread / records, id, "v" + k), onError);
        k++;
        if (i % 10 == 9) {
          String again = "id-" + (random.nextLong(i + 1) * prime % ids);
          p.send(
              new ProducerRecord<>(topic, null, t0 + k * spread / records, again, "v" + k),
              onError);
          k++;
        }
      }
      p.flush();
    }
    if (failed.get() != null) {
      throw new IllegalStateException("filling " + topic + " failed", failed.get());
    }
    System.out.printf(
        "%s: %,d records (%,d ids, %,d repeats) in %.1f s%n",
        topic, records, ids, records - ids, (System.nanoTime() - start) / 1e9);
    return records;
  }

  /** What the first run of a mode found, and how to start its app again. */
  private record First(
      String mode, long ids, long records, double rate, List<String> cmd, Path log, long timeout) {}

  /**
   * One (N, mode)'s first run, from a clean start: until every record is seen (its rate), then a
   * few seconds for the last commits, and SIGKILL. Under exactly-once, Streams 4.3 gives a store
   * its changelog offsets only at a clean close or a rebalance, so a store restores what was
   * processed since then unless it keeps checkpoints of its own.
   */
  private static First first(Options o, KafkaBroker broker, String mode, long ids, long records)
      throws Exception {
    String appId = "bench-" + mode + "-" + ids;
    Path state = o.dir().resolve("state").resolve(appId).toAbsolutePath();
    String out = "out-" + mode + "-" + ids;
    broker.createTopic(out, 1);
    List<String> cmd = new ArrayList<>();
    if (o.pin()) {
      cmd.addAll(List.of("taskset", "-c", "0"));
    }
    String classpath = System.getProperty("java.class.path");
    cmd.addAll(
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            APP_HEAP,
            "--enable-native-access=ALL-UNNAMED", // RocksDB's JNI library, without a warning
            "-cp",
            classpath,
            DedupBenchApp.class.getName(),
            broker.bootstrapServers(),
            state.toString(),
            appId,
            mode,
            "in-" + ids,
            out,
            Long.toString(o.windowSeconds()),
            Long.toString(ids)));
    System.out.println(
        "app: " + String.join(" ", cmd).replace(classpath, "<idem-kafka test classpath>"));
    Path log = o.dir().resolve("logs").resolve(appId + ".log");
    List<String> firstCmd = new ArrayList<>(cmd);
    Path jfr = o.dir().resolve("logs").resolve(appId + ".jfr").toAbsolutePath();
    if (o.profile()) {
      firstCmd.add(
          firstCmd.indexOf(APP_HEAP) + 1, "-XX:StartFlightRecording=name=bench,settings=profile");
    }
    // At least 2,000 records a second, or the app is stuck: a bound for a run, not a measurement.
    long timeout = 120 + records / 2000;

    AppProcess first = AppProcess.start(firstCmd, log);
    AppProcess.Line done =
        first.await(l -> l.is("processed") && l.longField(1) >= records, timeout);
    if (done == null) {
      first.kill();
      throw new IllegalStateException(appId + " did not process " + records + "; see " + log);
    }
    // From the end of the first record to the end of the last, on the app's clock: to the ms, not
    // to the second of its report.
    long count = done.longField(1);
    long millis = Math.max(1, done.longField(3) - done.longField(2));
    double rate = (count - 1) * 1000.0 / millis;
    Thread.sleep(TimeUnit.SECONDS.toMillis(o.settleSeconds())); // the last commits
    System.out.printf("%s: %,d records in %.1f s; killing it%n", appId, count, millis / 1e3);
    if (o.profile()) {
      first.dumpRecording("bench", jfr); // a SIGKILL leaves no recording
    }
    first.kill();
    return new First(mode, ids, records, rate, cmd, log, timeout);
  }

  /**
   * The killed app started again: its restore, its time to RUNNING; then a clean stop, after which
   * the state directory holds the state (RocksDB's memtables flushed, Idem's checkpoint written).
   */
  private static Result killAndRestart(Options o, Admin admin, First f) throws Exception {
    List<String> cmd = f.cmd();
    Path log = f.log();
    long timeout = f.timeout();
    String appId = "bench-" + f.mode() + "-" + f.ids();
    Path state = o.dir().resolve("state").resolve(appId).toAbsolutePath();

    long logBefore = Files.size(log);
    AppProcess second = AppProcess.start(cmd, log);
    AppProcess.Line running = second.await(l -> l.is("running"), timeout);
    if (running == null && startupLockBug(log, logBefore)) {
      // Kafka Streams 4.3.1 can fail a restart this way (KAFKA-20663, fixed after it): the task
      // found corrupted at startup cannot take its directory's lock, which startup kept. A user
      // starts it again; so does the benchmark, and the figures are the second start's.
      second.kill();
      System.out.printf("%s: restart failed on KAFKA-20663; starting it again%n", appId);
      second = AppProcess.start(cmd, log);
      running = second.await(l -> l.is("running"), timeout);
    }
    if (running == null) {
      second.kill();
      throw new IllegalStateException(appId + " did not run after the kill; see " + log);
    }
    // RUNNING follows the restores; the last restore-end may be printed just after it.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeout);
    while (second.count("restore-start") > second.count("restore-end")
        && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    long restoreStart = Long.MAX_VALUE;
    long restoreEnd = Long.MIN_VALUE;
    long restored = 0;
    for (AppProcess.Line l : second.lines()) {
      if (l.is("restore-start")) {
        restoreStart = Math.min(restoreStart, l.longField(4));
        System.out.println("  " + l.text());
      } else if (l.is("restore-end")) {
        restoreEnd = Math.max(restoreEnd, l.longField(3));
        restored += l.longField(2);
        System.out.println("  " + l.text());
      }
    }
    second.terminate();
    long stateBytes = directoryBytes(state);
    long changelogBytes = changelogBytes(admin, appId);
    System.out.printf(
        "%s: stopped: state %,d B, changelog %,d B%n", appId, stateBytes, changelogBytes);
    return new Result(
        f.mode(),
        f.ids(),
        f.records(),
        f.rate(),
        (double) stateBytes / f.ids(),
        (double) changelogBytes / f.ids(),
        restoreEnd >= restoreStart ? (restoreEnd - restoreStart) / 1e3 : 0, // 0: nothing restored
        restored,
        (running.atMillis() - second.startedMillis()) / 1e3);
  }

  /** The bytes of the files under {@code dir}; a file RocksDB deletes meanwhile counts nothing. */
  private static long directoryBytes(Path dir) throws IOException {
    AtomicLong total = new AtomicLong();
    Files.walkFileTree(
        dir,
        new SimpleFileVisitor<Path>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
            if (attrs.isRegularFile()) {
              total.addAndGet(attrs.size());
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) {
            return FileVisitResult.CONTINUE;
          }
        });
    return total.get();
  }

  /** The bytes of the app's changelog partitions in the brokers' log directories. */
  private static long changelogBytes(Admin admin, String appId) throws Exception {
    List<Integer> brokers =
        admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).stream().map(Node::id).toList();
    long bytes = 0;
    for (Map<String, LogDirDescription> dirs :
        admin.describeLogDirs(brokers).allDescriptions().get(30, TimeUnit.SECONDS).values()) {
      for (LogDirDescription dir : dirs.values()) {
        for (Map.Entry<TopicPartition, ReplicaInfo> e : dir.replicaInfos().entrySet()) {
          String topic = e.getKey().topic();
          // "-": bench-idem-1000000 must not take bench-idem-10000000's topics.
          if (topic.startsWith(appId + "-") && topic.endsWith("-changelog")) {
            bytes += e.getValue().size();
          }
        }
      }
    }
    return bytes;
  }

  private static Options parse(String[] args) {
    Path dir = Path.of("target", "dedup-bench");
    long window = 86_400;
    long settle = 5;
    Path out = Path.of("bench-out", "kafka-dedup.tsv");
    List<String> modes = List.of("recipe", "idem");
    List<Long> sizes = new ArrayList<>();
    boolean profile = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--dir" -> dir = Path.of(args[++i]);
        case "--window-seconds" -> window = Long.parseLong(args[++i]);
        case "--settle-seconds" -> settle = Long.parseLong(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        case "--modes" -> modes = List.of(args[++i].split(","));
        case "--profile" -> profile = true;
        default -> sizes.add(Long.parseLong(args[i].replace("_", "")));
      }
    }
    if (sizes.isEmpty()) {
      sizes.add(1_000_000L);
    }
    if (window < 2) {
      throw new IllegalArgumentException("--window-seconds must be at least 2, not " + window);
    }
    return new Options(
        dir, window, settle, out, modes, sizes, "yes".equals(System.getenv("PIN")), profile);
  }

  /** Whether the log, past {@code from}, shows a restart that failed on Streams' startup lock. */
  private static boolean startupLockBug(Path log, long from) throws IOException {
    byte[] all = Files.readAllBytes(log);
    String tail =
        new String(
            all,
            (int) Math.min(from, all.length),
            all.length - (int) Math.min(from, all.length),
            java.nio.charset.StandardCharsets.UTF_8);
    return tail.contains("lock hold by current process");
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
