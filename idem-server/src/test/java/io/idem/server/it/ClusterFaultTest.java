package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.cluster.ClusterTopology;
import io.idem.server.cluster.CommandRecord;
import io.idem.server.cluster.Slots;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.ClusterPipeline;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.providers.ClusterConnectionProvider;

/**
 * The cluster's fault simulation: a broker and three nodes, each in its own process, under a
 * pipelined mix of every write family from a cluster client (JedisCluster's pipeline and its
 * transactions), while a seeded schedule kills nodes with SIGKILL (snapshots every second, so kills
 * land in them), pauses them with SIGSTOP past the node timeout, restarts them with their clocks
 * set ahead or behind, and kills and restarts the broker. Then: every acknowledged write is in the
 * log; every replica holds, key by key, what a fresh node that replays the log holds; counts are
 * exact against the log; every acknowledged filter item and dedup claim is there; every job whose
 * add was acknowledged was done exactly once, and no job was handed out after its ack.
 *
 * <p>One seed of 40 s here; {@code scripts/fault-run.sh} runs many seeds, longer ({@code
 * -Didem.fault.seeds=1,2,3 -Didem.fault.seconds=60}), and writes one line a seed to {@code
 * target/fault-run.txt}.
 */
class ClusterFaultTest {

  private static final String[] NAMES = {"a", "b", "c"};
  private static final int PARTITIONS = 6;
  private static final int TAGS = 12;
  private static final int NODE_TIMEOUT_MS = 2000;
  private static final String TOPIC = "idem";

  @Test
  void faultsOnEveryType_loseNothingAcknowledged_andReplicasEqualTheLog() throws Exception {
    String seeds = System.getProperty("idem.fault.seeds", "1");
    int seconds = Integer.getInteger("idem.fault.seconds", 40);
    List<String> failed = new ArrayList<>();
    for (String seed : seeds.split(",")) {
      // Under target/, not a temporary directory: a failed seed's node logs stay to be read.
      Path runDir = Path.of("target", "fault-run", "seed-" + seed.strip()).toAbsolutePath();
      deleteTree(runDir);
      Run run = new Run(runDir, Long.parseLong(seed.strip()), seconds);
      try {
        run.go();
        report("seed " + seed.strip() + " passed: " + run.summary());
        deleteTree(runDir);
      } catch (Exception | AssertionError e) {
        // The next seeds still run: a long run reports every seed.
        String line = "seed " + seed.strip() + " FAILED: " + run.summary() + " :: " + e;
        report(line);
        failed.add(line);
      }
    }
    assertThat(failed).as("failed seeds (logs under target/fault-run)").isEmpty();
  }

