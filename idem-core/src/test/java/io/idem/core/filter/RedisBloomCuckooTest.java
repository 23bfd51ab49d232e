package io.idem.core.filter;

import static io.idem.core.filter.RedisBloomChainTest.chunks;
import static io.idem.core.filter.RedisBloomChainTest.item;
import static io.idem.core.filter.RedisBloomChainTest.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.filter.RedisBloomChainTest.Chunk;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * RedisBloom's cuckoo filters, against golden files recorded from RedisBloom 2.6.28 itself
 * (scripts/redisbloom-golden.py): a dump loads and answers as RedisBloom did, and the same adds,
 * adds-if-absent and deletes made here give the same replies, counts and dump, byte for byte.
 */
class RedisBloomCuckooTest {

  static RedisBloomCuckoo load(List<Chunk> chunks) throws BadDumpException {
    RedisBloomCuckoo cf = RedisBloomCuckoo.fromHeader(chunks.getFirst().bytes(), bytes -> true);
    for (Chunk c : chunks.subList(1, chunks.size())) {
      cf.loadChunk(c.iterator(), c.bytes());
    }
    return cf;
  }

  static List<Chunk> dump(RedisBloomCuckoo cf) {
    List<Chunk> out = new ArrayList<>();
    out.add(new Chunk(1, cf.dumpHeader()));
    for (long pos = 1; ; ) {
      DumpChunk c = cf.dumpChunk(pos);
      if (c.isEnd()) {
        return out;
      }
      out.add(new Chunk(c.next(), c.bytes()));
      pos = c.next();
    }
  }

  static char digit(RedisBloomCuckoo.Insert r) {
    return switch (r) {
      case INSERTED -> '1';
      case EXISTS -> '0';
      case NO_SPACE, TOO_LARGE -> 'E';
    };
  }

