package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.cluster.ClusterTopology;
import io.idem.server.cluster.CommandRecord;
import io.idem.server.cluster.KafkaBroker;
import io.idem.server.cluster.Slots;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;

/**
 * Three nodes in their own processes, six partitions, two replicas each, under load from
 * JedisCluster, with nodes killed with SIGKILL at random points: no acknowledged write is lost, the
 * survivors keep serving the killed node's slots, a restarted node catches up, and at the end each
 * node's state equals its peers' and a model computed from the topic's records (exactly once).
 */
class ClusterFailoverTest {

  private static final String[] NAMES = {"a", "b", "c"};
  private static final int PARTITIONS = 6;
  private static final int KEYS = 24;

  @TempDir Path dir;

  private final int[] ports = new int[3];
  private final ServerProcess[] nodes = new ServerProcess[3];
  private String members;
  private String bootstrap;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static int freePort() throws IOException {
    return Ports.free();
  }

  private void start(int i) throws IOException {
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
            bootstrap,
            "cluster-node-timeout",
            "2000");
  }

  /** The field of INFO cluster on node i. */
  private String infoField(int i, String field) throws IOException {
    try (RespClient c = new RespClient(ports[i])) {
      String info = new String((byte[]) c.call("INFO", "cluster"), StandardCharsets.UTF_8);
      for (String line : info.split("\r\n")) {
        if (line.startsWith(field + ":")) {
          return line.substring(field.length() + 1);
        }
      }
      return "";
    }
  }

  /** Waits until every running node sees exactly the running nodes as live. */
  private void awaitLiveView() throws Exception {
    StringBuilder want = new StringBuilder();
    for (int i = 0; i < 3; i++) {
      if (nodes[i] != null) {
        want.append(want.isEmpty() ? "" : ",").append(NAMES[i]);
      }
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      boolean all = true;
      for (int i = 0; i < 3; i++) {
        if (nodes[i] != null && !infoField(i, "cluster_live_nodes").contentEquals(want)) {
          all = false;
        }
      }
      if (all) {
        return;
      }
      assertThat(System.nanoTime()).as("live nodes " + want).isLessThan(deadline);
      Thread.sleep(100);
    }
  }

  /** Writes one BF.ADD or COUNTER.INCRBY after another, and notes what was acknowledged. */
  private final class Load implements Runnable {
    final AtomicBoolean stop = new AtomicBoolean();
    final Map<String, Set<String>> ackedItems = new ConcurrentHashMap<>();
    final Map<String, AtomicLong> ackedCounts = new ConcurrentHashMap<>();
    final AtomicLong acked = new AtomicLong();
    final AtomicLong failed = new AtomicLong();

    /** Acknowledged writes by key, in order, with the time they were acknowledged. */
    final List<long[]> ackTimes = java.util.Collections.synchronizedList(new ArrayList<>());

    @Override
    public void run() {
      Set<HostAndPort> seeds = Set.of(new HostAndPort("127.0.0.1", ports[0]));
      DefaultJedisClientConfig config =
          DefaultJedisClientConfig.builder().socketTimeoutMillis(3000).build();
      try (JedisCluster jedis = new JedisCluster(seeds, config, 3, Duration.ofSeconds(5))) {
        for (long n = 0; !stop.get(); n++) {
          int k = (int) (n / 2 % KEYS); // each key of both kinds
          try {
            if (n % 2 == 0) {
              String key = "f:" + k;
              String item = "i-" + n;
              jedis.sendCommand(b(key), () -> b("BF.ADD"), b(key), b(item));
              ackedItems.computeIfAbsent(key, x -> ConcurrentHashMap.newKeySet()).add(item);
            } else {
              String key = "c:" + k;
              jedis.sendCommand(b(key), () -> b("COUNTER.INCRBY"), b(key), b("*"), b("n"), b("1"));
              ackedCounts.computeIfAbsent(key, x -> new AtomicLong()).incrementAndGet();
            }
            acked.incrementAndGet();
            ackTimes.add(
                new long[] {Slots.of(b(n % 2 == 0 ? "f:" + k : "c:" + k)), System.nanoTime()});
          } catch (RuntimeException e) {
            failed.incrementAndGet(); // not acknowledged: it may or may not have been applied
          }
        }
      }
    }
  }

  /** A digest of what node i holds at key: the filter's whole dump, or the counter's total. */
  private static String digest(RespClient c, String key) throws Exception {
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    if (key.startsWith("f:")) {
      long iter = 0;
      do {
        List<?> r = (List<?>) c.call("BF.SCANDUMP", key, Long.toString(iter));
        iter = (Long) r.get(0);
        if (r.get(1) instanceof byte[] chunk) {
          sha.update(chunk);
        }
      } while (iter != 0);
    } else {
      sha.update(b(String.valueOf(c.call("COUNTER.QUERY", key, "*", "24h", "NAMES", "n"))));
    }
    return HexFormat.of().formatHex(sha.digest());
  }

  private static long counter(RespClient c, String key) throws IOException {
    List<?> r = (List<?>) ((List<?>) c.call("COUNTER.QUERY", key, "*", "24h", "NAMES", "n")).get(0);
    return (Long) r.get(0);
  }

  /** COUNTER.INCRBY's increments by key, from every record in the topic. */
  private Map<String, Long> modelFromTopic() {
    Map<String, Long> model = new HashMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(
            Map.of(
                "bootstrap.servers", bootstrap,
                "key.deserializer", ByteArrayDeserializer.class.getName(),
                "value.deserializer", ByteArrayDeserializer.class.getName()))) {
      List<TopicPartition> all = new ArrayList<>();
      for (int p = 0; p < PARTITIONS; p++) {
        all.add(new TopicPartition("idem", p));
      }
      consumer.assign(all);
      consumer.seekToBeginning(all);
      Map<TopicPartition, Long> end = consumer.endOffsets(all);
      while (all.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          List<byte[]> args = CommandRecord.decode(r.value()).args();
          if (new String(args.get(0), StandardCharsets.UTF_8).equals("COUNTER.INCRBY")) {
            model.merge(
                new String(args.get(1), StandardCharsets.UTF_8),
                Long.parseLong(new String(args.get(4), StandardCharsets.UTF_8)),
                Long::sum);
          }
        }
      }
    } catch (CommandRecord.BadRecordException e) {
      throw new AssertionError("Idem wrote a record it cannot read", e);
    }
    return model;
  }

  /**
   * With a node down, Lettuce's cluster client (a new one: it reads the map the survivors give) and
   * {@code redis-cli -c} write to its slots through the node that took them over.
   */
  private void otherClientsReachTheSlotsOf(int victim, ClusterTopology topology) throws Exception {
    int[] range = topology.slotRange(victim);
    List<String> keys = new ArrayList<>();
    for (int k = 0; keys.size() < 21; k++) {
      int slot = Slots.of(b("other:" + k));
      if (slot >= range[0] && slot <= range[1]) {
        keys.add("other:" + k);
      }
    }
    int survivor = (victim + 1) % 3;
    RedisClusterClient client =
        RedisClusterClient.create(RedisURI.create("redis://127.0.0.1:" + ports[survivor]));
    try (StatefulRedisClusterConnection<String, String> conn = client.connect()) {
      for (String key : keys.subList(1, keys.size())) {
        assertThat(conn.sync().pfadd(key, "a", "b")).isEqualTo(1L);
        assertThat(conn.sync().pfcount(key)).isEqualTo(2L);
      }
      String acting = conn.getPartitions().getPartitionBySlot(range[0]).getUri().toString();
      assertThat(acting)
          .as("the acting primary of the killed node's slots")
          .contains(":" + ports[(victim + 1) % 3]);
    } finally {
      client.shutdown(0, 2, TimeUnit.SECONDS);
    }
    Process p =
        new ProcessBuilder(
                "redis-cli",
                "-c",
                "-p",
                Integer.toString(ports[survivor]),
                "BF.ADD",
                keys.get(0),
                "x")
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(out).isEqualTo("1");
  }

  @Test
  void killedNodes_loseNoAcknowledgedWrite_andEveryNodeConvergesToTheLog() throws Exception {
    for (int i = 0; i < 3; i++) {
      ports[i] = freePort();
    }
    members = "a=127.0.0.1:" + ports[0] + " b=127.0.0.1:" + ports[1] + " c=127.0.0.1:" + ports[2];
    ClusterTopology topology = ClusterTopology.parse(members, "a", PARTITIONS, 2);
    Random random = new Random(32);
    try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"))) {
      bootstrap = broker.bootstrapServers();
      try {
        for (int i = 0; i < 3; i++) {
          start(i);
        }
        awaitLiveView();
        Load load = new Load();
        Thread writer = Thread.ofPlatform().name("load").start(load);
        for (int round = 0; round < 3; round++) {
          int victim = round == 0 ? 1 : random.nextInt(3);
          Thread.sleep(500 + random.nextInt(1500));
          nodes[victim].kill();
          long killedAt = System.nanoTime();
          nodes[victim] = null;
          awaitLiveView(); // the others count it as failed after cluster-node-timeout
          // The survivors take writes for the killed node's own slots, through the client, once
          // it has moved to them (its retries back off for a few seconds).
          int[] range = topology.slotRange(victim);
          long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
          long servedAfter = 0;
          while (servedAfter == 0 && System.nanoTime() < until) {
            Thread.sleep(200);
            synchronized (load.ackTimes) {
              servedAfter =
                  load.ackTimes.stream()
                      .filter(t -> t[1] > killedAt && t[0] >= range[0] && t[0] <= range[1])
                      .count();
            }
          }
          assertThat(servedAfter)
              .as("writes to %s's slots after its kill", NAMES[victim])
              .isPositive();
          if (round == 0) {
            otherClientsReachTheSlotsOf(victim, topology);
          }
          start(victim);
          awaitLiveView(); // back once it has caught up
        }
        load.stop.set(true);
        writer.join(30_000);
        assertThat(load.acked.get()).isGreaterThan(100);

        Map<String, Long> model = modelFromTopic();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        for (int k = 0; k < KEYS; k++) {
          for (String key : List.of("f:" + k, "c:" + k)) {
            int slot = Slots.of(b(key));
            int owner = 0;
            while (slot > topology.slotRange(owner)[1]) {
              owner++;
            }
            for (ClusterTopology.Node server : topology.servers(owner)) {
              try (RespClient c = new RespClient(server.port())) {
                if (key.startsWith("c:")) {
                  long want = model.getOrDefault(key, 0L);
                  long got = counter(c, key);
                  while (got != want && System.nanoTime() < deadline) {
                    Thread.sleep(50); // the node may still be applying the last records
                    got = counter(c, key);
                  }
                  assertThat(got)
                      .as("%s on %s, against the topic", key, server.name())
                      .isEqualTo(want);
                  long ackedCount = load.ackedCounts.getOrDefault(key, new AtomicLong()).get();
                  assertThat(got)
                      .as("acknowledged increments of " + key)
                      .isGreaterThanOrEqualTo(ackedCount);
                } else {
                  for (String item : load.ackedItems.getOrDefault(key, Set.of())) {
                    assertThat(c.call("BF.EXISTS", key, item))
                        .as("%s %s on %s", key, item, server.name())
                        .isEqualTo(1L);
                  }
                }
              }
            }
            List<String> digests = new ArrayList<>();
            do {
              digests.clear();
              for (ClusterTopology.Node server : topology.servers(owner)) {
                try (RespClient c = new RespClient(server.port())) {
                  digests.add(digest(c, key));
                }
              }
            } while (digests.stream().distinct().count() > 1 && System.nanoTime() < deadline);
            assertThat(digests).as("replicas of " + key).containsOnly(digests.get(0));
          }
        }
      } finally {
        for (ServerProcess n : nodes) {
          if (n != null) {
            n.close();
          }
        }
      }
    }
  }
}
