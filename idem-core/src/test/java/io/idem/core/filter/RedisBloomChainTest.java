package io.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * RedisBloom's filters, against golden files recorded from RedisBloom 2.6.28 itself
 * (scripts/redisbloom-golden.py): a dump loads and answers every item as RedisBloom did, and the
 * same adds made here give the same replies and the same dump, byte for byte.
 */
class RedisBloomChainTest {

  /** One golden chunk: the iterator BF.LOADCHUNK takes with it, and its bytes. */
  record Chunk(long iterator, byte[] bytes) {}

  static List<Chunk> chunks(String name) throws IOException {
    List<Chunk> out = new ArrayList<>();
    for (String line : resource(name + ".chunks").split("\n")) {
      String[] parts = line.split("\t");
      out.add(new Chunk(Long.parseLong(parts[0]), Base64.getDecoder().decode(parts[1])));
    }
    return out;
  }

  static String resource(String file) throws IOException {
    try (InputStream in = RedisBloomChainTest.class.getResourceAsStream("/redisbloom/" + file)) {
      if (in == null) {
        throw new IOException("no golden file " + file);
      }
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII).strip();
    }
  }

  static byte[] item(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static RedisBloomChain load(List<Chunk> chunks) throws BadDumpException {
    RedisBloomChain chain = RedisBloomChain.fromHeader(chunks.getFirst().bytes(), bytes -> true);
    for (Chunk c : chunks.subList(1, chunks.size())) {
      chain.loadChunk(c.iterator(), c.bytes());
    }
    return chain;
  }

  /** The chain's dump as BF.SCANDUMP gives it: the header at iterator 1, then each chunk. */
  static List<Chunk> dump(RedisBloomChain chain) {
    List<Chunk> out = new ArrayList<>();
    out.add(new Chunk(1, chain.dumpHeader()));
    for (long it = 1; ; ) {
      DumpChunk c = chain.dumpChunk(it);
      if (c.next() == 0) {
        assertThat(c.bytes()).isEmpty();
        return out;
      }
      out.add(new Chunk(c.next(), c.bytes()));
      it = c.next();
    }
  }

  static void assertSameDump(List<Chunk> got, List<Chunk> expected) {
    assertThat(got).hasSameSizeAs(expected);
    for (int i = 0; i < got.size(); i++) {
      assertThat(got.get(i).iterator())
          .as("iterator of chunk %d", i)
          .isEqualTo(expected.get(i).iterator());
      assertThat(got.get(i).bytes()).as("bytes of chunk %d", i).isEqualTo(expected.get(i).bytes());
    }
  }

  @ParameterizedTest
  @CsvSource({
    "scaling, 3500",
    "nonscaling, 400",
    "expansion4, 1000",
    "default, 250",
    "tight, 300",
    "loose, 200"
  })
  void aRedisBloomDump_loadsAndAnswersEveryItemAsRedisBloomDid(String name, int count)
      throws Exception {
    RedisBloomChain chain = load(chunks(name));
    for (int i = 0; i < count; i++) {
      assertThat(chain.mightContain(item("item-" + i))).as("item-%d", i).isTrue();
    }
    String probes = resource(name + ".probes");
    for (int i = 0; i < probes.length(); i++) {
      assertThat(chain.mightContain(item("absent-" + i)) ? '1' : '0')
          .as("BF.EXISTS absent-%d", i)
          .isEqualTo(probes.charAt(i));
    }
    String adds = resource(name + ".adds");
    assertThat(chain.itemCount()).isEqualTo(adds.chars().filter(c -> c == '1').count());
    assertSameDump(dump(chain), chunks(name));
  }

  @ParameterizedTest
  @CsvSource({
    "scaling, 1000, 0.01, 2, false",
    "nonscaling, 500, 0.001, 2, true",
    "expansion4, 100, 0.1, 4, false",
    "default, 100, 0.01, 2, false",
    "tight, 200, 0.0000001, 2, false",
    "loose, 64, 0.25, 2, false"
  })
  void theSameAddsHere_giveRedisBloomsRepliesAndItsDump_byteForByte(
      String name, long capacity, double error, int expansion, boolean nonScaling)
      throws Exception {
    RedisBloomChain chain = RedisBloomChain.create(capacity, error, expansion, nonScaling);
    String adds = resource(name + ".adds");
    for (int i = 0; i < adds.length(); i++) {
      assertThat(chain.add(item("item-" + i)) ? '1' : '0')
          .as("BF.ADD item-%d", i)
          .isEqualTo(adds.charAt(i));
    }
    assertSameDump(dump(chain), chunks(name));
  }

  @Test
  void idemsOwnFormat_keepsTheChainWhole() throws Exception {
    RedisBloomChain chain = load(chunks("scaling"));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    chain.writeTo(out);
    RedisBloomChain back =
        RedisBloomChain.readFrom(new ByteArrayInputStream(out.toByteArray()), 1 << 20);
    assertSameDump(dump(back), chunks("scaling"));
    assertThat(back.itemCount()).isEqualTo(chain.itemCount());

    byte[] bytes = out.toByteArray();
    bytes[bytes.length / 2] ^= 1;
    assertThatThrownBy(() -> RedisBloomChain.readFrom(new ByteArrayInputStream(bytes), 1 << 20))
        .isInstanceOf(IOException.class);
  }

  @Test
  void info_asRedisBloomReportsIt() throws Exception {
    RedisBloomChain chain = RedisBloomChain.create(1000, 0.01, 2, false);
    assertThat(chain.capacity()).isEqualTo(1000);
    assertThat(chain.configuredErrorRate()).isEqualTo(0.01);
    assertThat(chain.linkCount()).isEqualTo(1);
    // RedisBloom: BF.RESERVE 0.01 1000 gives a link of 1384 bytes; Size adds 32 + 64 for structs.
    assertThat(chain.sizeInBytes()).isEqualTo(32 + 64 + 1384);
    assertThat(RedisBloomChain.firstLinkBytes(1000, 0.01, false)).isEqualTo(1384);
  }

  private static byte[] header(long size, int nfilters, int options, int growth, byte[]... links) {
    ByteBuffer b = ByteBuffer.allocate(20 + 53 * links.length).order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(size).putInt(nfilters).putInt(options).putInt(growth);
    for (byte[] l : links) {
      b.put(l);
    }
    return b.array();
  }

  private static byte[] link(
      long bytes,
      long bits,
      long size,
      double error,
      double bpe,
      int hashes,
      long entries,
      int n2) {
    return ByteBuffer.allocate(53)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putLong(bytes)
        .putLong(bits)
        .putLong(size)
        .putDouble(error)
        .putDouble(bpe)
        .putInt(hashes)
        .putLong(entries)
        .put((byte) n2)
        .array();
  }

  @Test
  void badHeaders_areRefusedAsRedisBloomRefusesThem_beforeAnyAllocation() {
    double bpe = 11.027753418256411;
    byte[] good = link(1384, 11072, 0, 0.005, bpe, 8, 1000, 0);
    assertThat(header(0, 1, 5, 2, good)).hasSize(73);
    String[] texts = new String[1];
    java.util.function.LongPredicate refuse =
        bytes -> {
          texts[0] = "asked " + bytes;
          return false;
        };
    byte[][] bad = {
      new byte[19],
      header(0, 0, 5, 2),
      header(0, 2, 5, 2, good),
      header(0, 1, 5 | 16, 2, good),
      header(0, 1, 1, 2, good), // 32-bit hashing
      header(1, 1, 5, 2, good), // size is not the links'
      header(0, 1, 5, 2, link(1384, 11072, 0, 1.5, bpe, 8, 1000, 0)),
      header(0, 1, 5, 2, link(1384, 11071, 0, 0.005, bpe, 8, 1000, 0)),
      header(0, 1, 5, 2, link(1384, 11072, 0, 0.005, bpe, 9, 1000, 0)),
      header(0, 1, 5, 2, link(1L << 40, 1L << 43, 0, 0.005, bpe, 8, 1000, 0)),
      header(0, 1, 5, 2, link(1384, 11072, 2000, 0.005, bpe, 8, 1000, 0)),
    };
    for (byte[] h : bad) {
      assertThatThrownBy(() -> RedisBloomChain.fromHeader(h, bytes -> true))
          .isInstanceOfSatisfying(
              BadDumpException.class, e -> assertThat(e.reply()).isEqualTo("received bad data"));
    }
    assertThatThrownBy(() -> RedisBloomChain.fromHeader(header(0, 1, 5, 2, good), refuse))
        .isInstanceOfSatisfying(
            BadDumpException.class,
            e -> assertThat(e.reply()).isEqualTo("Insufficient memory to create filter"));
    assertThat(texts[0]).isEqualTo("asked 1384");
  }

  @Test
  void badChunks_areRefused_andAChunkPastALinkChangesNothing() throws Exception {
    RedisBloomChain chain =
        RedisBloomChain.fromHeader(
            RedisBloomChain.create(1000, 0.01, 2, false).dumpHeader(), bytes -> true);
    assertThatThrownBy(() -> chain.loadChunk(0, new byte[8])).hasMessageContaining("iterator 0");
    assertThatThrownBy(() -> chain.loadChunk(5000, new byte[8]))
        .isInstanceOfSatisfying(
            BadDumpException.class,
            e -> assertThat(e.reply()).isEqualTo("invalid offset - no link found"));
    byte[] ones = new byte[1385];
    java.util.Arrays.fill(ones, (byte) -1);
    assertThatThrownBy(() -> chain.loadChunk(1 + 1385, ones))
        .isInstanceOfSatisfying(
            BadDumpException.class,
            e -> assertThat(e.reply()).isEqualTo("invalid chunk - Too big for current filter"));
    assertThat(chain.mightContain(item("x"))).as("nothing was written").isFalse();
  }

  @Test
  void aNonScalingChain_isFullAtItsCapacity() {
    RedisBloomChain chain = RedisBloomChain.create(10, 0.01, 2, true);
    int added = 0;
    for (int i = 0; added < 10; i++) {
      if (chain.add(item("i" + i))) {
        added++;
      }
    }
    assertThatThrownBy(() -> chain.add(item("one more, surely new")))
        .isInstanceOf(FilterFullException.class);
    assertThat(chain.linkCount()).isEqualTo(1);
  }

  @Test
  void mightContainAll_answersAsMightContain_forEveryItem() {
    java.util.SplittableRandom r = new java.util.SplittableRandom(7);
    for (int round = 0; round < 20; round++) {
      boolean nonScaling = round % 4 == 0;
      RedisBloomChain c =
          RedisBloomChain.create(1 + r.nextInt(200), 0.001 + r.nextDouble(0.2), 2, nonScaling);
      int adds = nonScaling ? (int) c.capacity() : r.nextInt(1500);
      long[][] added = new long[adds][];
      for (int i = 0; i < adds; i++) {
        added[i] = new long[] {r.nextLong(), r.nextLong()};
        c.add(added[i][0], added[i][1]);
      }
      int n = r.nextInt(300);
      long[] a = new long[n];
      long[] b = new long[n];
      for (int i = 0; i < n; i++) {
        // Added and absent items mixed: groups lose members at different probes and links.
        long[] pair = adds > 0 && r.nextBoolean() ? added[r.nextInt(adds)] : null;
        a[i] = pair != null ? pair[0] : r.nextLong();
        b[i] = pair != null ? pair[1] : r.nextLong();
      }
      boolean[] found = new boolean[n];
      java.util.Arrays.fill(found, true); // stale answers must be overwritten
      c.mightContainAll(a, b, n, found);
      int yes = 0;
      for (int i = 0; i < n; i++) {
        assertThat(found[i]).as("round %d item %d", round, i).isEqualTo(c.mightContain(a[i], b[i]));
        yes += found[i] ? 1 : 0;
      }
      if (adds > 0 && n > 20) {
        assertThat(yes).isPositive().isLessThan(n); // both answers occur
      }
    }
  }
}
