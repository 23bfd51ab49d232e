package io.idem.server.commands;

import static io.idem.server.commands.Harness.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.filter.CuckooFilter;
import io.idem.server.reply.Replies;
import io.idem.server.reply.Reply;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** CF.SCANDUMP and CF.LOADCHUNK through the dispatcher: round trips, shapes and error texts. */
class CuckooScanDumpTest {

  private final Harness h = new Harness();

  /** One SCANDUMP reply: the iterator it came back under, and its bytes. */
  record Chunk(long iter, byte[] data) {}

  static List<Chunk> dump(Harness h, String key) {
    List<Chunk> chunks = new ArrayList<>();
    long iter = 0;
    while (true) {
      List<Reply> pair = ((Reply.Array) h.call("CF.SCANDUMP", key, Long.toString(iter))).items();
      long next = ((Reply.Int) pair.get(0)).value();
      if (next == 0) {
        assertThat(pair.get(1)).isEqualTo(Reply.NULL);
        return chunks;
      }
      chunks.add(new Chunk(next, ((Reply.Bulk) pair.get(1)).bytes()));
      iter = next;
    }
  }

  static String load(Harness h, String key, long iter, byte[] data) {
    return Replies.show(
        h.call(bytes("CF.LOADCHUNK"), bytes(key), bytes(Long.toString(iter)), data));
  }

