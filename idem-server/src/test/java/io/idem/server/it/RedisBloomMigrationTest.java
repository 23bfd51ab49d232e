package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.filter.DumpChunk;
import io.idem.core.filter.RedisBloomChain;
import io.idem.core.filter.RedisBloomCuckoo;
import io.idem.server.it.RespClient.Err;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A filter moved from RedisBloom 2.6.28 with its own BF.SCANDUMP chunks (golden files recorded from
 * it, in idem-core's test resources): it loads through BF.LOADCHUNK, answers every item as
 * RedisBloom did, dumps back the same chunks, takes adds as RedisBloom would, and keeps all of it
 * across a snapshot, the log and a restart.
 */
class RedisBloomMigrationTest {

  private static final Path GOLDEN =
      Path.of("..", "idem-core", "src", "test", "resources", "redisbloom");

  @TempDir Path dir;

  record Chunk(long iterator, byte[] bytes) {}

  static List<Chunk> golden(String name) throws IOException {
    List<Chunk> out = new ArrayList<>();
    for (String line : Files.readAllLines(GOLDEN.resolve(name + ".chunks"))) {
      String[] parts = line.split("\t");
      out.add(new Chunk(Long.parseLong(parts[0]), Base64.getDecoder().decode(parts[1])));
    }
    return out;
  }

  static String goldenLine(String file) throws IOException {
    return Files.readString(GOLDEN.resolve(file)).strip();
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The key's BF.SCANDUMP, as RedisBloom's golden lines are: header at 1, then each chunk. */
  static List<Chunk> scandump(RespClient c, String key) throws IOException {
    List<Chunk> out = new ArrayList<>();
    long it = 0;
    while (true) {
      List<?> reply = (List<?>) c.call("BF.SCANDUMP", key, Long.toString(it));
      it = (Long) reply.get(0);
      if (it == 0) {
        assertThat((byte[]) reply.get(1)).isEmpty();
        return out;
      }
      out.add(new Chunk(it, (byte[]) reply.get(1)));
    }
  }

  static void assertSame(List<Chunk> got, List<Chunk> expected) {
    assertThat(got).hasSameSizeAs(expected);
    for (int i = 0; i < got.size(); i++) {
      assertThat(got.get(i).iterator()).isEqualTo(expected.get(i).iterator());
      assertThat(got.get(i).bytes()).as("chunk %d", i).isEqualTo(expected.get(i).bytes());
    }
  }

  @Test
  void aRedisBloomFilter_movesIn_answersAsThere_dumpsBack_andSurvivesRestart() throws Exception {
    List<Chunk> chunks = golden("scaling");
    String probes = goldenLine("scaling.probes");
    // What RedisBloom would hold after 200 more adds: the golden filter, then the adds, in core.
    RedisBloomChain expected = RedisBloomChain.fromHeader(chunks.getFirst().bytes(), n -> true);
    for (Chunk c : chunks.subList(1, chunks.size())) {
      expected.loadChunk(c.iterator(), c.bytes());
    }
    Path data = dir.resolve("data");
    try (ServerHarness server = new ServerHarness(data);
        RespClient c = new RespClient(server.port())) {
      for (Chunk chunk : chunks) {
        assertThat(
                c.call(
                    b("BF.LOADCHUNK"),
                    b("moved"),
                    b(Long.toString(chunk.iterator())),
                    chunk.bytes()))
            .isEqualTo("OK");
      }
      assertThat(c.call("TYPE", "moved")).isEqualTo("MBbloom--");
      for (int i = 0; i < 3500; i += 7) {
        assertThat(c.call("BF.EXISTS", "moved", "item-" + i)).isEqualTo(1L);
      }
      for (int i = 0; i < probes.length(); i++) {
        assertThat(c.call("BF.EXISTS", "moved", "absent-" + i))
            .as("absent-%d", i)
            .isEqualTo((long) (probes.charAt(i) - '0'));
      }
      assertSame(scandump(c, "moved"), chunks);
      List<?> info = (List<?>) c.call("BF.INFO", "moved");
      assertThat(info.get(1)).isEqualTo(7000L); // links of 1000, 2000 and 4000
      assertThat(info.get(5)).isEqualTo(3L);

      for (int i = 0; i < 100; i++) {
        Object reply = c.call("BF.ADD", "moved", "more-" + i);
        assertThat(reply).isEqualTo(expected.add(b("more-" + i)) ? 1L : 0L);
      }
      assertThat(c.call("SAVE")).isEqualTo("OK");
      List<String> madd = new ArrayList<>(List.of("BF.MADD", "moved"));
      for (int i = 100; i < 200; i++) {
        madd.add("more-" + i);
        expected.add(b("more-" + i));
      }
      c.call(madd.toArray(String[]::new)); // in the log only, after the snapshot
    }
    try (ServerHarness server = new ServerHarness(data);
        RespClient c = new RespClient(server.port())) {
      List<Chunk> want = new ArrayList<>();
      want.add(new Chunk(1, expected.dumpHeader()));
      for (long it = 1; ; ) {
        DumpChunk chunk = expected.dumpChunk(it);
        if (chunk.next() == 0) {
          break;
        }
        want.add(new Chunk(chunk.next(), chunk.bytes()));
        it = chunk.next();
      }
      assertSame(scandump(c, "moved"), want);
      assertThat(c.call("BF.CARD", "moved")).isEqualTo(expected.itemCount());
      assertThat(c.call("BF.MEXISTS", "moved", "more-0", "more-199", "item-5"))
          .isEqualTo(List.of(1L, 1L, 1L));
    }
  }

  /**
   * The filters of the golden files, made again in Idem by the commands that made them in
   * RedisBloom (scripts/redisbloom-golden.py): each add answers as there, each absent probe too,
   * and BF.SCANDUMP gives RedisBloom's chunks byte for byte, so they load back into RedisBloom.
   */
  @Test
  void aFilterMadeInIdem_dumpsTheChunksRedisBloomMade() throws Exception {
    String[][] filters = {
      {"scaling", "3500", "0.01", "1000"},
      {"nonscaling", "400", "0.001", "500", "NONSCALING"},
      {"expansion4", "1000", "0.1", "100", "EXPANSION", "4"},
      {"default", "250"},
      {"tight", "300", "0.0000001", "200"},
      {"loose", "200", "0.25", "64"},
    };
    try (ServerHarness server = new ServerHarness(dir.resolve("data"));
        RespClient c = new RespClient(server.port())) {
      for (String[] f : filters) {
        String name = f[0];
        if (f.length > 2) {
          List<String> reserve = new ArrayList<>(List.of("BF.RESERVE", name));
          reserve.addAll(List.of(f).subList(2, f.length));
          assertThat(c.call(reserve.toArray(String[]::new))).isEqualTo("OK");
        }
        StringBuilder adds = new StringBuilder();
        for (int i = 0; i < Integer.parseInt(f[1]); i++) {
          adds.append(c.call("BF.ADD", name, "item-" + i));
        }
        assertThat(adds.toString()).as(name).isEqualTo(goldenLine(name + ".adds"));
        StringBuilder probes = new StringBuilder();
        for (int i = 0; i < 5000; i++) {
          probes.append(c.call("BF.EXISTS", name, "absent-" + i));
        }
        assertThat(probes.toString()).as(name).isEqualTo(goldenLine(name + ".probes"));
        assertSame(scandump(c, name), golden(name));
      }
    }
  }

  @Test
  void aNonScalingFilter_isFullWhereRedisBloomsIs_andBadChunksAreRefused() throws Exception {
    try (ServerHarness server = new ServerHarness(dir.resolve("data"));
        RespClient c = new RespClient(server.port())) {
      for (Chunk chunk : golden("nonscaling")) {
        c.call(b("BF.LOADCHUNK"), b("ns"), b(Long.toString(chunk.iterator())), chunk.bytes());
      }
      // 400 added at RedisBloom into a capacity of 500: 100 more new items at most.
      int added = 0;
      Object reply = null;
      for (int i = 0; i < 1000 && !(reply instanceof Err); i++) {
        reply = c.call("BF.ADD", "ns", "fill-" + i);
        if (Long.valueOf(1).equals(reply)) {
          added++;
        }
      }
      assertThat(reply).isEqualTo(new Err("ERR non scaling filter is full"));
      assertThat(c.call("BF.CARD", "ns")).isEqualTo(500L);
      assertThat(added).isEqualTo(500 - Integer.parseInt("" + golden1s("nonscaling")));

      byte[] header = golden("scaling").getFirst().bytes().clone();
      header[8] = 0; // no links
      assertThat(c.call(b("BF.LOADCHUNK"), b("bad"), b("1"), header))
          .isEqualTo(
              new Err(
                  "ERR received bad data: neither Idem's header nor RedisBloom's: a header of 0"
                      + " links (1 to 64 are read)"));
      assertThat(c.call("EXISTS", "bad")).isEqualTo(0L);
      assertThat(c.call(b("BF.LOADCHUNK"), b("ns"), b("999999"), new byte[8]))
          .isEqualTo(new Err("ERR invalid offset - no link found"));
    }
  }

  /** The key's CF.SCANDUMP: header at 1, then each chunk (RedisBloom ends with nil). */
  static List<Chunk> cfScandump(RespClient c, String key) throws IOException {
    List<Chunk> out = new ArrayList<>();
    long it = 0;
    while (true) {
      List<?> reply = (List<?>) c.call("CF.SCANDUMP", key, Long.toString(it));
      it = (Long) reply.get(0);
      if (it == 0) {
        assertThat(reply.get(1)).isNull();
        return out;
      }
      out.add(new Chunk(it, (byte[]) reply.get(1)));
    }
  }

  static List<Chunk> dumpOf(RedisBloomCuckoo cf) {
    List<Chunk> out = new ArrayList<>();
    out.add(new Chunk(1, cf.dumpHeader()));
    for (long pos = 1; ; ) {
      DumpChunk chunk = cf.dumpChunk(pos);
      if (chunk.isEnd()) {
        return out;
      }
      out.add(new Chunk(chunk.next(), chunk.bytes()));
      pos = chunk.next();
    }
  }

  @Test
  void aRedisBloomCuckooFilter_movesIn_answersAndCountsAsThere_andSurvivesRestart()
      throws Exception {
    List<Chunk> chunks = golden("cf-mixed");
    String probes = goldenLine("cf-mixed.probes");
    String counts = goldenLine("cf-mixed.counts");
    RedisBloomCuckoo expected = RedisBloomCuckoo.fromHeader(chunks.getFirst().bytes(), n -> true);
    for (Chunk c : chunks.subList(1, chunks.size())) {
      expected.loadChunk(c.iterator(), c.bytes());
    }
    Path data = dir.resolve("data");
    try (ServerHarness server = new ServerHarness(data);
        RespClient c = new RespClient(server.port())) {
      for (Chunk chunk : chunks) {
        assertThat(
                c.call(
                    b("CF.LOADCHUNK"), b("cf"), b(Long.toString(chunk.iterator())), chunk.bytes()))
            .isEqualTo("OK");
      }
      assertThat(c.call("TYPE", "cf")).isEqualTo("MBbloomCF");
      for (int i = 0; i < counts.length(); i++) {
        assertThat(c.call("CF.COUNT", "cf", "item-" + i))
            .as("CF.COUNT item-%d", i)
            .isEqualTo((long) (counts.charAt(i) - '0'));
      }
      for (int i = 0; i < probes.length(); i += 5) {
        assertThat(c.call("CF.EXISTS", "cf", "absent-" + i))
            .isEqualTo((long) (probes.charAt(i) - '0'));
      }
      assertSame(cfScandump(c, "cf"), chunks);

      for (int i = 0; i < 300; i++) {
        long h = RedisBloomCuckoo.hash(b("more-" + i));
        long want = expected.insert(h) == RedisBloomCuckoo.Insert.INSERTED ? 1 : -1;
        assertThat(c.call("CF.ADD", "cf", "more-" + i)).isEqualTo(want == 1 ? 1L : want);
      }
      assertThat(c.call("SAVE")).isEqualTo("OK");
      for (int i = 0; i < 40; i++) {
        boolean deleted = expected.delete(RedisBloomCuckoo.hash(b("item-" + i)));
        assertThat(c.call("CF.DEL", "cf", "item-" + i)).isEqualTo(deleted ? 1L : 0L);
      }
      List<String> insert = new ArrayList<>(List.of("CF.INSERTNX", "cf", "ITEMS"));
      for (int i = 0; i < 50; i++) {
        insert.add("nx-" + (i % 25));
        expected.insertUnique(RedisBloomCuckoo.hash(b("nx-" + (i % 25))));
      }
      c.call(insert.toArray(String[]::new)); // in the log only, after the snapshot
    }
    try (ServerHarness server = new ServerHarness(data);
        RespClient c = new RespClient(server.port())) {
      assertSame(cfScandump(c, "cf"), dumpOf(expected));
      List<?> info = (List<?>) c.call("CF.INFO", "cf");
      assertThat(info.get(7)).isEqualTo(expected.itemCount());
      assertThat(c.call(b("CF.LOADCHUNK"), b("cf"), b("1"), chunks.getFirst().bytes()))
          .isEqualTo(new Err("ERR item exists"));
    }
  }

  private static long golden1s(String name) throws IOException {
    return goldenLine(name + ".adds").chars().filter(ch -> ch == '1').count();
  }
}