  static String probes(RedisBloomCuckoo cf) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 5000; i++) {
      b.append(cf.contains(RedisBloomCuckoo.hash(item("absent-" + i))) ? '1' : '0');
    }
    return b.toString();
  }

  @ParameterizedTest
  @CsvSource({"cf-basic", "cf-grow", "cf-bucket4", "cf-full", "cf-default", "cf-mixed"})
  void aRedisBloomDump_loadsAndAnswersAsRedisBloomDid(String name) throws Exception {
    RedisBloomCuckoo cf = load(chunks(name));
    String adds = resource(name + ".adds");
    for (int i = 0; i < adds.length() && !name.equals("cf-mixed"); i++) {
      if (adds.charAt(i) == '1') {
        assertThat(cf.contains(RedisBloomCuckoo.hash(item("item-" + i)))).as("item-%d", i).isTrue();
      }
    }
    assertThat(probes(cf)).isEqualTo(resource(name + ".probes"));
    RedisBloomChainTest.assertSameDump(dump(cf), chunks(name));
  }

  @ParameterizedTest
  @CsvSource({
    "cf-basic, 1000, 2, 20, 1",
    "cf-grow, 100, 2, 20, 2",
    "cf-bucket4, 1000, 4, 50, 1",
    "cf-full, 64, 2, 20, 0",
    "cf-default, 1024, 2, 20, 1",
    "cf-mixed, 500, 2, 20, 1"
  })
  void theSameChangesHere_giveRedisBloomsRepliesAndItsDump_byteForByte(
      String name, long capacity, int bucketSize, int iterations, int expansion) throws Exception {
    RedisBloomCuckoo cf = RedisBloomCuckoo.create(capacity, bucketSize, iterations, expansion);
    String adds = resource(name + ".adds");
    StringBuilder got = new StringBuilder();
    int count = name.equals("cf-mixed") ? 300 : adds.length();
    for (int i = 0; i < count; i++) {
      got.append(digit(cf.insert(RedisBloomCuckoo.hash(item("item-" + i)))));
    }
    if (name.equals("cf-mixed")) {
      for (int i = 0; i < 50; i++) {
        got.append(digit(cf.insert(RedisBloomCuckoo.hash(item("item-" + i)))));
      }
      for (int i = 0; i < 100; i++) {
        got.append(digit(cf.insertUnique(RedisBloomCuckoo.hash(item("item-" + i)))));
      }
      StringBuilder dels = new StringBuilder();
      for (int i = 100; i < 150; i++) {
        dels.append(cf.delete(RedisBloomCuckoo.hash(item("item-" + i))) ? '1' : '0');
      }
      assertThat(dels.toString()).isEqualTo(resource(name + ".dels"));
      StringBuilder counts = new StringBuilder();
      for (int i = 0; i < 300; i++) {
        counts.append(cf.count(RedisBloomCuckoo.hash(item("item-" + i))));
      }
      assertThat(counts.toString()).isEqualTo(resource(name + ".counts"));
    }
    assertThat(got.toString()).isEqualTo(adds);
    assertThat(probes(cf)).isEqualTo(resource(name + ".probes"));
    RedisBloomChainTest.assertSameDump(dump(cf), chunks(name));
  }

  @Test
  void info_asRedisBloomReportsIt() {
    RedisBloomCuckoo cf = RedisBloomCuckoo.create(1000, 4, 50, 1);
    assertThat(cf.bucketCount()).isEqualTo(256);
    assertThat(cf.sizeInBytes()).isEqualTo(1080); // RedisBloom's CF.INFO Size for it
    assertThat(RedisBloomCuckoo.create(100, 2, 20, 3).expansion()).isEqualTo(4);
    assertThat(cf.dumpChunk(1).isEnd()).as("no items: RedisBloom dumps nothing").isTrue();
  }

  @Test
  void idemsOwnFormat_keepsTheFilterWhole() throws Exception {
    RedisBloomCuckoo cf = load(chunks("cf-mixed"));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    cf.writeTo(out);
    RedisBloomCuckoo back =
        RedisBloomCuckoo.readFrom(new ByteArrayInputStream(out.toByteArray()), 1 << 20);
    RedisBloomChainTest.assertSameDump(dump(back), chunks("cf-mixed"));
    byte[] bytes = out.toByteArray();
    bytes[bytes.length / 2] ^= 1;
    assertThatThrownBy(() -> RedisBloomCuckoo.readFrom(new ByteArrayInputStream(bytes), 1 << 20))
        .isInstanceOf(IOException.class);
  }

  @Test
  void badHeadersAndChunks_areRefusedWithRedisBloomsTexts() throws Exception {
    byte[] good = chunks("cf-grow").getFirst().bytes();
    assertThatThrownBy(() -> RedisBloomCuckoo.fromHeader(new byte[37], bytes -> true))
        .isInstanceOfSatisfying(
            BadDumpException.class, e -> assertThat(e.reply()).isEqualTo("Invalid header"));
    int[][] corruptions = {{8, 3}, {24, 0}, {32, 0}, {34, 0}, {36, 0}, {14, 1}};
    for (int[] c : corruptions) {
      byte[] bad = good.clone();
      bad[c[0]] = (byte) c[1];
      if (c[0] == 36) {
        bad[37] = 0; // expansion 0 with three sub-filters
      }
      if (c[0] == 32 || c[0] == 34) {
        bad[c[0] + 1] = 0;
      }
      assertThatThrownBy(() -> RedisBloomCuckoo.fromHeader(bad, bytes -> true))
          .as("byte %d", c[0])
          .isInstanceOfSatisfying(
              BadDumpException.class,
              e -> assertThat(e.reply()).isEqualTo("Couldn't create filter!"));
    }
    assertThatThrownBy(() -> RedisBloomCuckoo.fromHeader(good, bytes -> false))
        .isInstanceOfSatisfying(
            BadDumpException.class,
            e -> assertThat(e.reply()).isEqualTo("Insufficient memory to create filter"));
    RedisBloomCuckoo cf = RedisBloomCuckoo.fromHeader(good, bytes -> true);
    assertThatThrownBy(() -> cf.loadChunk(5, new byte[8]))
        .isInstanceOfSatisfying(
            BadDumpException.class, e -> assertThat(e.reply()).isEqualTo("Couldn't load chunk!"));
    assertThatThrownBy(() -> cf.loadChunk(1 << 20, new byte[8]))
        .isInstanceOf(BadDumpException.class);
  }
}
