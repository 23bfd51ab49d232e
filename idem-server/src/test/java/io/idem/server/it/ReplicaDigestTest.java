package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.cluster.CommandProducer;
import io.idem.server.cluster.KafkaBroker;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica is a function of its log: nodes that apply the same topic hold the same state, whatever
 * their clocks, memory limits and snapshot settings, and DEBUG DIGEST says so.
 */
class ReplicaDigestTest {

  private static final String TOPIC = "digest";
  private static final int PARTITIONS = 2;

  @TempDir Path dir;

  private static int freePort() throws IOException {
    return Ports.free();
  }

  /** A node alone in its cluster that applies every partition of the topic. */
  private ServerHarness node(KafkaBroker broker, String name, String... more) throws Exception {
    return new ServerHarness(
        dir.resolve(name),
        LoneNode.settings(freePort(), broker.bootstrapServers(), TOPIC, PARTITIONS, more));
  }

  /** The keys of either node whose digests differ, with both digests. */
  private static List<String> differing(RespClient a, RespClient b) throws IOException {
    java.util.TreeSet<String> keys = new java.util.TreeSet<>();
    for (Object k : (List<?>) a.call("KEYS", "*")) {
      keys.add(text(k));
    }
    for (Object k : (List<?>) b.call("KEYS", "*")) {
      keys.add(text(k));
    }
    List<String> out = new ArrayList<>();
    for (String k : keys) {
      String da = text(a.call("DEBUG", "DIGEST-VALUE", k));
      String db = text(b.call("DEBUG", "DIGEST-VALUE", k));
      if (!da.equals(db)) {
        out.add(k + " " + da + " " + db);
      }
    }
    return out;
  }

  private static String text(Object reply) {
    return RespClient.text(reply);
  }

  /** The node's digest once it has applied the log up to its end, in every partition. */
  private static String digestAtTheEnd(RespClient c) throws IOException {
    for (String key : LoneNode.keyInEachPartition(PARTITIONS)) {
      assertThat(c.call("WAITLOG", key, "20000")).isInstanceOf(Long.class);
    }
    return text(c.call("DEBUG", "DIGEST"));
  }

