package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.BooleanListOutput;
import io.lettuce.core.output.BooleanOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.bloom.BFInsertParams;
import redis.clients.jedis.bloom.CFInsertParams;
import redis.clients.jedis.exceptions.JedisDataException;

/** Jedis (its Bloom and cuckoo API) and Lettuce (custom commands, RESP3) against the server. */
class ClientsTest {

  @TempDir static Path dir;
  static ServerHarness server;

  @BeforeAll
  static void start() throws Exception {
    server = new ServerHarness(dir.resolve("data"));
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void jedisBloom() {
    try (RedisClient j = RedisClient.create("127.0.0.1", server.port())) {
      assertThat(j.ping()).isEqualTo("PONG");
      assertThat(j.bfReserve("j:bf", 0.001, 10_000)).isEqualTo("OK");
      assertThat(j.bfAdd("j:bf", "a")).isTrue();
      assertThat(j.bfAdd("j:bf", "a")).isFalse();
      assertThat(j.bfMAdd("j:bf", "a", "b")).containsExactly(false, true);
      assertThat(j.bfExists("j:bf", "b")).isTrue();
      assertThat(j.bfMExists("j:bf", "b", "nope")).containsExactly(true, false);
      assertThat(j.bfCard("j:bf")).isEqualTo(2);
      assertThat(j.bfInsert("j:bf2", new BFInsertParams().capacity(100).error(0.01), "x", "y"))
          .containsExactly(true, true);
      Map<String, Object> info = j.bfInfo("j:bf");
      assertThat(info)
          .containsEntry("Capacity", 10_000L)
          .containsEntry("Number of items inserted", 2L);
      assertThatThrownBy(() -> j.bfReserve("j:bf", 0.001, 10))
          .isInstanceOf(JedisDataException.class)
          .hasMessage("ERR item exists");
      assertThat(j.type("j:bf")).isEqualTo("MBbloom--");
      assertThat(j.del("j:bf", "j:bf2")).isEqualTo(2);
    }
  }

  @Test
  void jedisBloomScanDumpRoundTrip() {
    try (RedisClient j = RedisClient.create("127.0.0.1", server.port())) {
      j.bfReserve("j:dump", 0.01, 5000);
      for (int i = 0; i < 3000; i++) {
        j.bfAdd("j:dump", "item" + i);
      }
      long iter = 0;
      while (true) {
        Map.Entry<Long, byte[]> chunk = j.bfScanDump("j:dump", iter);
        iter = chunk.getKey();
        if (iter == 0) {
          break;
        }
        assertThat(j.bfLoadChunk("j:copy", iter, chunk.getValue())).isEqualTo("OK");
      }
      for (int i = 0; i < 3000; i++) {
        assertThat(j.bfExists("j:copy", "item" + i)).isTrue();
      }
      assertThat(j.bfCard("j:copy")).isEqualTo(j.bfCard("j:dump"));
    }
  }

  @Test
  void jedisCountMinSketch() {
    try (RedisClient j = RedisClient.create("127.0.0.1", server.port())) {
      assertThat(j.cmsInitByDim("j:cms", 2000, 5)).isEqualTo("OK");
      assertThat(j.cmsInitByProb("j:cms2", 0.001, 0.01)).isEqualTo("OK");
      assertThat(j.cmsIncrBy("j:cms", "a", 3)).isEqualTo(3);
      assertThat(j.cmsIncrBy("j:cms", Map.of("a", 2L))).containsExactly(5L);
      j.cmsIncrBy("j:cms2", "a", 10);
      assertThat(j.cmsQuery("j:cms", "a", "never")).containsExactly(5L, 0L);
      assertThat(j.cmsInitByDim("j:sum", 2000, 7)).isEqualTo("OK");
      assertThat(j.cmsMerge("j:sum", Map.of("j:cms2", 3L))).isEqualTo("OK");
      assertThat(j.cmsQuery("j:sum", "a")).containsExactly(30L);
      assertThat(j.cmsInfo("j:cms2"))
          .containsEntry("width", 2000L)
          .containsEntry("depth", 7L)
          .containsEntry("count", 10L);
      assertThatThrownBy(() -> j.cmsMerge("j:cms", "j:cms2"))
          .isInstanceOf(JedisDataException.class)
          .hasMessage("CMS: width/depth is not equal");
      assertThat(j.type("j:cms")).isEqualTo("CMSk-TYPE");
    }
  }

  /**
   * Commands Jedis has no methods for, sent as any command it does not know: Idem's own, and
   * RedisBloom's TOPK.COUNT (deprecated there, and gone from Jedis). COUNTER_QUERY is
   * COUNTER.QUERY.
   */
  enum Idem implements redis.clients.jedis.commands.ProtocolCommand {
    TOPK_COUNT,
    COUNTER_RESERVE,
    COUNTER_INCRBY,
    COUNTER_QUERY,
    COUNTER_INFO,
    DISTINCT_RESERVE,
    DISTINCT_ADD,
    DISTINCT_COUNT,
    DISTINCT_INFO;

    @Override
    public byte[] getRaw() {
      return name().replace('_', '.').getBytes(StandardCharsets.US_ASCII);
    }
  }

  /** An INFO reply as Jedis returns it raw (a RESP3 map: key-value pairs), by field name. */
  private static Map<String, Object> infoFields(Object reply) {
    Map<String, Object> out = new java.util.LinkedHashMap<>();
    for (Object o : (List<?>) reply) {
      Map.Entry<?, ?> e = (Map.Entry<?, ?>) o;
      out.put(new String((byte[]) e.getKey(), StandardCharsets.UTF_8), e.getValue());
    }
    return out;
  }

  @Test
  void jedisWindowedCounters() {
    try (RedisClient j = RedisClient.create("127.0.0.1", server.port())) {
      assertThat(j.sendCommand(Idem.COUNTER_RESERVE, "j:wc"))
          .isEqualTo("OK".getBytes(StandardCharsets.UTF_8));
      long now = System.currentTimeMillis();
      String t = Long.toString(now);
      assertThat(j.sendCommand(Idem.COUNTER_INCRBY, "j:wc", t, "ip:1", "3", "ip:1|u:7", "1"))
          .isEqualTo(2L);
      assertThat(
              j.sendCommand(
                  Idem.COUNTER_INCRBY, "j:wc", Long.toString(now - 3 * 3_600_000L), "ip:1", "10"))
          .isEqualTo(1L);
      assertThat(
              j.sendCommand(
                  Idem.COUNTER_QUERY, "j:wc", t, "1h", "24h", "NAMES", "ip:1", "ip:1|u:7"))
          .isEqualTo(List.of(List.of(3L, 13L), List.of(1L, 1L)));
      assertThatThrownBy(() -> j.sendCommand(Idem.COUNTER_QUERY, "j:wc", t, "90s", "NAMES", "ip:1"))
          .isInstanceOf(JedisDataException.class)
          .hasMessage("ERR no resolution of the table divides a window of 90s and keeps that long");
      assertThat(infoFields(j.sendCommand(Idem.COUNTER_INFO, "j:wc")))
          .containsEntry("Buckets per row", 64L)
          .containsEntry("Row format", 1L)
          .containsKey("Resolutions");
      assertThat(j.type("j:wc")).isEqualTo("counter");
    }
  }

  @Test
  void jedisHyperLogLog() {
    try (RedisClient j = RedisClient.create("127.0.0.1", server.port())) {
      assertThat(j.pfadd("j:hll", "a", "b", "c")).isEqualTo(1);
      assertThat(j.pfadd("j:hll", "b")).isZero();
      for (int i = 0; i < 1000; i++) {
        j.pfadd("j:hll2", "user-" + i);
      }
      assertThat(j.pfcount("j:hll")).isEqualTo(3);
      assertThat(j.pfcount("j:hll2")).isBetween(975L, 1025L);
      assertThat(j.pfmerge("j:hll3", "j:hll", "j:hll2")).isEqualTo("OK");
      assertThat(j.pfcount("j:hll3")).isEqualTo(j.pfcount("j:hll", "j:hll2"));
      assertThat(j.type("j:hll3")).isEqualTo("string");
      j.cfReserve("j:not-hll", 100);
      assertThatThrownBy(() -> j.pfcount("j:hll", "j:not-hll"))
          .isInstanceOf(JedisDataException.class)
          .hasMessageStartingWith("WRONGTYPE");
    }
  }

  @Test
  void jedisWindowedDistinct() {
    try (RedisClient j = RedisClient.create("127.0.0.1", server.port())) {
      assertThat(j.sendCommand(Idem.DISTINCT_RESERVE, "j:dc", "PRECISION", "12"))
          .isEqualTo("OK".getBytes(StandardCharsets.UTF_8));
      String t = Long.toString(System.currentTimeMillis());
      assertThat(j.sendCommand(Idem.DISTINCT_ADD, "j:dc", t, "ip:1", "u:1", "ip:1", "u:2"))
          .isEqualTo(2L);
      assertThat(j.sendCommand(Idem.DISTINCT_ADD, "j:dc", t, "ip:1", "u:2")).isEqualTo(0L);
      assertThat(
              j.sendCommand(Idem.DISTINCT_COUNT, "j:dc", t, "1h", "24h", "NAMES", "ip:1", "ip:9"))
          .isEqualTo(List.of(List.of(2L, 2L), List.of(0L, 0L)));
      assertThatThrownBy(
              () -> j.sendCommand(Idem.DISTINCT_RESERVE, "j:dc2", "RESOLUTION", "1s", "1h"))
          .isInstanceOf(JedisDataException.class)
          .hasMessage("ERR a distinct table's bucket must be at least 1m");
      assertThat(infoFields(j.sendCommand(Idem.DISTINCT_INFO, "j:dc")))
          .containsEntry("Precision", 12L)
          .containsKey("Relative standard error");
      assertThat(j.type("j:dc")).isEqualTo("distinct");
    }
  }

  @Test
  void jedisTopK() {
    try (RedisClient j = RedisClient.create("127.0.0.1", server.port())) {
      assertThat(j.topkReserve("j:topk", 2, 1000, 5, 1.0)).isEqualTo("OK");
      assertThat(j.topkAdd("j:topk", "a", "b", "a")).containsExactly(null, null, null);
      assertThat(j.topkIncrBy("j:topk", "c", 5)).isEqualTo("b");
      assertThat(j.topkQuery("j:topk", "a", "b", "c")).containsExactly(true, false, true);
      assertThat(j.topkList("j:topk")).containsExactly("c", "a");
      assertThat(j.topkListWithCount("j:topk")).containsEntry("c", 5L).containsEntry("a", 2L);
      // b, expelled from the list, is still counted by the sketch.
      assertThat(j.sendCommand(Idem.TOPK_COUNT, "j:topk", "a", "b", "c", "never"))
          .isEqualTo(List.of(2L, 1L, 5L, 0L));
      assertThat(j.topkInfo("j:topk"))
          .containsEntry("k", 2L)
          .containsEntry("width", 1000L)
          .containsEntry("depth", 5L);
      assertThatThrownBy(() -> j.topkAdd("j:missing", "a"))
          .isInstanceOf(JedisDataException.class)
          .hasMessage("TopK: key does not exist");
    }
  }

  @Test
  void jedisTDigest() {
    try (RedisClient j = RedisClient.create("127.0.0.1", server.port())) {
      assertThat(j.tdigestCreate("j:td", 1000)).isEqualTo("OK");
      assertThat(j.tdigestAdd("j:td", 1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5)).isEqualTo("OK");
      assertThat(j.tdigestQuantile("j:td", 0, 0.5, 1)).containsExactly(1.0, 4.0, 5.0);
      assertThat(j.tdigestCDF("j:td", 0, 3, 6)).containsExactly(0.0, 0.3, 1.0);
      assertThat(j.tdigestRank("j:td", 0, 3, 6)).containsExactly(-1L, 4L, 15L);
      assertThat(j.tdigestRevRank("j:td", 0, 3, 6)).containsExactly(15L, 10L, -1L);
      assertThat(j.tdigestByRank("j:td", 0, 14, 15))
          .containsExactly(1.0, 5.0, Double.POSITIVE_INFINITY);
      assertThat(j.tdigestByRevRank("j:td", 0, 15)).containsExactly(5.0, Double.NEGATIVE_INFINITY);
      assertThat(j.tdigestMin("j:td")).isEqualTo(1.0);
      assertThat(j.tdigestMax("j:td")).isEqualTo(5.0);
      assertThat(j.tdigestTrimmedMean("j:td", 0, 1)).isEqualTo(55.0 / 15);
      assertThat(j.tdigestMerge("j:td2", "j:td", "j:td")).isEqualTo("OK");
      assertThat(j.tdigestInfo("j:td2"))
          .containsEntry("Compression", 1000L)
          .containsEntry("Observations", 30L);
      assertThat(j.tdigestReset("j:td2")).isEqualTo("OK");
      assertThat(j.tdigestMin("j:td2")).isNaN();
      assertThatThrownBy(() -> j.tdigestAdd("j:td", Double.POSITIVE_INFINITY))
          .isInstanceOf(JedisDataException.class)
          .hasMessage("ERR T-Digest: val parameter needs to be a finite number");
      assertThatThrownBy(() -> j.tdigestMin("j:missing"))
          .isInstanceOf(JedisDataException.class)
          .hasMessage("ERR T-Digest: key does not exist");
    }
  }

  @Test
  void jedisCuckoo() {
    try (RedisClient j = RedisClient.create("127.0.0.1", server.port())) {
      assertThat(j.cfReserve("j:cf", 1000)).isEqualTo("OK");
      assertThat(j.cfAdd("j:cf", "a")).isTrue();
      assertThat(j.cfAddNx("j:cf", "a")).isFalse();
      assertThat(j.cfAdd("j:cf", "a")).isTrue();
      assertThat(j.cfCount("j:cf", "a")).isEqualTo(2);
      assertThat(j.cfDel("j:cf", "a")).isTrue();
      assertThat(j.cfExists("j:cf", "a")).isTrue();
      assertThat(j.cfMExists("j:cf", "a", "b")).containsExactly(true, false);
      assertThat(j.cfInsertNx("j:cf2", new CFInsertParams().capacity(100), "p", "p"))
          .containsExactly(true, false);
      Map<String, Object> info = j.cfInfo("j:cf");
      assertThat(info)
          .containsEntry("Number of items inserted", 1L)
          .containsEntry("Bucket size", 2L);
      assertThatThrownBy(() -> j.cfDel("j:missing", "a"))
          .isInstanceOf(JedisDataException.class)
          .hasMessage("Not found");
    }
  }

  enum Bloom implements ProtocolKeyword {
    ADD("BF.ADD"),
    MEXISTS("BF.MEXISTS"),
    RESERVE("BF.RESERVE");

    private final byte[] bytes;

    Bloom(String name) {
      this.bytes = name.getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public byte[] getBytes() {
      return bytes;
    }

    @Override
    public String toString() {
      return new String(bytes, StandardCharsets.US_ASCII);
    }
  }

  @Test
  void lettuceCustomCommandsOverResp3() {
    io.lettuce.core.RedisClient client =
        io.lettuce.core.RedisClient.create(RedisURI.create("127.0.0.1", server.port()));
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      RedisCommands<String, String> sync = c.sync();
      assertThat(sync.ping()).isEqualTo("PONG");
      StringCodec codec = StringCodec.UTF8;
      assertThat(
              sync.dispatch(
                  Bloom.RESERVE,
                  new StatusOutput<>(codec),
                  new CommandArgs<>(codec).addKey("l:bf").add("0.01").add(1000)))
          .isEqualTo("OK");
      assertThat(
              sync.dispatch(
                  Bloom.ADD,
                  new BooleanOutput<>(codec),
                  new CommandArgs<>(codec).addKey("l:bf").addValue("v")))
          .isTrue(); // RESP3: RedisBloom answers BF.ADD with a boolean
      List<Boolean> exists =
          sync.dispatch(
              Bloom.MEXISTS,
              new BooleanListOutput<>(codec),
              new CommandArgs<>(codec).addKey("l:bf").addValue("v").addValue("w"));
      assertThat(exists).containsExactly(true, false);
      assertThatThrownBy(
              () ->
                  sync.dispatch(
                      Bloom.ADD,
                      new IntegerOutput<>(codec),
                      new CommandArgs<>(codec).addKey("l:bf")))
          .isInstanceOf(RedisCommandExecutionException.class)
          .hasMessage("ERR wrong number of arguments for 'bf.add' command");
      assertThat(sync.dbsize()).isGreaterThanOrEqualTo(1);
      assertThat(sync.expire("l:bf", 100)).isTrue();
      assertThat(sync.ttl("l:bf")).isEqualTo(100);
    } finally {
      client.shutdown();
    }
  }
}
