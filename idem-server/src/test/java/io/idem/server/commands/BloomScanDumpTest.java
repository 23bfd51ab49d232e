package io.idem.server.commands;

import static io.idem.server.commands.Harness.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.filter.ScalableBloomFilter;
import io.idem.server.commands.bloom.BloomCodec;
import io.idem.server.reply.Replies;
import io.idem.server.reply.Reply;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BloomScanDumpTest {

  private final Harness h = new Harness();

  {
    h.config.set("bf-layout", "blocked"); // Idem's own layout; the classic one is tested apart
  }

  /** One (iterator, bytes) pair, as a client keeps it. */
  record Piece(long iter, byte[] data) {}

  @Test
  void roundTrip_grownFilter_newKeyAnswersTheSameFor10kItems() throws IOException {
    h.call("BF.RESERVE", "src", "0.01", "1000");
    List<String> added = new ArrayList<>();
    for (int i = 0; i < 10_000; i += 500) {
      List<String> words = new ArrayList<>(List.of("BF.MADD", "src"));
      for (int j = i; j < i + 500; j++) {
        words.add("item-" + j);
        added.add("item-" + j);
      }
      h.call(words.toArray(String[]::new));
    }
    assertThat(h.show("BF.INFO", "src", "FILTERS")).isEqualTo("[(integer) 4]");
    List<Piece> dump = scanDump("src");
    assertThat(dump).hasSize(1 + 4); // the header, then each layer in one chunk
    for (Piece p : dump) {
      assertThat(show(h.call(bytes("BF.LOADCHUNK"), bytes("dst"), num(p.iter()), p.data())))
          .isEqualTo("OK");
    }
    assertThat(h.show("BF.INFO", "dst")).isEqualTo(h.show("BF.INFO", "src"));
    assertThat(filterBytes("dst")).isEqualTo(filterBytes("src"));
    List<String> probe = new ArrayList<>(added);
    for (int i = 0; i < 10_000; i++) {
      probe.add("other-" + i);
    }
    for (int i = 0; i < probe.size(); i += 1000) {
      List<String> q = probe.subList(i, i + 1000);
      String src = h.show(words("BF.MEXISTS", "src", q));
      assertThat(h.show(words("BF.MEXISTS", "dst", q))).isEqualTo(src);
    }
    assertThat(h.show(words("BF.MEXISTS", "dst", added.subList(0, 1000))))
        .doesNotContain("(integer) 0");
  }

  @Test
  void scanDump_smallFilter_headerThenOneChunkThenEnd() {
    h.call("BF.ADD", "k", "a");
    Reply.Array first = (Reply.Array) h.call("BF.SCANDUMP", "k", "0");
    assertThat(first.items().getFirst()).isEqualTo(Reply.integer(1));
    assertThat(((Reply.Bulk) first.items().get(1)).bytes()).hasSize(28 + 29 + 4);
    Reply.Array second = (Reply.Array) h.call("BF.SCANDUMP", "k", "1");
    assertThat(second.items().getFirst()).isEqualTo(Reply.integer(1 + 192));
    assertThat(((Reply.Bulk) second.items().get(1)).bytes()).hasSize(192 + 4);
    assertThat(h.show("BF.SCANDUMP", "k", "193")).isEqualTo("[(integer) 0, \"\"]");
    assertThat(h.show("BF.SCANDUMP", "k", "100000")).isEqualTo("[(integer) 0, \"\"]");
  }

  @Test
  void scanDump_layerOver16MiB_comesInChunksOfAtMost16MiB() throws IOException {
    h.call("BF.RESERVE", "big", "0.01", "12000000"); // one layer of 17,417,344 bytes
    h.call("BF.MADD", "big", "a", "b", "c");
    List<Piece> dump = scanDump("big");
    assertThat(dump).hasSize(3);
    assertThat(dump.get(1).data().length)
        .isEqualTo(2_097_144 * 8 + 4)
        .isLessThanOrEqualTo(16 << 20);
    assertThat(dump.get(2).data().length).isEqualTo(17_417_344 - 2_097_144 * 8 + 4);
    // Loaded in reverse chunk order: chunks are placed by their iterator.
    assertThat(load("copy", dump.get(0))).isEqualTo("OK");
    assertThat(load("copy", dump.get(2))).isEqualTo("OK");
    assertThat(load("copy", dump.get(1))).isEqualTo("OK");
    assertThat(filterBytes("copy")).isEqualTo(filterBytes("big"));
    assertThat(h.show("BF.MEXISTS", "copy", "a", "b", "c"))
        .isEqualTo("[(integer) 1, (integer) 1, (integer) 1]");
  }

  @Test
  void loadChunk_sameChunkTwiceOrIntoAFilterWithItems_onlyAddsBits() throws IOException {
    h.call("BF.MADD", "src", "a", "b");
    List<Piece> dump = scanDump("src");
    load("dst", dump.get(0));
    h.call("BF.ADD", "dst", "c"); // added between the header and the chunk
    assertThat(load("dst", dump.get(1))).isEqualTo("OK");
    assertThat(load("dst", dump.get(1))).isEqualTo("OK");
    assertThat(h.show("BF.MEXISTS", "dst", "a", "b", "c"))
        .isEqualTo("[(integer) 1, (integer) 1, (integer) 1]");
    assertThat(h.show("BF.CARD", "dst")).isEqualTo("(integer) 3");
  }

  @Test
  void loadChunk_headerOnly_filterExistsWithItsCountsAndNoBits() {
    h.call("BF.MADD", "src", "a", "b");
    List<Piece> dump = scanDump("src");
    assertThat(load("dst", dump.get(0))).isEqualTo("OK");
    assertThat(h.show("BF.INFO", "dst")).isEqualTo(h.show("BF.INFO", "src"));
    assertThat(h.show("BF.EXISTS", "dst", "a")).isEqualTo("(integer) 0");
    assertThat(h.engine.type(bytes("dst"))).isEqualTo("MBbloom--");
  }

  @Test
  void scanDump_errors() {
    assertThat(h.show("BF.SCANDUMP", "k", "0")).isEqualTo("(error) ERR not found");
    h.call("BF.ADD", "k", "a");
    assertThat(h.show("BF.SCANDUMP", "k", "x"))
        .isEqualTo("(error) Second argument must be numeric");
    assertThat(h.show("BF.SCANDUMP", "k", "1.5"))
        .isEqualTo("(error) Second argument must be numeric");
    assertThat(h.show("BF.SCANDUMP", "k", "-1"))
        .isEqualTo("(error) ERR invalid iterator: iterator -1 is not one BF.SCANDUMP returned");
    assertThat(h.show("BF.SCANDUMP", "k", "9"))
        .isEqualTo("(error) ERR invalid iterator: iterator 9 is not one BF.SCANDUMP returned");
    assertThat(h.show("BF.SCANDUMP", "k"))
        .isEqualTo("(error) ERR wrong number of arguments for 'bf.scandump' command");
    assertThat(h.show("BF.SCANDUMP", "k", "0", "1"))
        .isEqualTo("(error) ERR wrong number of arguments for 'bf.scandump' command");
  }

  @Test
  void loadChunk_errors_changeNothing() throws IOException {
    h.call("BF.MADD", "src", "a", "b");
    List<Piece> dump = scanDump("src");
    Piece header = dump.get(0);
    Piece chunk = dump.get(1);
    assertThat(h.show("BF.LOADCHUNK", "dst", "x", "y"))
        .isEqualTo("(error) ERR Second argument must be numeric");
    assertThat(load("dst", new Piece(chunk.iter(), chunk.data())))
        .isEqualTo("(error) ERR not found");
    assertThat(h.show("BF.LOADCHUNK", "dst", "1", "abc"))
        .isEqualTo(
            "(error) ERR received bad data: neither Idem's header nor RedisBloom's: a header of 3 bytes,"
                + " under 20");
    byte[] badMagic = header.data().clone();
    badMagic[0] = 'X';
    assertThat(load("dst", new Piece(1, badMagic)))
        .startsWith("(error) ERR received bad data: neither Idem's header nor RedisBloom's: ");
    byte[] flipped = header.data().clone();
    flipped[10] ^= 1;
    assertThat(load("dst", new Piece(1, flipped)))
        .isEqualTo("(error) ERR received bad data: header checksum mismatch");
    byte[] longer = java.util.Arrays.copyOf(header.data(), header.data().length + 29);
    assertThat(load("dst", new Piece(1, longer)))
        .isEqualTo("(error) ERR received bad data: header of 90 bytes does not hold 1 layers");
    assertThat(h.engine.type(bytes("dst"))).isEqualTo("none");

    load("dst", header);
    byte[] before = filterBytes("dst");
    assertThat(load("dst", header))
        .isEqualTo(
            "(error) ERR received bad data: a chunk of 61 bytes is not whole words and a checksum");
    assertThat(load("dst", new Piece(1, chunk.data())))
        .isEqualTo("(error) ERR received bad data: iterator 1 cannot follow a chunk of 24 words");
    assertThat(load("dst", new Piece(chunk.iter() + 8, chunk.data())))
        .isEqualTo(
            "(error) ERR received bad data: no chunk of 24 words ends at iterator 201 in this filter");
    assertThat(load("dst", new Piece(chunk.iter() + 192, chunk.data())))
        .isEqualTo("(error) ERR received bad data: iterator 385 is past the end of this filter");
    byte[] bitFlip = chunk.data().clone();
    bitFlip[5] ^= 0x10;
    assertThat(load("dst", new Piece(chunk.iter(), bitFlip)))
        .isEqualTo("(error) ERR received bad data: chunk checksum mismatch");
    assertThat(h.show("BF.LOADCHUNK", "dst", "193", ""))
        .isEqualTo(
            "(error) ERR received bad data: a chunk of 0 bytes is not whole words and a checksum");
    assertThat(filterBytes("dst")).isEqualTo(before);
    assertThat(h.show("BF.LOADCHUNK", "dst", "1"))
        .isEqualTo("(error) ERR wrong number of arguments for 'bf.loadchunk' command");
  }

  @Test
  void loadChunk_headerLargerThanMaxmemory_insufficientMemoryAndNoKey() {
    h.call("BF.RESERVE", "src", "0.01", "100000");
    Piece header = scanDump("src").get(0);
    h.engine.setMaxMemory(h.engine.usedMemory() + 1000);
    assertThat(load("dst", header)).isEqualTo("(error) ERR Insufficient memory to create filter");
    assertThat(h.engine.type(bytes("dst"))).isEqualTo("none");
  }

  // ---- helpers

  private List<Piece> scanDump(String key) {
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

  private String load(String key, Piece p) {
    return show(h.call(bytes("BF.LOADCHUNK"), bytes(key), num(p.iter()), p.data()));
  }

  private byte[] filterBytes(String key) throws IOException {
    ScalableBloomFilter f = h.engine.read(bytes(key), e -> e.valueAs(BloomCodec.INSTANCE));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    return out.toByteArray();
  }

  private static byte[] num(long n) {
    return bytes(Long.toString(n));
  }

  private static String show(Reply r) {
    return Replies.show(r);
  }

  private static String[] words(String name, String key, List<String> items) {
    List<String> w = new ArrayList<>(List.of(name, key));
    w.addAll(items);
    return w.toArray(String[]::new);
  }
}