  private static void deleteTree(Path root) throws IOException {
    if (Files.exists(root)) {
      try (var paths = Files.walk(root)) {
        for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private static void report(String line) throws IOException {
    System.out.println("fault-run: " + line);
    Files.writeString(
        Path.of("target", "fault-run.txt"),
        line + "\n",
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(Object reply) {
    return RespClient.text(reply);
  }

  private static int freePort() throws IOException {
    return Ports.free();
  }

  /** A command's identity in the log: its words joined. */
  private static String signature(List<byte[]> words) {
    StringBuilder out = new StringBuilder();
    for (byte[] w : words) {
      out.append(new String(w, StandardCharsets.UTF_8)).append('\u0000');
    }
    return out.toString();
  }

  private static String signature(String... words) {
    List<byte[]> out = new ArrayList<>();
    for (String w : words) {
      out.add(b(w));
    }
    return signature(out);
  }

  /** One seed's run: its processes, its load, its faults and its checks. */
  private static final class Run {
    final Path dir;
    final long seed;
    final int seconds;
    final int[] ports = new int[3];
    final ServerProcess[] nodes = new ServerProcess[3];
    final long[] clockOffsets = new long[3];
    BrokerProcess broker;
    String members;
    ClusterTopology topology;

    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong acked = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final List<String> faults = java.util.Collections.synchronizedList(new ArrayList<>());

    /** Acknowledged writes, by signature. */
    final Set<String> ackedWrites = ConcurrentHashMap.newKeySet();

    /** Acknowledged adds of items that must be there at the end: key to items, by family. */
    final Map<String, Set<String>> ackedItems = new ConcurrentHashMap<>();

    /** Acknowledged QUEUE.ADD job ids, by queue. */
    final Map<String, Set<String>> ackedJobs = new ConcurrentHashMap<>();

    /** Acknowledged flows: queue + parent id to queue + its children's ids. */
    final Map<String, List<String>> ackedFlows = new ConcurrentHashMap<>();

    /** Every delivery: queue + job id to the tokens it was handed out with. */
    final Map<String, List<Long>> deliveries = new ConcurrentHashMap<>();

    /** Acks that answered 1: queue + job id to the token. */
    final Map<String, Long> done = new ConcurrentHashMap<>();

    final AtomicLong doubleAcks = new AtomicLong();
    final java.util.Queue<String> doubleAcked = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /** Acks whose reply never came: queue + job id to their signatures. */
    final Map<String, Set<String>> unanswered = new ConcurrentHashMap<>();

    /** Idempotency keys: table + id to every token a begin started it with. */
    final Map<String, List<Long>> idemTokens = new ConcurrentHashMap<>();

    /** Table + id to the result a COMPLETE stored (it answered 1). */
    final Map<String, String> idemStored = new ConcurrentHashMap<>();

    /** Table + id to every result a begin answered done with. */
    final Map<String, Set<String>> idemAnswers = new ConcurrentHashMap<>();

    /** Table + id to the results of completes whose reply never came. */
    final Map<String, Set<String>> idemUnanswered = new ConcurrentHashMap<>();

    final AtomicLong idemDoubleStores = new AtomicLong();
    final AtomicLong idemMismatches = new AtomicLong();

    Run(Path dir, long seed, int seconds) {
      this.dir = dir;
      this.seed = seed;
      this.seconds = seconds;
    }

    String summary() {
      return String.format(
          "%d s, %d acknowledged writes, %d failed or unanswered, %d jobs done, %d idempotency"
              + " keys stored, faults %s",
          seconds, acked.get(), failed.get(), done.size(), idemStored.size(), faults);
    }

    void start(int i) throws IOException {
      nodes[i] =
          ServerProcess.start(
              dir.resolve("node-" + NAMES[i]),
              "port",
              Integer.toString(ports[i]),
              "cluster-enabled",
              "yes",
              "cluster-node",
              NAMES[i],
              "cluster-nodes",
              members,
              "cluster-partitions",
              Integer.toString(PARTITIONS),
              "cluster-replicas",
              "2",
              "cluster-log",
              broker.bootstrapServers(),
              "cluster-node-timeout",
              Integer.toString(NODE_TIMEOUT_MS),
              "snapshot-interval",
              "1",
              "snapshot-log-bytes",
              "1mb",
              "test-clock-offset",
              Long.toString(clockOffsets[i]));
    }

    String infoField(int i, String field) {
      try (RespClient c = new RespClient(ports[i])) {
        for (String line : s(c.call("INFO", "cluster")).split("\r\n")) {
          if (line.startsWith(field + ":")) {
            return line.substring(field.length() + 1);
          }
        }
        return "";
      } catch (IOException e) {
        return "unreachable";
      }
    }

    /** Waits until every node sees all three live. */
    void awaitAllLive() throws InterruptedException {
      long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      while (true) {
        boolean all = true;
        for (int i = 0; i < 3; i++) {
          all &= infoField(i, "cluster_live_nodes").equals("a,b,c");
        }
        if (all) {
          return;
        }
        assertThat(System.nanoTime()).as("all three nodes live again").isLessThan(deadline);
        Thread.sleep(100);
      }
    }

    void go() throws Exception {
      Random random = new Random(seed);
      for (int i = 0; i < 3; i++) {
        ports[i] = freePort();
      }
      members = "a=127.0.0.1:" + ports[0] + " b=127.0.0.1:" + ports[1] + " c=127.0.0.1:" + ports[2];
      topology = ClusterTopology.parse(members, "a", PARTITIONS, 2);
      broker = BrokerProcess.start(dir.resolve("kafka"));
      try {
        for (int i = 0; i < 3; i++) {
          start(i);
        }
        awaitAllLive();
        Set<HostAndPort> seeds = Set.of(new HostAndPort("127.0.0.1", ports[0]));
        DefaultJedisClientConfig config =
            DefaultJedisClientConfig.builder()
                .protocol(RedisProtocol.RESP2) // Jedis 8 speaks RESP3 unless told
                .socketTimeoutMillis(5000)
                .connectionTimeoutMillis(1000)
                .build();
        try (ClusterConnectionProvider provider = new ClusterConnectionProvider(seeds, config)) {
          setUp(provider);
          List<Thread> threads = new ArrayList<>();
          for (int w = 0; w < 2; w++) {
            long first = w * 1_000_000_000L;
            threads.add(
                Thread.ofPlatform().name("writer-" + w).start(() -> write(provider, first)));
          }
          threads.add(Thread.ofPlatform().name("worker").start(() -> work(provider, 3000)));
          threads.add(Thread.ofPlatform().name("idempotency").start(() -> idempotency(provider)));
          inject(random);
          stop.set(true);
          for (Thread t : threads) {
            t.join(60_000);
            assertThat(t.isAlive()).as(t.getName() + " stopped").isFalse();
          }
          awaitAllLive();
          unschedule(provider);
          drain(provider);
        }
        check();
      } finally {
        for (ServerProcess n : nodes) {
          if (n != null) {
            n.close();
          }
        }
        broker.close();
      }
    }

    /** The tables that need their options, made before the load starts. */
    void setUp(ClusterConnectionProvider provider) {
      for (int t = 0; t < TAGS; t++) {
        String tag = "{t" + t + "}";
        for (String[] c :
            List.of(
                new String[] {"CMS.INITBYDIM", "cms" + tag, "2000", "5"},
                new String[] {"TOPK.RESERVE", "top" + tag, "5", "50", "4", "0.9"},
                new String[] {"TDIGEST.CREATE", "td" + tag},
                new String[] {"CF.RESERVE", "cf" + tag, "100000"},
                new String[] {"DEDUP.RESERVE", "dx" + tag, "1d", "EXACT", "CAPACITY", "100000"},
                new String[] {"DEDUP.RESERVE", "df" + tag, "1d", "FILTER", "0.01", "100000"},
                new String[] {"DEDUP.RESERVE", "dr" + tag, "1d", "RECENT", "4096"},
                new String[] {"IDEMKEY.RESERVE", "ik" + tag, "1d", "LEASE", "2s"})) {
          try (Connection conn = provider.getConnectionFromSlot(Slots.of(b(c[1])))) {
            assertThat(s(conn.executeCommand(raw(c)))).as(String.join(" ", c)).isEqualTo("OK");
          }
        }
        // A grouped queue whose groups lease at most two jobs at once, and a queue a schedule
        // adds a run to every half second (every missed run caught up after a failover).
        for (String[] c :
            List.of(
                new String[] {"QUEUE.CONFIG", "gq" + tag, "GROUP-CONCURRENCY", "2"},
                new String[] {
                  "QUEUE.SCHEDULE",
                  "sq" + tag,
                  "tick",
                  "EVERY",
                  "500ms",
                  "ALIGN",
                  "run",
                  "ATTEMPTS",
                  "1000",
                  "MISSED",
                  "ALL"
                })) {
          try (Connection conn = provider.getConnectionFromSlot(Slots.of(b(c[1])))) {
            assertThat(conn.executeCommand(raw(c))).as(String.join(" ", c)).isNotNull();
          }
        }
      }
    }

    /** The queues the workers take jobs from, for a tag. */
    static List<String> queues(String tag) {
      return List.of("q" + tag, "gq" + tag, "fq" + tag, "sq" + tag);
    }

    /** After the load: the schedules stop, so that the queues can drain. */
    void unschedule(ClusterConnectionProvider provider) throws InterruptedException {
      for (int t = 0; t < TAGS; t++) {
        String queue = "sq{t" + t + "}";
        for (int attempt = 0; ; attempt++) {
          try (Connection conn = provider.getConnectionFromSlot(Slots.of(b(queue)))) {
            conn.executeCommand(raw("QUEUE.UNSCHEDULE", queue, "tick"));
            break;
          } catch (RuntimeException e) {
            assertThat(attempt).as("QUEUE.UNSCHEDULE %s: %s", queue, e).isLessThan(100);
            Thread.sleep(200);
            renew(provider);
          }
        }
      }
    }

    static redis.clients.jedis.CommandObject<Object> raw(String... words) {
      CommandArguments args = new CommandArguments(() -> b(words[0]));
      if (words.length > 1) {
        args.key(b(words[1]));
      }
      for (int i = 2; i < words.length; i++) {
        args.add(b(words[i]));
      }
      return new redis.clients.jedis.CommandObject<>(
          args, redis.clients.jedis.BuilderFactory.RAW_OBJECT);
    }

    /** One write of the mix, n its unique number: its words, and what it promises if acked. */
    record Write(String[] words, String family, String key, String item) {}

    static Write next(long n, Random r) {
      String tag = "{t" + r.nextInt(TAGS) + "}";
      String id = Long.toString(n);
      return switch (r.nextInt(17)) {
        case 0 ->
            new Write(new String[] {"BF.ADD", "bf" + tag, "i-" + id}, "bf", "bf" + tag, "i-" + id);
        case 1 ->
            new Write(new String[] {"CF.ADD", "cf" + tag, "c-" + id}, "cf", "cf" + tag, "c-" + id);
        case 2 ->
            new Write(
                new String[] {"CMS.INCRBY", "cms" + tag, "x-" + (n % 16), "1"}, null, null, null);
        case 3 ->
            new Write(
                new String[] {
                  "TOPK.ADD", "top" + tag, n % 3 == 0 ? "heavy-" + n % 5 : "light-" + id
                },
                null,
                null,
                null);
        case 4 ->
            new Write(
                new String[] {"TDIGEST.ADD", "td" + tag, Long.toString(n % 1000)},
                null,
                null,
                null);
        case 5 -> new Write(new String[] {"PFADD", "hll" + tag, "h-" + id}, null, null, null);
        case 6, 7, 8 -> {
          String mode = new String[] {"dx", "df", "dr"}[(int) (n % 3)];
          // Every other claim repeats an earlier id (same writer): a duplicate or a reclaim.
          String claimed = "id-" + (n % 2 == 0 ? id : Long.toString(n / 2));
          yield new Write(
              new String[] {"DEDUP.CLAIM", mode + tag, claimed, "owner-" + id},
              mode.equals("dr") ? null : "dedup",
              mode + tag,
              claimed);
        }
        case 9 ->
            new Write(
                new String[] {"COUNTER.INCRBY", "cnt" + tag, "*", "n", "1"}, null, null, null);
        case 10 ->
            new Write(
                new String[] {"DISTINCT.ADD", "ds" + tag, "*", "u", "m-" + (n % 100)},
                null,
                null,
                null);
        case 11 ->
            new Write(
                new String[] {
                  "QUEUE.ADD",
                  "q" + tag,
                  "p-" + id,
                  "ID",
                  "job-" + id,
                  "ATTEMPTS",
                  "1000",
                  "BACKOFF",
                  "EXPONENTIAL",
                  "10ms",
                  "MAX",
                  "200ms"
                },
                "queue",
                "q" + tag,
                "job-" + id);
        case 14 ->
            new Write(
                new String[] {
                  "QUEUE.ADD",
                  "gq" + tag,
                  "p-" + id,
                  "ID",
                  "job-" + id,
                  "GROUP",
                  "g" + n % 4,
                  "ATTEMPTS",
                  "1000",
                  "BACKOFF",
                  "FIXED",
                  "20ms"
                },
                "queue",
                "gq" + tag,
                "job-" + id);
        case 15 ->
            new Write(
                new String[] {
                  "QUEUE.FLOW",
                  "fq" + tag,
                  "parent",
                  "ID",
                  "fp-" + id,
                  "ATTEMPTS",
                  "1000",
                  "CHILD",
                  "part",
                  "ID",
                  "fp-" + id + "-c0",
                  "ATTEMPTS",
                  "1000",
                  "CHILD",
                  "part",
                  "ID",
                  "fp-" + id + "-c1",
                  "ATTEMPTS",
                  "1000"
                },
                "flow",
                "fq" + tag,
                "fp-" + id);
        case 16 ->
            new Write(
                new String[] {"COUNTER.ALLOW", "allow" + tag, "*", "u" + n % 5, "50", "1m"},
                null,
                null,
                null);
        case 12 ->
            new Write(
                new String[] {"CL.THROTTLE", "lim" + tag, "5", "20", "1", Long.toString(n % 3)},
                null,
                null,
                null);
        default ->
            n % 2 == 0
                ? new Write(new String[] {"BF.ADD", "ex" + tag, "e-" + id}, null, null, null)
                : new Write(new String[] {"PEXPIRE", "ex" + tag, ttl(r)}, null, null, null);
      };
    }

    /**
     * Mostly a few seconds, so keys expire while nodes' clocks disagree; now and then an hour, so
     * what happened to a key before stays to be compared.
     */
    static String ttl(Random r) {
      return Integer.toString(r.nextInt(5) == 0 ? 3_600_000 : 500 + r.nextInt(4500));
    }

    void acknowledge(Write w) {
      acked.incrementAndGet();
      ackedWrites.add(signature(w.words()));
      if ("queue".equals(w.family())) {
        ackedJobs.computeIfAbsent(w.key(), k -> ConcurrentHashMap.newKeySet()).add(w.item());
      } else if ("flow".equals(w.family())) {
        Set<String> jobs = ackedJobs.computeIfAbsent(w.key(), k -> ConcurrentHashMap.newKeySet());
        List<String> children = List.of(w.item() + "-c0", w.item() + "-c1");
        jobs.add(w.item());
        jobs.addAll(children);
        ackedFlows.put(
            w.key() + " " + w.item(), children.stream().map(c -> w.key() + " " + c).toList());
      } else if (w.family() != null) {
        ackedItems.computeIfAbsent(w.key(), k -> ConcurrentHashMap.newKeySet()).add(w.item());
      }
    }

    /** Pipelines of 1 to 40 writes, and now and then a transaction, until told to stop. */
    void write(ClusterConnectionProvider provider, long first) {
      Random r = new Random(seed * 31 + first);
      long n = first;
      while (!stop.get()) {
        if (r.nextInt(10) == 0) {
          transaction(provider, n++, r);
          continue;
        }
        List<Write> writes = new ArrayList<>();
        List<Response<Object>> replies = new ArrayList<>();
        boolean broken = false;
        try (ClusterPipeline pipeline = new ClusterPipeline(provider, RedisProtocol.RESP2)) {
          for (int i = 1 + r.nextInt(40); i > 0; i--) {
            Write w = next(n++, r);
            writes.add(w);
            replies.add(pipeline.executeCommand(raw(w.words())));
          }
          pipeline.sync();
        } catch (RuntimeException e) {
          broken = true;
        }
        for (int i = 0; i < writes.size(); i++) {
          try {
            replies.get(i).get();
            acknowledge(writes.get(i));
          } catch (RuntimeException e) {
            failed.incrementAndGet(); // not acknowledged: applied or not, nothing is promised
            broken = true;
          }
        }
        if (broken) {
          pause(100);
          renew(provider);
        }
      }
    }

    /** MULTI, a counter's increment and a filter's add on one slot, EXEC. */
    void transaction(ClusterConnectionProvider provider, long n, Random r) {
      String tag = "{t" + r.nextInt(TAGS) + "}";
      Write count =
          new Write(new String[] {"COUNTER.INCRBY", "tx" + tag, "*", "n", "1"}, null, null, null);
      Write add =
          new Write(new String[] {"BF.ADD", "txbf" + tag, "t-" + n}, "bf", "txbf" + tag, "t-" + n);
      try (Connection conn = provider.getConnectionFromSlot(Slots.of(b(tag)));
          Transaction t = new Transaction(conn, true, false)) {
        Response<Object> a = t.executeCommand(raw(count.words()));
        Response<Object> c = t.executeCommand(raw(add.words()));
        List<Object> replies = t.exec();
        if (replies != null && replies.size() == 2) {
          a.get();
          c.get();
          acknowledge(count);
          acknowledge(add);
          return;
        }
        failed.incrementAndGet();
      } catch (RuntimeException e) {
        failed.incrementAndGet();
        pause(100);
        renew(provider);
      }
    }

    static void pause(long ms) {
      try {
        Thread.sleep(ms);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    static void renew(ClusterConnectionProvider provider) {
      try {
        provider.renewSlotCache();
      } catch (RuntimeException e) {
        // every node it knows may be down for a moment; the next failure tries again
      }
    }

    /**
     * Reserves from every queue, acks most jobs, fails some, and leaves some to their lease's end
     * (as a worker that died would), until told to stop; records every delivery and every ack.
     */
    void work(ClusterConnectionProvider provider, long leaseMs) {
      Random r = new Random(seed * 17);
      while (!stop.get()) {
        workOnce(provider, r, leaseMs, true);
      }
    }

    /** One round over the queues; the jobs it saw. */
    int workOnce(ClusterConnectionProvider provider, Random r, long leaseMs, boolean misbehave) {
      int seen = 0;
      for (int t = 0; t < TAGS * 4; t++) {
        String queue = queues("{t" + t / 4 + "}").get(t % 4);
        List<?> jobs;
        try (Connection conn = provider.getConnectionFromSlot(Slots.of(b(queue)))) {
          // The plain queue's reserves return at once; the others block a moment when empty
          // (through the log on these nodes), as a worker's would.
          String[] reserve =
              t % 4 == 0
                  ? new String[] {"QUEUE.RESERVE", queue, "COUNT", "20", "LEASE", leaseMs + "ms"}
                  : new String[] {
                    "QUEUE.RESERVE", queue, "COUNT", "20", "LEASE", leaseMs + "ms", "BLOCK", "20ms"
                  };
          jobs = (List<?>) conn.executeCommand(raw(reserve));
        } catch (RuntimeException e) {
          pause(100);
          renew(provider);
          continue;
        }
        if (jobs == null) {
          continue;
        }
        for (Object o : jobs) {
          List<?> job = (List<?>) o;
          String id = s(job.get(0));
          long token = Long.parseLong(s(job.get(2)));
          seen++;
          deliveries
              .computeIfAbsent(
                  queue + " " + id, k -> java.util.Collections.synchronizedList(new ArrayList<>()))
              .add(token);
          int fate = misbehave ? r.nextInt(10) : 0;
          if (fate == 9) {
            continue; // as a worker that died: the lease runs out, the job comes back
          }
          String[] cmd =
              fate == 8
                  ? new String[] {"QUEUE.FAIL", queue, id, Long.toString(token), "try again"}
                  : new String[] {"QUEUE.ACK", queue, id, Long.toString(token)};
          try (Connection conn = provider.getConnectionFromSlot(Slots.of(b(queue)))) {
            Object reply = conn.executeCommand(raw(cmd));
            if (fate != 8 && Long.valueOf(1).equals(reply)) {
              Long before = done.putIfAbsent(queue + " " + id, token);
              if (before != null) {
                doubleAcks.incrementAndGet();
                doubleAcked.add(
                    conn
                        + " "
                        + queue
                        + " "
                        + id
                        + " acked under "
                        + before
                        + " then "
                        + token
                        + ", leased under "
                        + deliveries.get(queue + " " + id));
              }
            }
          } catch (RuntimeException e) {
            // Unanswered: the job may be done or not (its lease decides); the log will say.
            if (fate != 8) {
              unanswered.computeIfAbsent(queue + " " + id, k -> ConcurrentHashMap.newKeySet());
              unanswered.get(queue + " " + id).add(signature(cmd));
            }
            pause(100);
            renew(provider);
          }
        }
      }
      return seen;
    }

    /**
     * API requests under idempotency keys, a third of them retries of an earlier key, until told to
     * stop: a begin that starts a key completes it with a result naming its token, abandons it now
     * and then, or leaves it to its lease's end (a caller that died); records every token handed
     * out, every result stored and every result answered.
     */
    void idempotency(ClusterConnectionProvider provider) {
      Random r = new Random(seed * 13);
      for (long n = 0; !stop.get(); n++) {
        long request = n > 10 && r.nextInt(3) == 0 ? r.nextLong(n) : n;
        String table = "ik{t" + request % TAGS + "}";
        String id = "req-" + request;
        String name = table + " " + id;
        List<?> begun;
        String[] plain = {
          "IDEMKEY.BEGIN", table, id, "FINGERPRINT", "fp-" + request, "LEASE", "2000ms"
        };
        // Half the retries wait for the first caller, on their node, which writes the plain begin
        // to the log.
        String[] begin =
            request < n && r.nextBoolean()
                ? java.util.stream.Stream.concat(
                        java.util.Arrays.stream(plain), java.util.stream.Stream.of("WAIT", "1s"))
                    .toArray(String[]::new)
                : plain;
        try (Connection conn = provider.getConnectionFromSlot(Slots.of(b(table)))) {
          begun = (List<?>) conn.executeCommand(raw(begin));
        } catch (RuntimeException e) {
          failed.incrementAndGet();
          pause(100);
          renew(provider);
          continue;
        }
        switch (s(begun.get(0))) {
          case "started" -> {
            long token = (Long) begun.get(1);
            acked.incrementAndGet();
            ackedWrites.add(signature(plain));
            idemTokens
                .computeIfAbsent(
                    name, k -> java.util.Collections.synchronizedList(new ArrayList<>()))
                .add(token);
            int fate = r.nextInt(10);
            if (fate == 9) {
              continue; // as a caller that died: the lease runs out, a retry takes the key over
            }
            String result = "result of " + id + " under " + token;
            String[] end =
                fate == 8
                    ? new String[] {"IDEMKEY.ABANDON", table, id, Long.toString(token)}
                    : new String[] {"IDEMKEY.COMPLETE", table, id, Long.toString(token), result};
            try (Connection conn = provider.getConnectionFromSlot(Slots.of(b(table)))) {
              Object reply = conn.executeCommand(raw(end));
              if (fate != 8 && Long.valueOf(1).equals(reply)) {
                acked.incrementAndGet();
                ackedWrites.add(signature(end));
                if (idemStored.putIfAbsent(name, result) != null) {
                  idemDoubleStores.incrementAndGet();
                }
              }
            } catch (RuntimeException e) {
              if (fate != 8) {
                idemUnanswered
                    .computeIfAbsent(name, k -> ConcurrentHashMap.newKeySet())
                    .add(result);
              }
              failed.incrementAndGet();
              pause(100);
              renew(provider);
            }
          }
          case "done" ->
              idemAnswers
                  .computeIfAbsent(name, k -> ConcurrentHashMap.newKeySet())
                  .add(s(begun.get(1)));
          case "mismatch" -> idemMismatches.incrementAndGet();
          default -> {} // in progress: another request holds it
        }
      }
    }

    /**
     * Idempotency keys after the run: one result stored a key, every done answer that result (or,
     * when no complete's reply came, one of the unanswered completes'), a token never handed out
     * twice, and every holder answers a stored key's result.
     */
    void checkIdempotency() throws IOException {
      assertThat(idemStored).as("idempotency keys stored").isNotEmpty();
      assertThat(idemDoubleStores.get()).as("keys two completes stored").isZero();
      assertThat(idemMismatches.get()).as("mismatches of equal fingerprints").isZero();
      for (Map.Entry<String, List<Long>> t : idemTokens.entrySet()) {
        assertThat(new HashSet<>(t.getValue()))
            .as("tokens of %s", t.getKey())
            .hasSameSizeAs(t.getValue());
      }
      for (Map.Entry<String, Set<String>> a : idemAnswers.entrySet()) {
        assertThat(a.getValue()).as("the results %s was answered with", a.getKey()).hasSize(1);
        String answer = a.getValue().iterator().next();
        String stored = idemStored.get(a.getKey());
        if (stored != null) {
          assertThat(answer)
              .as("%s's answer against its stored result", a.getKey())
              .isEqualTo(stored);
        } else {
          assertThat(idemUnanswered.getOrDefault(a.getKey(), Set.of()))
              .as("%s answered a result no complete sent", a.getKey())
              .contains(answer);
        }
      }
      for (Map.Entry<String, String> e : idemStored.entrySet()) {
        String table = e.getKey().substring(0, e.getKey().indexOf(' '));
        String id = e.getKey().substring(e.getKey().indexOf(' ') + 1);
        for (ClusterTopology.Node n : holders(table)) {
          try (RespClient c = new RespClient(n.port())) {
            List<?> state = (List<?>) c.call("IDEMKEY.GET", table, id);
            Map<String, String> fields = new HashMap<>();
            for (int i = 0; i + 1 < state.size(); i += 2) {
              fields.put(s(state.get(i)), s(state.get(i + 1)));
            }
            assertThat(fields)
                .as("%s on %s", e.getKey(), n.name())
                .containsEntry("state", "done")
                .containsEntry("result", e.getValue());
          }
        }
      }
    }

    /** After the faults: work until every queue is empty. */
    void drain(ClusterConnectionProvider provider) throws InterruptedException {
      renew(provider);
      long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      Random r = new Random(seed);
      while (System.nanoTime() < deadline) {
        workOnce(provider, r, 2000, false);
        boolean empty = true;
        for (int t = 0; t < TAGS * 4 && empty; t++) {
          String queue = queues("{t" + t / 4 + "}").get(t % 4);
          try (Connection conn = provider.getConnectionFromSlot(Slots.of(b(queue)))) {
            List<?> info = (List<?>) conn.executeCommand(raw("QUEUE.INFO", queue));
            for (int i = 1; i < info.size(); i += 2) {
              empty &= (Long) info.get(i) == 0;
            }
          } catch (RuntimeException e) {
            if (String.valueOf(e.getMessage()).contains("no such queue")) {
              continue; // no add of this queue's reached the log
            }
            System.out.println("fault-run: QUEUE.INFO " + queue + ": " + e);
            empty = false;
            renew(provider);
          }
        }
        if (empty) {
          return;
        }
        Thread.sleep(200);
      }
      StringBuilder left = new StringBuilder();
      for (int t = 0; t < TAGS * 4; t++) {
        String queue = queues("{t" + t / 4 + "}").get(t % 4);
        for (ClusterTopology.Node n : holders(queue)) {
          try (RespClient c = new RespClient(n.port())) {
            left.append(queue).append(" on ").append(n.name()).append(' ');
            left.append(s(c.call("QUEUE.INFO", queue))).append("; ");
          } catch (IOException e) {
            left.append(e).append("; ");
          }
        }
      }
      throw new AssertionError("the queues did not drain in 120 s: " + left);
    }

    /** The faults, one at a time, at random points, until the run's time is up. */
    void inject(Random random) throws Exception {
      long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
      List<Integer> kinds = new ArrayList<>();
      while (System.nanoTime() < end) {
        if (kinds.isEmpty()) { // each kind once in every four faults, in a seeded order
          kinds.addAll(List.of(0, 1, 2, 3));
          java.util.Collections.shuffle(kinds, random);
        }
        Thread.sleep(500 + random.nextInt(2500));
        int victim = random.nextInt(3);
        switch (kinds.removeLast()) {
          case 0 -> {
            faults.add("kill " + NAMES[victim]);
            nodes[victim].kill();
            Thread.sleep(random.nextInt(3000));
            start(victim);
          }
          case 1 -> {
            faults.add("pause " + NAMES[victim]);
            nodes[victim].signal("STOP");
            Thread.sleep(NODE_TIMEOUT_MS + 500 + random.nextInt(2000));
            nodes[victim].signal("CONT");
          }
          case 2 -> {
            long offset = (random.nextBoolean() ? 1 : -1) * (500 + random.nextInt(4500));
            faults.add("clock " + NAMES[victim] + " " + offset + "ms");
            nodes[victim].kill();
            clockOffsets[victim] = offset;
            start(victim);
          }
          default -> {
            faults.add("kill broker");
            broker.kill();
            Thread.sleep(500 + random.nextInt(3000));
            broker.restart();
          }
        }
        long waited = System.nanoTime();
        awaitAllLive();
        faults.add(faults.removeLast() + " (" + (System.nanoTime() - waited) / 1_000_000 + " ms)");
      }
    }

    /** Every record of the topic: its commands' signatures, and the model's counts. */
    Map<String, Long> readTopic(Set<String> signatures) {
      Map<String, Long> counts = new HashMap<>();
      try (KafkaConsumer<byte[], byte[]> consumer =
          new KafkaConsumer<>(
              Map.of(
                  "bootstrap.servers", broker.bootstrapServers(),
                  "key.deserializer", ByteArrayDeserializer.class.getName(),
                  "value.deserializer", ByteArrayDeserializer.class.getName()))) {
        List<TopicPartition> all = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
          all.add(new TopicPartition(TOPIC, p));
        }
        consumer.assign(all);
        consumer.seekToBeginning(all);
        Map<TopicPartition, Long> end = consumer.endOffsets(all);
        while (all.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
          for (ConsumerRecord<byte[], byte[]> rec : consumer.poll(Duration.ofMillis(200))) {
            for (List<byte[]> c : CommandRecord.decode(rec.value()).commands()) {
              signatures.add(signature(c));
              String name = new String(c.get(0), StandardCharsets.UTF_8);
              String key = new String(c.get(1), StandardCharsets.UTF_8);
              if (name.equals("COUNTER.INCRBY")) {
                counts.merge(key, 1L, Long::sum);
              } else if (name.equals("CMS.INCRBY")) {
                counts.merge(
                    key + " " + new String(c.get(2), StandardCharsets.UTF_8), 1L, Long::sum);
              }
            }
          }
        }
      } catch (CommandRecord.BadRecordException e) {
        throw new AssertionError("Idem wrote a record it cannot read", e);
      }
      return counts;
    }

    /** The nodes that hold the key's partition. */
    List<ClusterTopology.Node> holders(String key) {
      int slot = Slots.of(b(key));
      int owner = 0;
      while (slot > topology.slotRange(owner)[1]) {
        owner++;
      }
      return topology.servers(owner);
    }

    /** A queue's figures and jobs on the node at port, to say how two replicas differ. */
    static String queueState(int port, String key) {
      if (!key.contains("q{")) {
        return "";
      }
      try (RespClient c = new RespClient(port)) {
        return " info "
            + RespClient.text(c.call("QUEUE.INFO", key))
            + " groups "
            + RespClient.text(c.call("QUEUE.GROUPS", key))
            + " jobs "
            + RespClient.text(c.call("QUEUE.JOBS", key, "COUNT", "1000"));
      } catch (Exception e) {
        return " (" + e + ")";
      }
    }

    /** Each key's digest on the node at port, once it has applied its log to the end. */
    static Map<String, String> digests(int port, List<String> partitionKeys) throws IOException {
      try (RespClient c = new RespClient(port)) {
        for (String key : partitionKeys) {
          Object waited = c.call("WAITLOG", key, "60000");
          assertThat(waited).as("WAITLOG %s on %d", key, port).isInstanceOf(Long.class);
        }
        Map<String, String> out = new HashMap<>();
        for (Object k : (List<?>) c.call("KEYS", "*")) {
          out.put(s(k), s(c.call("DEBUG", "DIGEST-VALUE", s(k))));
        }
        return out;
      }
    }

    void check() throws Exception {
      assertThat(acked.get()).as("acknowledged writes").isGreaterThan(200);

      // A fresh node, alone, replays the whole topic: the state the log defines.
      int freshPort = freePort();
      try (ServerProcess fresh =
          ServerProcess.start(
              dir.resolve("fresh"),
              "port",
              Integer.toString(freshPort),
              "cluster-enabled",
              "yes",
              "cluster-node",
              "fresh",
              "cluster-nodes",
              "fresh=127.0.0.1:" + freshPort,
              "cluster-partitions",
              Integer.toString(PARTITIONS),
              "cluster-log",
              broker.bootstrapServers())) {
        List<String> partitionKeys = LoneNode.keyInEachPartition(PARTITIONS);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        List<String> differing;
        Map<String, String> want;
        do {
          // Keys due to expire are deleted by records the acting nodes write: let them land.
          want = digests(freshPort, partitionKeys);
          differing = new ArrayList<>();
          Map<String, Map<String, String>> byNode = new HashMap<>();
          for (int i = 0; i < 3; i++) {
            byNode.put(NAMES[i], digestsOfHeld(i, partitionKeys));
          }
          Set<String> keys = new TreeSet<>(want.keySet());
          byNode.values().forEach(m -> keys.addAll(m.keySet()));
          for (String key : keys) {
            for (ClusterTopology.Node holder : holders(key)) {
              String got = byNode.get(holder.name()).get(key);
              if (!java.util.Objects.equals(got, want.get(key))) {
                differing.add(
                    key
                        + " on "
                        + holder.name()
                        + ": "
                        + got
                        + " (log: "
                        + want.get(key)
                        + ")"
                        + queueState(
                            ports[java.util.Arrays.asList(NAMES).indexOf(holder.name())], key)
                        + " against the replay's"
                        + queueState(freshPort, key));
              }
            }
          }
          if (!differing.isEmpty()) {
            Thread.sleep(500);
          }
        } while (!differing.isEmpty() && System.nanoTime() < deadline);
        assertThat(differing).as("keys whose replicas differ from the log's replay").isEmpty();
        assertThat(doubleAcks.get()).as("jobs acked twice: %s", doubleAcked).isZero();
        assertThat(want).as("keys the log holds").hasSizeGreaterThan(TAGS * 5);
      }

      Set<String> inLog = new HashSet<>();
      Map<String, Long> model = readTopic(inLog);
      List<String> missing = new ArrayList<>();
      for (String w : ackedWrites) {
        if (!inLog.contains(w)) {
          missing.add(w.replace('\u0000', ' '));
        }
      }
      assertThat(missing).as("acknowledged writes not in the log").isEmpty();

      for (int i = 0; i < 3; i++) {
        try (RespClient c = new RespClient(ports[i])) {
          checkNode(i, c, model);
        }
      }
      checkIdempotency();

      // Queues: every acknowledged add done exactly once, and never handed out after its ack.
      // A job no ack answered 1 for was done by an ack whose reply was lost: that ack is in the
      // log.
      List<String> lost = new ArrayList<>();
      for (Map.Entry<String, Set<String>> q : ackedJobs.entrySet()) {
        for (String job : q.getValue()) {
          String name = q.getKey() + " " + job;
          if (!done.containsKey(name)
              && unanswered.getOrDefault(name, Set.of()).stream().noneMatch(inLog::contains)) {
            lost.add(name + " (delivered with " + deliveries.get(name) + ")");
          }
        }
      }
      assertThat(lost).as("jobs added and acknowledged, never done").isEmpty();
      for (Map.Entry<String, Long> d : done.entrySet()) {
        for (long token : deliveries.get(d.getKey())) {
          assertThat(token)
              .as("a delivery of %s after its ack", d.getKey())
              .isLessThanOrEqualTo(d.getValue());
        }
      }
      // Flows: no parent ran before its children were done (a queue's tokens count up, so every
      // delivery of a child precedes every delivery of its parent).
      for (Map.Entry<String, List<String>> f : ackedFlows.entrySet()) {
        long firstOfParent =
            deliveries.getOrDefault(f.getKey(), List.of()).stream()
                .mapToLong(Long::longValue)
                .min()
                .orElse(Long.MAX_VALUE);
        for (String child : f.getValue()) {
          for (long token : deliveries.getOrDefault(child, List.of())) {
            assertThat(token)
                .as("%s delivered after its parent %s ran", child, f.getKey())
                .isLessThan(firstOfParent);
          }
        }
      }
      assertThat(ackedFlows).as("acknowledged flows").isNotEmpty();
      // Schedules: the runs done are contiguous, every half second, across every failover.
      Map<String, TreeSet<Long>> runs = new HashMap<>();
      for (String name : deliveries.keySet()) {
        if (name.startsWith("sq")) {
          runs.computeIfAbsent(name.substring(0, name.indexOf(' ')), k -> new TreeSet<>())
              .add(Long.parseLong(name.substring(name.lastIndexOf(':') + 1)));
        }
      }
      assertThat(runs).as("queues with runs").hasSize(TAGS);
      for (Map.Entry<String, TreeSet<Long>> q : runs.entrySet()) {
        long expected = q.getValue().first();
        for (long run : q.getValue()) {
          assertThat(run)
              .as("the next run of %s after %d", q.getKey(), expected - 500)
              .isEqualTo(expected);
          expected += 500;
        }
        assertThat(q.getValue()).as("runs of %s", q.getKey()).hasSizeGreaterThan(10);
      }
      Set<Long> tokens = new HashSet<>();
      for (Map.Entry<String, List<Long>> d : deliveries.entrySet()) {
        String queue = d.getKey().substring(0, d.getKey().indexOf(' '));
        for (long token : d.getValue()) {
          assertThat(tokens.add(token * 31 + queue.hashCode()))
              .as("token %d of %s handed out twice", token, queue)
              .isTrue();
        }
      }
    }

    Map<String, String> digestsOfHeld(int i, List<String> partitionKeys) throws IOException {
      List<String> held = new ArrayList<>();
      for (String k : partitionKeys) {
        if (holders(k).stream().anyMatch(n -> n.port() == ports[i])) {
          held.add(k);
        }
      }
      return digests(ports[i], held);
    }

    /** On node i: the exact counts, the acknowledged items, for the keys it holds. */
    void checkNode(int i, RespClient c, Map<String, Long> model) throws IOException {
      for (int t = 0; t < TAGS; t++) {
        String tag = "{t" + t + "}";
        if (holders(tag).stream().noneMatch(n -> n.port() == ports[i])) {
          continue;
        }
        for (String counter : List.of("cnt" + tag, "tx" + tag)) {
          List<?> r =
              (List<?>)
                  ((List<?>)
                          c.call(
                              "COUNTER.QUERY",
                              counter,
                              Long.toString(System.currentTimeMillis() + 60_000),
                              "2h",
                              "NAMES",
                              "n"))
                      .get(0);
          assertThat(r.get(0))
              .as("%s on %s against the log", counter, NAMES[i])
              .isEqualTo(model.getOrDefault(counter, 0L));
        }
        for (int x = 0; x < 16; x++) {
          String key = "cms" + tag;
          assertThat(((List<?>) c.call("CMS.QUERY", key, "x-" + x)).get(0))
              .as("%s x-%d on %s against the log", key, x, NAMES[i])
              .isEqualTo(model.getOrDefault(key + " x-" + x, 0L));
        }
      }
      for (Map.Entry<String, Set<String>> e : ackedItems.entrySet()) {
        String key = e.getKey();
        if (holders(key).stream().noneMatch(n -> n.port() == ports[i])) {
          continue;
        }
        String check =
            key.startsWith("cf") ? "CF.EXISTS" : key.startsWith("d") ? "DEDUP.EXISTS" : "BF.EXISTS";
        for (String item : e.getValue()) {
          assertThat(c.call(check, key, item))
              .as("%s %s %s on %s", check, key, item, NAMES[i])
              .isEqualTo(1L);
        }
      }
    }
  }
}
