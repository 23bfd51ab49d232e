package io.idem.server.commands;

import static io.idem.server.commands.Harness.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.filter.ScalableBloomFilter;
import io.idem.server.commands.bloom.BloomCodec;
import io.idem.server.reply.Replies;
import io.idem.server.reply.Reply;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

/**
 * BF.LOADCHUNK fed random and mutated chunks: every reply is OK or a clear error, never an internal
 * error or an exception, and a refused chunk changes nothing. Mutations may recompute the checksum,
 * so the range and position checks behind it are reached too.
 */
class BloomChunkFuzzTest {

  /** A dump of a filter of three layers: the header, then one chunk per layer. */
  private static final List<Piece> DUMP;

  private static final List<String> ITEMS = new ArrayList<>();

  record Piece(long iter, byte[] data) {}

  static {
    Harness h = harness();
    h.call("BF.RESERVE", "src", "0.01", "50");
    List<String> words = new ArrayList<>(List.of("BF.MADD", "src"));
    for (int i = 0; i < 300; i++) {
      ITEMS.add("item-" + i);
      words.add("item-" + i);
    }
    h.call(words.toArray(String[]::new));
    DUMP = scanDump(h, "src");
  }

  @Property(seed = "101", tries = 400)
  void randomBytes_onAFreeKey_clearErrorAndNoKey(
      @ForAll long iter, @ForAll @Size(max = 120) byte[] data) {
    Harness h = harness();
    String reply = load(h, "k", iter, data);
    assertClear(reply);
    if (!reply.equals("OK")) {
      assertThat(h.engine.type(bytes("k"))).isEqualTo("none");
    }
  }

  @Property(seed = "102", tries = 400)
  void randomBytes_onAFilter_clearErrorAndNoChange(
      @ForAll long iter, @ForAll @Size(max = 300) byte[] data, @ForAll boolean nearAChunk)
      throws IOException {
    Harness h = harness();
    load(h, "k", DUMP.getFirst());
    byte[] before = filterBytes(h, "k");
    // Iterators near real ones reach the position checks more often than any long does.
    long at = nearAChunk ? DUMP.get(1).iter() + (iter % 64) * 8 : iter;
    String reply = load(h, "k", at, data);
    assertClear(reply);
    assertThat(reply).isNotEqualTo("OK"); // only a 32-bit checksum collision could load these
    assertThat(filterBytes(h, "k")).isEqualTo(before);
  }

  @Property(seed = "103", tries = 500)
  void mutatedHeader_clearErrorOrAWorkingFilter(@ForAll long seed, @ForAll boolean fixChecksum) {
    Harness h = harness();
    Random r = new Random(seed);
    byte[] header = mutate(DUMP.getFirst().data(), r);
    if (fixChecksum) {
      fixHeaderChecksum(header);
    }
    String reply = load(h, "k", 1, header);
    assertClear(reply);
    if (reply.equals("OK")) {
      // Whatever the header declared, the filter it made works.
      assertClear(h.show("BF.INFO", "k"));
      assertClear(h.show("BF.INFO", "k", "FPRATE"));
      assertClear(h.show("BF.MADD", "k", "a", "b", "c"));
      assertClear(h.show("BF.EXISTS", "k", "a"));
      assertThat(scanDump(h, "k")).isNotEmpty();
    } else {
      assertThat(h.engine.type(bytes("k"))).isEqualTo("none");
    }
  }

  @Property(seed = "104", tries = 500)
  void mutatedChunk_clearErrorAndNoChange_orOnlyMoreBits(
      @ForAll long seed, @ForAll boolean fixChecksum, @ForAll boolean moveIterator)
      throws IOException {
    Harness h = harness();
    load(h, "k", DUMP.getFirst());
    byte[] before = filterBytes(h, "k");
    Random r = new Random(seed);
    Piece chunk = DUMP.get(1 + r.nextInt(DUMP.size() - 1));
    byte[] data = mutate(chunk.data(), r);
    long iter = chunk.iter();
    if (moveIterator) {
      iter += r.nextBoolean() ? (r.nextInt(129) - 64) * 8L : r.nextLong();
    }
    if (fixChecksum) {
      fixChunkChecksum(iter, data);
    }
    String reply = load(h, "k", iter, data);
    assertClear(reply);
    if (!reply.equals("OK")) {
      assertThat(filterBytes(h, "k")).isEqualTo(before);
    }
    // Whatever was loaded, the real chunks still give a filter with every item.
    for (Piece p : DUMP.subList(1, DUMP.size())) {
      assertThat(load(h, "k", p)).isEqualTo("OK");
    }
    List<String> words = new ArrayList<>(List.of("BF.MEXISTS", "k"));
    words.addAll(ITEMS);
    assertThat(h.show(words.toArray(String[]::new))).doesNotContain("(integer) 0");
  }

