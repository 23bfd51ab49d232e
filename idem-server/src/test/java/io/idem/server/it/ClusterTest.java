package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.server.cluster.Slots;
import io.idem.server.it.RespClient.Err;
import io.idem.server.net.IdemServer;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;

/**
 * Three nodes, each serving a third of the slots: Redis Cluster clients learn the slot map from
 * them and route every key by themselves, and a node answers MOVED for a key it does not serve.
 */
class ClusterTest {

  @TempDir Path dir;

  private final List<ServerHarness> nodes = new ArrayList<>();
  private final int[] ports = new int[3];

  @BeforeEach
  void startThreeNodes() throws IOException, IdemServer.StartException {
    for (int i = 0; i < 3; i++) {
      ports[i] = Ports.free();
    }
    String members =
        "a=127.0.0.1:" + ports[0] + " b=127.0.0.1:" + ports[1] + " c=127.0.0.1:" + ports[2];
    String[] names = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) {
      Path d = dir.resolve(names[i]);
      nodes.add(
          new ServerHarness(
              d,
              "port",
              Integer.toString(ports[i]),
              "cluster-enabled",
              "yes",
              "cluster-node",
              names[i],
              "cluster-nodes",
              members,
              "cluster-partitions",
              "6"));
    }
  }

  @AfterEach
  void stop() {
    nodes.forEach(ServerHarness::close);
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void everyNode_describesTheSameSlotMap_andRedirectsWhatItDoesNotServe() throws Exception {
    try (RespClient c = new RespClient(ports[0])) {
      List<?> slots = (List<?>) c.call("CLUSTER", "SLOTS");
      assertThat(slots).hasSize(3);
      // Six partitions of 2730 or 2731 slots, two a node, in order.
      assertThat(((List<?>) slots.get(0)).subList(0, 2)).isEqualTo(List.of(0L, 5461L));
      assertThat(((List<?>) slots.get(1)).subList(0, 2)).isEqualTo(List.of(5462L, 10922L));
      assertThat(((List<?>) slots.get(2)).subList(0, 2)).isEqualTo(List.of(10923L, 16383L));
      List<?> second = (List<?>) ((List<?>) slots.get(1)).get(2);
      assertThat((byte[]) second.get(0)).isEqualTo(b("127.0.0.1"));
      assertThat(second.get(1)).isEqualTo((long) ports[1]);
      assertThat(c.call("CLUSTER", "KEYSLOT", "somekey")).isEqualTo(11058L);
      String info = new String((byte[]) c.call("CLUSTER", "INFO"), StandardCharsets.UTF_8);
      assertThat(info).contains("cluster_state:ok\r\n").contains("cluster_known_nodes:3\r\n");
      String myself = new String((byte[]) c.call("CLUSTER", "NODES"), StandardCharsets.UTF_8);
      assertThat(myself.lines()).hasSize(3);
      assertThat(myself.lines().filter(l -> l.contains("myself")).findFirst().orElseThrow())
          .startsWith(new String((byte[]) c.call("CLUSTER", "MYID"), StandardCharsets.UTF_8))
          .contains("127.0.0.1:" + ports[0] + "@")
          .endsWith(" 0-5461");
      // "somekey" is in slot 11058, served by the third node.
      assertThat(c.call("BF.ADD", "somekey", "x"))
          .isEqualTo(new Err("MOVED 11058 127.0.0.1:" + ports[2]));
      assertThat(c.call("CMS.MERGE", "{t}d", "2", "{t}a", "other"))
          .isEqualTo(new Err("CROSSSLOT Keys in request don't hash to the same slot"));
      assertThat(c.call("PING")).isEqualTo("PONG"); // no key: any node answers
      String local = keyServedBy(0);
      assertThat(c.call("BF.ADD", local, "x")).isEqualTo(1L);
    }
    try (RespClient c = new RespClient(ports[2])) {
      assertThat(c.call("BF.ADD", "somekey", "x")).isEqualTo(1L);
      assertThat(c.call("EXISTS", "somekey")).isEqualTo(1L);
    }
  }

  /** The node that serves the slot: six partitions, two a node. */
  private static int nodeOf(int slot) {
    return Slots.partition(slot, 6) / 2;
  }

  /** A key in the slots node i serves. */
  private static String keyServedBy(int i) {
    for (int k = 0; ; k++) {
      String key = "key-" + k;
      int slot = Slots.of(b(key));
      if (nodeOf(slot) == i) {
        return key;
      }
    }
  }

  @Test
  void jedisCluster_routesEveryKey_andEachNodeHoldsOnlyItsSlots() throws Exception {
    Set<HostAndPort> seeds = Set.of(new HostAndPort("127.0.0.1", ports[1]));
    try (JedisCluster jedis = new JedisCluster(seeds)) {
      for (int i = 0; i < 300; i++) {
        // Jedis speaks RESP3, where RedisBloom's answers are booleans.
        assertThat(jedis.sendCommand(b("item-" + i), () -> b("BF.ADD"), b("item-" + i), b("x")))
            .isEqualTo(true);
      }
      for (int i = 0; i < 300; i++) {
        assertThat(jedis.sendCommand(b("item-" + i), () -> b("BF.EXISTS"), b("item-" + i), b("x")))
            .isEqualTo(true);
      }
    }
    Set<String> seen = new HashSet<>();
    long total = 0;
    for (int n = 0; n < 3; n++) {
      try (RespClient c = new RespClient(ports[n])) {
        long size = (Long) c.call("DBSIZE");
        total += size;
        assertThat(size).as("node %d", n).isBetween(50L, 150L);
        for (Object key : (List<?>) c.call("KEYS", "*")) {
          int slot = Slots.of((byte[]) key);
          assertThat(nodeOf(slot)).isEqualTo(n);
          seen.add(new String((byte[]) key, StandardCharsets.UTF_8));
        }
      }
    }
    assertThat(total).isEqualTo(300);
    assertThat(seen).hasSize(300);
  }

  @Test
  void lettuceClusterClient_routesByItself() {
    RedisClusterClient client =
        RedisClusterClient.create(RedisURI.create("redis://127.0.0.1:" + ports[0]));
    try (StatefulRedisClusterConnection<String, String> conn = client.connect()) {
      var sync = conn.sync();
      assertThat(sync.clusterMyId()).hasSize(40);
      for (int i = 0; i < 100; i++) {
        assertThat(sync.pfadd("hll-" + i, "a", "b")).isEqualTo(1L);
      }
      for (int i = 0; i < 100; i++) {
        assertThat(sync.pfcount("hll-" + i)).isEqualTo(2L);
      }
      assertThat(conn.getPartitions().size()).isEqualTo(3);
    } finally {
      client.shutdown(0, 2, TimeUnit.SECONDS);
    }
  }

  @Test
  void redisCliMinusC_followsMoved() throws Exception {
    // Debian's redis-cli, as a user would run it: -c follows MOVED to the node that serves the key.
    Process p =
        new ProcessBuilder(
                "redis-cli", "-c", "-p", Integer.toString(ports[0]), "BF.ADD", "somekey", "x")
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(out).isEqualTo("1"); // no terminal: the raw reply
    try (RespClient c = new RespClient(ports[2])) {
      assertThat(c.call("BF.EXISTS", "somekey", "x")).isEqualTo(1L);
    }
  }

  @Test
  void redisPyRedisCluster_routesByItself() throws Exception {
    // Debian's python3-redis under Debian's python3 (.ci/run installs it).
    String script =
        "from redis.cluster import RedisCluster\n"
            + "r = RedisCluster(host='127.0.0.1', port="
            + ports[1]
            + ")\n"
            + "print(len(r.get_nodes()))\n"
            + "print(sum(r.execute_command('BF.ADD', 'py-%d' % i, 'x') for i in range(60)))\n"
            + "print(sum(r.execute_command('BF.EXISTS', 'py-%d' % i, 'x') for i in range(60)))\n";
    Process p = new ProcessBuilder("/usr/bin/python3", "-").redirectErrorStream(true).start();
    try (var in = p.getOutputStream()) {
      in.write(b(script));
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(out).isEqualTo("3\n60\n60\n");
  }

  @Test
  void aBadClusterConfiguration_isRefusedAtStart() {
    assertThatThrownBy(
            () ->
                new ServerHarness(
                    dir.resolve("bad"),
                    "cluster-enabled",
                    "yes",
                    "cluster-node",
                    "z",
                    "cluster-nodes",
                    "a=127.0.0.1:1 b=127.0.0.1:2"))
        .isInstanceOf(IdemServer.StartException.class)
        .hasMessageContaining("cluster-node 'z' is not among cluster-nodes");
    assertThatThrownBy(
            () ->
                new ServerHarness(
                    dir.resolve("bad2"),
                    "cluster-enabled",
                    "yes",
                    "cluster-node",
                    "a",
                    "cluster-nodes",
                    "a=127.0.0.1:1 b=nowhere"))
        .isInstanceOf(IdemServer.StartException.class)
        .hasMessageContaining("'b=nowhere' is not name=host:port");
  }

  /**
   * One logical filter across every partition (docs/cluster.md): a key a partition, picked from the
   * item, so a lookup is one command on one node and lookups of many items group by key.
   */
  static final class ShardedFilter {
    final List<String> keys = new ArrayList<>();

    /** One key a partition: for each, the first tag s0, s1, ... whose slot falls in it. */
    ShardedFilter(String name, int partitions) {
      String[] byPartition = new String[partitions];
      int found = 0;
      for (int t = 0; found < partitions; t++) {
        String key = name + ":{s" + t + "}";
        int p = Slots.partition(Slots.of(b(key)), partitions);
        if (byPartition[p] == null) {
          byPartition[p] = key;
          found++;
        }
      }
      keys.addAll(List.of(byPartition));
    }

    String keyOf(String item) {
      return keys.get(Math.floorMod(item.hashCode() * 0x9E3779B9, keys.size()));
    }
  }

  @Test
  void oneLogicalFilter_spreadOverEveryPartition_byAKeyPickedFromTheItem() throws Exception {
    ShardedFilter seen = new ShardedFilter("seen", 6);
    Set<HostAndPort> seeds = Set.of(new HostAndPort("127.0.0.1", ports[0]));
    try (JedisCluster jedis = new JedisCluster(seeds)) {
      for (String key : seen.keys) {
        jedis.sendCommand(b(key), () -> b("BF.RESERVE"), b(key), b("0.001"), b("1000"));
      }
      long added = 0;
      for (int i = 0; i < 2000; i++) {
        String item = "item-" + i;
        String key = seen.keyOf(item);
        Object r = jedis.sendCommand(b(key), () -> b("BF.ADD"), b(key), b(item));
        added += Boolean.TRUE.equals(r) || Long.valueOf(1).equals(r) ? 1 : 0;
      }
      // Lookups of many items: one BF.MEXISTS a key.
      java.util.Map<String, List<String>> byKey = new java.util.TreeMap<>();
      for (int i = 0; i < 4000; i++) {
        String item = "item-" + i; // the first 2000 were added, the rest not
        byKey.computeIfAbsent(seen.keyOf(item), k -> new ArrayList<>()).add(item);
      }
      int falsePositives = 0;
      for (var e : byKey.entrySet()) {
        List<byte[]> args = new ArrayList<>(List.of(b(e.getKey())));
        e.getValue().forEach(item -> args.add(b(item)));
        List<?> found =
            (List<?>)
                jedis.sendCommand(
                    b(e.getKey()), () -> b("BF.MEXISTS"), args.toArray(byte[][]::new));
        for (int j = 0; j < found.size(); j++) {
          boolean hit = Boolean.TRUE.equals(found.get(j)) || Long.valueOf(1).equals(found.get(j));
          int n = Integer.parseInt(e.getValue().get(j).substring(5));
          if (n < 2000) {
            assertThat(hit).as("item-" + n + " was added").isTrue();
          } else if (hit) {
            falsePositives++;
          }
        }
      }
      assertThat(falsePositives).isLessThan(20); // 1 in 1000 configured: about 2 of 2000
      long cards = 0;
      for (String key : seen.keys) {
        cards += (Long) jedis.sendCommand(b(key), () -> b("BF.CARD"), b(key));
      }
      assertThat(cards).isEqualTo(added);
    }
    for (int i = 0; i < 3; i++) {
      try (RespClient c = new RespClient(ports[i])) {
        assertThat(c.call("DBSIZE")).as("node " + i).isEqualTo(2L); // two partitions a node
      }
    }
  }
}