  /**
   * Records of every type from a producer that is not Idem, applied by a node whose clock is an
   * hour ahead and one whose clock is an hour behind, with other memory limits and snapshot
   * settings, and by a third that starts later and replays the topic: one digest. The keys with a
   * 10-minute TTL are due at once on the node ahead; it must not delete them, only ask the log to
   * (its EXPIREDUE records, stamped with its time, then delete them on every node alike).
   */
  @Test
  void nodesWithDifferentClocksAndSettings_applyingOneTopic_holdTheSameState() throws Exception {
    try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"))) {
      try (ServerHarness ahead = node(broker, "ahead", "test-clock-offset", "3600000");
          ServerHarness behind =
              node(
                  broker,
                  "behind",
                  "test-clock-offset",
                  "-3600000",
                  "maxmemory",
                  "64mb",
                  "snapshot-log-bytes",
                  "1mb",
                  "snapshot-interval",
                  "1");
          RespClient a = new RespClient(ahead.port());
          RespClient b = new RespClient(behind.port())) {
        try (CommandProducer idem =
            new CommandProducer(
                new KafkaProducer<>(
                    Map.of(
                        "bootstrap.servers", broker.bootstrapServers(),
                        "enable.idempotence", "true",
                        "acks", "all",
                        "key.serializer", ByteArraySerializer.class.getName(),
                        "value.serializer", ByteArraySerializer.class.getName())),
                TOPIC,
                PARTITIONS)) {
          idem.send("CMS.INITBYDIM", "cms", "100", "5");
          idem.send("TOPK.RESERVE", "top", "3", "8", "3", "0.9");
          idem.send("CF.RESERVE", "cf", "1000");
          idem.send("TDIGEST.CREATE", "td");
          idem.send("DEDUP.RESERVE", "d", "60");
          idem.send("IDEMKEY.RESERVE", "ik", "1h", "LEASE", "5ms");
          for (int i = 0; i < 400; i++) {
            idem.send("BF.ADD", "bf-" + (i % 20), "item-" + i);
            if (i % 20 == 0) {
              idem.send("PEXPIRE", "bf-" + (i % 40), "600000");
            }
            idem.send("CMS.INCRBY", "cms", "x-" + (i % 7), "1");
            idem.send("TOPK.ADD", "top", i % 3 == 0 ? "heavy-" + (i % 9) : "light-" + i);
            idem.send("CF.ADD", "cf", "c-" + (i % 50));
            idem.send("TDIGEST.ADD", "td", Integer.toString(i));
            idem.send("DEDUP.CLAIM", "d", "id-" + (i % 50), "owner-" + i);
            idem.send("PFADD", "hll", "h-" + i);
            idem.send("QUEUE.ADD", "q", "job-" + i, "ATTEMPTS", "2");
            if (i % 5 == 0) {
              idem.send("QUEUE.RESERVE", "q", "COUNT", "3", "LEASE", "1s");
            }
            // Bulk adds, cancels of jobs in every state, pauses, progress under guessed tokens.
            if (i % 10 == 0) {
              idem.send("QUEUE.MADD", "q", "ATTEMPTS", "2", "JOB", "m-" + i, "JOB", "n-" + i);
            }
            if (i % 13 == 0) {
              idem.send("QUEUE.CANCEL", "q", Integer.toString(i / 2 + 1), "nope");
            }
            if (i % 17 == 0) {
              idem.send(i % 34 == 0 ? "QUEUE.PAUSE" : "QUEUE.RESUME", "q");
            }
            if (i % 11 == 0) {
              idem.send("QUEUE.PROGRESS", "q", Integer.toString(i / 3 + 1), "1", "p" + i);
            }
            // A grouped queue with limits, decided at each record's time: weights, a rate that
            // holds a group back, a concurrency limit, leases that end.
            if (i == 0) {
              idem.send("QUEUE.CONFIG", "gq", "GROUP-CONCURRENCY", "2", "RATE", "200", "1s");
              idem.send("QUEUE.GROUP", "gq", "heavy", "WEIGHT", "3");
              idem.send("QUEUE.GROUP", "gq", "slow", "RATE", "5", "1s");
            }
            idem.send(
                "QUEUE.ADD",
                "gq",
                "j" + i,
                "GROUP",
                List.of("heavy", "slow", "t" + i % 5).get(i % 3));
            if (i % 3 == 0) {
              idem.send("QUEUE.RESERVE", "gq", "COUNT", "4", "LEASE", "300ms");
            }
            // Results kept as rows (completions under guessed tokens store nothing), and a
            // sliding-window limiter decided at each record's time.
            if (i == 0) {
              idem.send("QUEUE.CONFIG", "q", "RESULTS", "1h");
            }
            if (i % 9 == 0) {
              idem.send("QUEUE.COMPLETE", "q", Integer.toString(i / 4 + 1), "1", "RESULT", "r" + i);
            }
            idem.send("COUNTER.ALLOW", "allow", "*", "u" + i % 3, "40", "1m");
            // Begins that lapse and are taken over at later records' times; guessed tokens that
            // complete nothing; a record asking to WAIT, which every node answers without waiting.
            idem.send("IDEMKEY.BEGIN", "ik", "k-" + (i % 30), "FINGERPRINT", "f" + (i % 2));
            if (i % 7 == 0) {
              idem.send("IDEMKEY.COMPLETE", "ik", "k-" + (i % 30), Integer.toString(i + 1), "r");
            }
            if (i % 50 == 0) {
              idem.send("IDEMKEY.BEGIN", "ik", "w-" + i, "WAIT", "1s");
            }
            // Limiters decided at each record's time: some let through, some limited, some
            // expiring (ten a second, bursts of 3) while one outlasts the test.
            idem.send("CL.THROTTLE", "lim-" + (i % 4), "2", "10", "1", Integer.toString(i % 3));
            idem.send("CL.THROTTLE", "lim-hour", "99", "1", "3600");
          }
        }
        // A waiting begin through a node writes a plain begin: a free key is started at once.
        assertThat(
                RespClient.text(
                    ((List<?>) a.call("IDEMKEY.BEGIN", "ik", "x", "WAIT", "1s")).get(0)))
            .isEqualTo("started");
        // Begun and completed through a node, with the tokens it answered: the results are rows
        // on every node.
        for (int i = 0; i < 20; i++) {
          Object begun = a.call("IDEMKEY.BEGIN", "ik", "done-" + i, "LEASE", "1h");
          long token = (Long) ((java.util.List<?>) begun).get(1);
          assertThat(a.call("IDEMKEY.COMPLETE", "ik", "done-" + i, Long.toString(token), "r" + i))
              .isEqualTo(1L);
        }
        // Completed with results through a node: the results are rows on every node.
        for (int i = 0; i < 10; i++) {
          a.call("QUEUE.ADD", "results", "job", "ID", "j" + i);
        }
        a.call("QUEUE.CONFIG", "results", "RESULTS", "1h");
        for (Object job :
            (java.util.List<?>) a.call("QUEUE.RESERVE", "results", "COUNT", "10", "LEASE", "1h")) {
          java.util.List<?> f = (java.util.List<?>) job;
          String id = RespClient.text(f.get(0));
          assertThat(
                  RespClient.text(
                      a.call(
                          "QUEUE.COMPLETE",
                          "results",
                          id,
                          Long.toString((Long) f.get(2)),
                          "RESULT",
                          "r-" + id)))
              .isEqualTo("done");
        }
        String onA = digestAtTheEnd(a);
        String onB = digestAtTheEnd(b);
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!onA.equals(onB) && System.nanoTime() < deadline) {
          Thread.sleep(200); // the node ahead's EXPIREDUE records on their way
          onA = digestAtTheEnd(a);
          onB = digestAtTheEnd(b);
        }
        assertThat(differing(a, b)).as("keys whose digests differ").isEmpty();
        assertThat(onA).isEqualTo(onB).isNotEqualTo("0".repeat(40));
        assertThat(a.call("DBSIZE")).isEqualTo(b.call("DBSIZE"));
        try (ServerHarness late = node(broker, "late");
            RespClient c = new RespClient(late.port())) {
          // Against the first node's digest now: records it sent since (EXPIREDUE) reach both.
          String onC = digestAtTheEnd(c);
          String nowOnA = digestAtTheEnd(a);
          long lateDeadline = System.nanoTime() + 30_000_000_000L;
          while (!onC.equals(nowOnA) && System.nanoTime() < lateDeadline) {
            Thread.sleep(200);
            onC = digestAtTheEnd(c);
            nowOnA = digestAtTheEnd(a);
          }
          assertThat(onC).isEqualTo(nowOnA).isNotEqualTo("0".repeat(40));
          assertThat(text(c.call("DEBUG", "DIGEST-VALUE", "cms", "missing")))
              .isEqualTo(text(a.call("DEBUG", "DIGEST-VALUE", "cms", "missing")));
        }
      }
    }
  }
}