  @Property(seed = "105", tries = 200)
  void everyTruncationOfEveryPiece_refused(@ForAll long seed) {
    Harness h = harness();
    Random r = new Random(seed);
    Piece p = DUMP.get(r.nextInt(DUMP.size()));
    byte[] cut = Arrays.copyOf(p.data(), r.nextInt(p.data().length));
    if (p.iter() != 1 || r.nextBoolean()) {
      load(h, "k", DUMP.getFirst());
    }
    String reply = load(h, "k", p.iter(), cut);
    assertClear(reply);
    assertThat(reply).startsWith("(error) ERR received bad data: ");
  }

  // ---- helpers

  private static Harness harness() {
    Harness h = new Harness();
    h.config.set("bf-layout", "blocked"); // the fuzzing of RedisBloom's chunks is in idem-core
    h.engine.setMaxMemory(16 << 20); // a mutated header may declare a large filter: not here
    return h;
  }

  private static void assertClear(String reply) {
    assertThat(reply).doesNotContain("internal error");
    if (reply.startsWith("(error)")) {
      assertThat(reply)
          .matches(
              "\\(error\\) (ERR received bad data: .+|ERR not found"
                  + "|ERR Insufficient memory to create filter"
                  + "|ERR problem inserting into filter|ERR non scaling filter is full)");
    }
  }

  /** One to three random edits: bytes set, a bit flipped, cut short, lengthened, a field set. */
  private static byte[] mutate(byte[] original, Random r) {
    byte[] b = original.clone();
    int edits = 1 + r.nextInt(3);
    for (int e = 0; e < edits; e++) {
      switch (r.nextInt(5)) {
        case 0 -> {
          if (b.length > 0) {
            b[r.nextInt(b.length)] = (byte) r.nextInt(256);
          }
        }
        case 1 -> {
          if (b.length > 0) {
            b[r.nextInt(b.length)] ^= (byte) (1 << r.nextInt(8));
          }
        }
        case 2 -> b = Arrays.copyOf(b, r.nextInt(b.length + 1));
        case 3 -> {
          int n = b.length;
          b = Arrays.copyOf(b, n + 1 + r.nextInt(40));
          for (int i = n; i < b.length; i++) {
            b[i] = (byte) r.nextInt(256);
          }
        }
        default -> {
          if (b.length >= 8) {
            long[] values = {0, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 31, 1L << 62, 255};
            ByteBuffer.wrap(b).putLong(r.nextInt(b.length - 7), values[r.nextInt(values.length)]);
          }
        }
      }
    }
    return b;
  }

  /** The layout's header checksum: CRC32C of every byte before it. */
  private static void fixHeaderChecksum(byte[] header) {
    if (header.length >= 4) {
      CRC32C crc = new CRC32C();
      crc.update(header, 0, header.length - 4);
      ByteBuffer.wrap(header).putInt(header.length - 4, (int) crc.getValue());
    }
  }

  /** The layout's chunk checksum: CRC32C of the words' byte offset, then the words. */
  private static void fixChunkChecksum(long iter, byte[] chunk) {
    if (chunk.length >= 4) {
      int words = chunk.length - 4;
      CRC32C crc = new CRC32C();
      crc.update(ByteBuffer.allocate(8).putLong(0, iter - 1 - words));
      crc.update(chunk, 0, words);
      ByteBuffer.wrap(chunk).putInt(words, (int) crc.getValue());
    }
  }

  private static List<Piece> scanDump(Harness h, String key) {
    List<Piece> out = new ArrayList<>();
    long iter = 0;
    while (true) {
      Reply.Array r = (Reply.Array) h.call("BF.SCANDUMP", key, Long.toString(iter));
      iter = ((Reply.Int) r.items().get(0)).value();
      if (iter == 0) {
        return out;
      }
      out.add(new Piece(iter, ((Reply.Bulk) r.items().get(1)).bytes()));
    }
  }

  private static String load(Harness h, String key, Piece p) {
    return load(h, key, p.iter(), p.data());
  }

  private static String load(Harness h, String key, long iter, byte[] data) {
    return Replies.show(
        h.call(bytes("BF.LOADCHUNK"), bytes(key), bytes(Long.toString(iter)), data));
  }

  private static byte[] filterBytes(Harness h, String key) throws IOException {
    ScalableBloomFilter f = h.engine.read(bytes(key), e -> e.valueAs(BloomCodec.INSTANCE));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    return out.toByteArray();
  }
}