  static byte[] snapshot(Harness h, String key) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      filter(h, key).writeTo(out);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    return out.toByteArray();
  }

  static CuckooFilter filter(Harness h, String key) {
    return h.engine.read(bytes(key), e -> (CuckooFilter) e.value());
  }

  /** A filter grown to three sub-tables, with deletes: every field of the header is non-trivial. */
  private void grown(String key, int items) {
    h.call("CF.RESERVE", key, "200", "BUCKETSIZE", "3", "MAXITERATIONS", "7", "EXPANSION", "2");
    List<String> words = new ArrayList<>(List.of("CF.INSERT", key, "ITEMS"));
    for (int i = 0; i < items; i++) {
      words.add("item-" + i);
    }
    h.call(words.toArray(String[]::new));
    for (int i = 0; i < items; i += 50) {
      h.call("CF.DEL", key, "item-" + i);
    }
  }

  @Test
  void scanDumpThenLoadChunk_grownFilter_givesTheSameFilter() {
    grown("src", 1500);
    int tables = filter(h, "src").tableCount();
    assertThat(tables).isGreaterThanOrEqualTo(3);
    List<Chunk> chunks = dump(h, "src");
    assertThat(chunks).hasSize(1 + tables); // the header, then one chunk per sub-table
    assertThat(chunks.getFirst().iter()).isEqualTo(1);
    assertThat(chunks.getFirst().data()).hasSize(49);
    for (Chunk c : chunks) {
      assertThat(load(h, "copy", c.iter(), c.data())).isEqualTo("OK");
    }
    assertThat(snapshot(h, "copy")).isEqualTo(snapshot(h, "src"));
    assertThat(h.show("CF.INFO", "copy")).isEqualTo(h.show("CF.INFO", "src"));
    for (int i = 0; i < 1600; i++) {
      assertThat(h.show("CF.COUNT", "copy", "item-" + i))
          .isEqualTo(h.show("CF.COUNT", "src", "item-" + i));
    }
    assertThat(h.engine.type(bytes("copy"))).isEqualTo("MBbloomCF");
  }

  @Test
  void scanDump_chunkIteratorsAreOnePastTheirBytes() {
    h.call("CF.RESERVE", "k", "1000"); // one sub-table of 216 words
    h.call("CF.ADD", "k", "a");
    List<Chunk> chunks = dump(h, "k");
    assertThat(chunks).hasSize(2);
    assertThat(chunks.get(1).iter()).isEqualTo(1 + 216 * 8);
    assertThat(chunks.get(1).data()).hasSize(216 * 8 + 4); // the words, then a CRC32C
    assertThat(h.show("CF.SCANDUMP", "k", Long.toString(1 + 216 * 8)))
        .isEqualTo("[(integer) 0, (nil)]");
  }

  @Test
  void scanDump_largeSubTable_chunksOfAtMost16MiB() {
    // 10 M items: 8,620,690 buckets of 2 bytes, 2,155,173 words: one full chunk and a rest.
    h.call("CF.RESERVE", "big", "10000000");
    h.call("CF.INSERT", "big", "ITEMS", "a", "b", "c");
    List<Chunk> chunks = dump(h, "big");
    int maxWords = (16 << 20) / 8 - 1;
    long words = filter(h, "big").wordCount(0);
    assertThat(chunks).hasSize(3);
    assertThat(chunks.get(1).data()).hasSize(maxWords * 8 + 4);
    assertThat(chunks.get(1).data().length).isLessThanOrEqualTo(16 << 20);
    assertThat(chunks.get(1).iter()).isEqualTo(1 + maxWords * 8L);
    assertThat(chunks.get(2).data()).hasSize((int) (words - maxWords) * 8 + 4);
    assertThat(chunks.get(2).iter()).isEqualTo(1 + words * 8);
    // Loaded out of order, the copy is the same.
    assertThat(load(h, "copy", 1, chunks.get(0).data())).isEqualTo("OK");
    assertThat(load(h, "copy", chunks.get(2).iter(), chunks.get(2).data())).isEqualTo("OK");
    assertThat(h.show("CF.MEXISTS", "copy", "a", "b", "c"))
        .isEqualTo("[(integer) 0, (integer) 0, (integer) 0]");
    assertThat(load(h, "copy", chunks.get(1).iter(), chunks.get(1).data())).isEqualTo("OK");
    assertThat(h.show("CF.MEXISTS", "copy", "a", "b", "c"))
        .isEqualTo("[(integer) 1, (integer) 1, (integer) 1]");
    assertThat(snapshot(h, "copy")).isEqualTo(snapshot(h, "big"));
  }

  @Test
  void scanDump_emptyFilter_endsAtOnce_asRedisBloom() {
    h.call("CF.RESERVE", "k", "100");
    assertThat(h.show("CF.SCANDUMP", "k", "0")).isEqualTo("[(integer) 0, (nil)]");
    h.call("CF.ADD", "k", "a");
    assertThat(h.show("CF.SCANDUMP", "k", "0")).startsWith("[(integer) 1, ");
    h.call("CF.DEL", "k", "a");
    assertThat(h.show("CF.SCANDUMP", "k", "0")).isEqualTo("[(integer) 0, (nil)]");
  }

  @Test
  void scanDump_errors() {
    assertThat(h.show("CF.SCANDUMP", "k", "x")).isEqualTo("(error) Invalid position");
    assertThat(h.show("CF.SCANDUMP", "k", "-1")).isEqualTo("(error) Invalid position");
    assertThat(h.show("CF.SCANDUMP", "k", "0")).isEqualTo("(error) ERR not found");
    h.call("CF.ADD", "k", "a");
    assertThat(h.show("CF.SCANDUMP", "k", "2"))
        .isEqualTo("(error) Invalid position: iterator 2 is not one CF.SCANDUMP returned");
    assertThat(h.show("CF.SCANDUMP", "k", "9223372036854775807")).isEqualTo("[(integer) 0, (nil)]");
    h.engine.write(
        bytes("s"), tx -> tx.create(CuckooCommandsTest.OtherCodec.INSTANCE, "x", new byte[0]));
    assertThat(h.show("CF.SCANDUMP", "s", "0"))
        .isEqualTo("(error) WRONGTYPE Operation against a key holding the wrong kind of value");
    assertThat(h.show("CF.SCANDUMP", "k"))
        .isEqualTo("(error) ERR wrong number of arguments for 'cf.scandump' command");
  }

  @Test
  void loadChunk_positionAndKeyErrors() {
    h.call("CF.ADD", "k", "a");
    List<Chunk> chunks = dump(h, "k");
    byte[] header = chunks.get(0).data();
    byte[] words = chunks.get(1).data();
    long wordsIter = chunks.get(1).iter();
    assertThat(load(h, "c", 0, header)).isEqualTo("(error) Invalid position");
    assertThat(Replies.show(h.call(bytes("CF.LOADCHUNK"), bytes("c"), bytes("1x"), header)))
        .isEqualTo("(error) Invalid position");
    assertThat(load(h, "k", 1, header)).isEqualTo("(error) ERR item exists");
    assertThat(load(h, "c", wordsIter, words)).isEqualTo("(error) ERR not found");
    h.engine.write(
        bytes("s"), tx -> tx.create(CuckooCommandsTest.OtherCodec.INSTANCE, "x", new byte[0]));
    String wrong = "(error) WRONGTYPE Operation against a key holding the wrong kind of value";
    assertThat(load(h, "s", 1, header)).isEqualTo(wrong);
    assertThat(load(h, "s", wordsIter, words)).isEqualTo(wrong);
    assertThat(h.engine.type(bytes("c"))).isEqualTo("none");
    assertThat(h.show("CF.LOADCHUNK", "c", "1"))
        .isEqualTo("(error) ERR wrong number of arguments for 'cf.loadchunk' command");
  }

  @Test
  void loadChunk_badHeader_exactTexts_nothingCreated() {
    h.call("CF.ADD", "k", "a");
    byte[] header = dump(h, "k").get(0).data();
    assertThat(load(h, "c", 1, Arrays.copyOf(header, 37))).isEqualTo("(error) Invalid header");
    // 38 bytes is RedisBloom's header: read as one, and refused as one.
    assertThat(load(h, "c", 1, Arrays.copyOf(header, 38)))
        .startsWith("(error) Couldn't create filter!: ");
    assertThat(load(h, "c", 1, Arrays.copyOf(header, 50))).isEqualTo("(error) Invalid header");
    byte[] flipped = header.clone();
    flipped[10] ^= 1;
    assertThat(load(h, "c", 1, flipped))
        .isEqualTo("(error) Couldn't create filter!: header checksum mismatch");
    byte[] magic = header.clone();
    magic[0] = 'X';
    assertThat(load(h, "c", 1, magic))
        .isEqualTo("(error) Couldn't create filter!: not a header of CF.SCANDUMP");
    byte[] version = header.clone();
    version[4] = 2;
    assertThat(load(h, "c", 1, version))
        .isEqualTo("(error) Couldn't create filter!: header version 2 is not 1");
    assertThat(h.engine.type(bytes("c"))).isEqualTo("none");
  }

  @Test
  void loadChunk_headerFieldsOutOfRange_namesTheField() {
    // Headers written by hand from the documented layout, with a good checksum.
    assertThat(load(h, "c", 1, header(0, 0.01, 8, 2, 20, 1, 1, 10, 0)))
        .isEqualTo("(error) Couldn't create filter!: capacity 0 is not in [1, 1073741824]");
    assertThat(load(h, "c", 1, header(100, 0.01, 8, 0, 20, 1, 1, 10, 0)))
        .isEqualTo("(error) Couldn't create filter!: bucket size (0) must be in [1, 255]");
    assertThat(load(h, "c", 1, header(100, 0.01, 8, 2, 20, 0, 2, 10, 0)))
        .isEqualTo(
            "(error) Couldn't create filter!: sub-tables (2) must be in [1, 32], and 1 when"
                + " expansion is 0");
    assertThat(load(h, "c", 1, header(100, 0.01, 8, 2, 20, 1, 1, 10, -1)))
        .isEqualTo("(error) Couldn't create filter!: deletes -1 is negative");
    assertThat(load(h, "c", 1, header(100, Double.NaN, 8, 2, 20, 1, 1, 10, 0)))
        .isEqualTo("(error) Couldn't create filter!: error rate (NaN) must be in (0, 1]");
    // More buckets than any sizing gives the capacity: refused before allocating 1 GiB.
    assertThat(load(h, "c", 1, header(100, 0.01, 8, 2, 20, 1, 1, 1L << 29, 0)))
        .isEqualTo(
            "(error) Couldn't create filter!: 536870912 buckets of 2 slots are too many for"
                + " capacity 100");
    // 32 sub-tables of 2^24 slots: 512 MiB, a valid shape, over this server's maxmemory.
    h.engine.setMaxMemory(64 << 20);
    assertThat(load(h, "c", 1, header(1 << 24, 0.01, 8, 1, 20, 1, 32, 1 << 24, 0)))
        .isEqualTo("(error) Couldn't create filter!: no memory for its 536870912 bytes");
    assertThat(h.engine.type(bytes("c"))).isEqualTo("none");
  }

  @Test
  void loadChunk_badChunks_exactTexts_filterUnchanged() {
    grown("src", 600);
    List<Chunk> chunks = dump(h, "src");
    assertThat(chunks).hasSizeGreaterThanOrEqualTo(3);
    assertThat(load(h, "c", 1, chunks.get(0).data())).isEqualTo("OK");
    Chunk first = chunks.get(1);
    assertThat(load(h, "c", first.iter(), first.data())).isEqualTo("OK");
    byte[] before = snapshot(h, "c");
    String prefix = "(error) Couldn't load chunk!: ";
    assertThat(load(h, "c", first.iter(), Arrays.copyOf(first.data(), 11)))
        .isEqualTo(prefix + "a chunk of 11 bytes is not whole words and a checksum");
    assertThat(load(h, "c", first.iter(), Arrays.copyOf(first.data(), first.data().length - 1)))
        .startsWith(prefix + "a chunk of ");
    assertThat(load(h, "c", 5, first.data()))
        .isEqualTo(
            prefix
                + "iterator 5 cannot follow a chunk of "
                + (first.data().length - 4) / 8
                + " words");
    assertThat(load(h, "c", -7, first.data())).startsWith(prefix + "iterator -7 cannot follow");
    assertThat(load(h, "c", first.iter() + 8, first.data())).startsWith(prefix + "no chunk of ");
    assertThat(load(h, "c", chunks.get(2).iter(), first.data()))
        .startsWith(prefix + "no chunk of ");
    byte[] corrupt = first.data().clone();
    corrupt[3] ^= 0x10;
    assertThat(load(h, "c", first.iter(), corrupt)).isEqualTo(prefix + "chunk checksum mismatch");
    long end = chunks.getLast().iter();
    assertThat(load(h, "c", end + 16, new byte[12]))
        .isEqualTo(prefix + "iterator " + (end + 16) + " is past the end of this filter");
    assertThat(snapshot(h, "c")).isEqualTo(before);
  }

  @Test
  void loadChunk_spareBitsSetWithAGoodChecksum_refused() {
    // 3 / (1 * 0.25 load) -> 12 one-slot buckets of 8 bits: 96 bits, the second word has 32
    // spare bits.
    h.call("CF.RESERVE", "k", "3", "BUCKETSIZE", "1", "EXPANSION", "0");
    h.call("CF.ADD", "k", "a");
    CuckooFilter f = filter(h, "k");
    assertThat(f.wordCount(0)).isEqualTo(2);
    List<Chunk> chunks = dump(h, "k");
    assertThat(load(h, "c", 1, chunks.get(0).data())).isEqualTo("OK");
    byte[] data = chunks.get(1).data().clone();
    data[8] = 1; // the top byte of word 1: bits 56..63, past slot 11
    ByteBuffer.wrap(data).putInt(16, chunkCrc(0, data, 16));
    assertThat(load(h, "c", chunks.get(1).iter(), data))
        .isEqualTo("(error) Couldn't load chunk!: sub-table 0 has bits set past its last slot");
  }

  /** A header laid out as CuckooDump documents it, with a correct checksum. */
  static byte[] header(
      long capacity,
      double errorRate,
      int fingerprintBits,
      int bucketSize,
      int maxIterations,
      int expansion,
      int tables,
      long firstBuckets,
      long deletes) {
    ByteBuffer b = ByteBuffer.allocate(49);
    b.putInt(0x49434644).put((byte) 1).put((byte) 1);
    b.putLong(capacity).putDouble(errorRate).put((byte) fingerprintBits).put((byte) bucketSize);
    b.putShort((short) maxIterations).putShort((short) expansion).put((byte) tables);
    b.putLong(firstBuckets).putLong(deletes);
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, 45);
    b.putInt((int) crc.getValue());
    return b.array();
  }

  static int chunkCrc(long offset, byte[] words, int length) {
    CRC32C crc = new CRC32C();
    crc.update(ByteBuffer.allocate(8).putLong(0, offset));
    crc.update(words, 0, length);
    return (int) crc.getValue();
  }
}
