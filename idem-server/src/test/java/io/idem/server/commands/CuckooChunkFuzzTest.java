package io.idem.server.commands;

import static io.idem.server.commands.CuckooScanDumpTest.load;
import static io.idem.server.commands.CuckooScanDumpTest.snapshot;
import static io.idem.server.commands.Harness.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.commands.CuckooScanDumpTest.Chunk;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * CF.LOADCHUNK fed random and mutated input with fixed seeds: every bad chunk or header gets one of
 * the documented error replies and changes nothing, never an internal error; the valid chunks then
 * still rebuild a filter that answers as the original.
 */
class CuckooChunkFuzzTest {

  private static final List<String> ERRORS =
      List.of(
          "(error) Invalid position",
          "(error) Invalid header",
          "(error) Couldn't create filter!: ",
          "(error) Couldn't load chunk!: ",
          "(error) ERR item exists");

  private final Harness h = new Harness();
  private List<Chunk> chunks = List.of();

  private void source() {
    h.call("CF.RESERVE", "src", "150", "BUCKETSIZE", "3", "MAXITERATIONS", "6", "EXPANSION", "2");
    List<String> words = new ArrayList<>(List.of("CF.INSERT", "src", "ITEMS"));
    for (int i = 0; i < 700; i++) {
      words.add("item-" + i);
    }
    h.call(words.toArray(String[]::new));
    chunks = CuckooScanDumpTest.dump(h, "src");
    assertThat(chunks).hasSizeGreaterThanOrEqualTo(4); // a header and three sub-tables at least
  }

  @Test
  void loadChunk_mutatedAndRandomChunks_errorRepliesOnly_thenValidChunksRebuild() {
    source();
    assertThat(load(h, "dst", 1, chunks.getFirst().data())).isEqualTo("OK");
    for (long seed : new long[] {1, 2, 3}) {
      SplittableRandom random = new SplittableRandom(seed);
      for (int i = 0; i < 1500; i++) {
        Chunk valid = chunks.get(1 + random.nextInt(chunks.size() - 1));
        long iter = valid.iter();
        byte[] data = valid.data();
        switch (random.nextInt(5)) {
          case 0 -> data = mutate(data, random);
          case 1 -> iter = iter + random.nextInt(-64, 65);
          case 2 -> iter = random.nextLong();
          case 3 -> data = randomBytes(random, random.nextInt(0, 64));
          default -> {
            data = mutate(data, random);
            iter = chunks.get(1 + random.nextInt(chunks.size() - 1)).iter();
          }
        }
        if (Arrays.equals(data, valid.data()) && iter == valid.iter()) {
          continue; // a valid chunk: loading it is not what this test is about
        }
        byte[] before = snapshot(h, "dst");
        String reply = load(h, "dst", iter, data);
        assertThat(ERRORS).as("seed %s, case %s: %s", seed, i, reply).anyMatch(reply::startsWith);
        assertThat(snapshot(h, "dst")).as("seed %s, case %s", seed, i).isEqualTo(before);
      }
    }
    for (Chunk c : chunks.subList(1, chunks.size())) {
      assertThat(load(h, "dst", c.iter(), c.data())).isEqualTo("OK");
    }
    assertThat(snapshot(h, "dst")).isEqualTo(snapshot(h, "src"));
    for (int i = 0; i < 800; i++) {
      assertThat(h.show("CF.EXISTS", "dst", "item-" + i))
          .isEqualTo(h.show("CF.EXISTS", "src", "item-" + i));
    }
  }

  @Test
  void loadChunk_mutatedAndRandomHeaders_onAFreeKey_errorRepliesOnly() {
    source();
    byte[] header = chunks.getFirst().data();
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 3000; i++) {
      byte[] data =
          switch (random.nextInt(3)) {
            case 0 -> mutate(header, random);
            case 1 -> randomBytes(random, header.length);
            default -> randomBytes(random, random.nextInt(0, 100));
          };
      String reply = load(h, "dst", 1, data);
      if (reply.equals("OK")) {
        // Only the header itself passes its checksum: the same empty filter.
        assertThat(data).isEqualTo(header);
        h.engine.delete(List.of(bytes("dst")));
        continue;
      }
      assertThat(ERRORS).as("case %s: %s", i, reply).anyMatch(reply::startsWith);
      assertThat(h.engine.type(bytes("dst"))).isEqualTo("none");
    }
  }

  @Test
  void loadChunk_randomIteratorsAndBytes_onAFreeKey_notFoundOrInvalid() {
    SplittableRandom random = new SplittableRandom(11);
    for (int i = 0; i < 2000; i++) {
      long iter = random.nextBoolean() ? random.nextLong() : random.nextLong(-3, 100_000);
      String reply = load(h, "free", iter, randomBytes(random, random.nextInt(0, 80)));
      assertThat(reply)
          .as("iterator %s", iter)
          .isIn(
              "(error) ERR not found",
              "(error) Invalid position",
              "(error) Invalid header",
              "(error) Couldn't create filter!: header checksum mismatch",
              "(error) Couldn't create filter!: not a header of CF.SCANDUMP");
    }
    assertThat(h.engine.type(bytes("free"))).isEqualTo("none");
  }

  /** One to four changes: flipped bits, a truncation, an extension, or a replaced byte. */
  static byte[] mutate(byte[] valid, SplittableRandom random) {
    byte[] b = valid.clone();
    int changes = 1 + random.nextInt(4);
    for (int c = 0; c < changes; c++) {
      switch (random.nextInt(4)) {
        case 0 -> {
          if (b.length > 0) {
            int bit = random.nextInt(b.length * 8);
            b[bit / 8] ^= (byte) (1 << (bit % 8));
          }
        }
        case 1 -> b = Arrays.copyOf(b, random.nextInt(b.length + 1));
        case 2 -> {
          byte[] more = randomBytes(random, 1 + random.nextInt(16));
          byte[] longer = Arrays.copyOf(b, b.length + more.length);
          System.arraycopy(more, 0, longer, b.length, more.length);
          b = longer;
        }
        default -> {
          if (b.length > 0) {
            b[random.nextInt(b.length)] = (byte) random.nextInt(256);
          }
        }
      }
    }
    return b;
  }

  static byte[] randomBytes(SplittableRandom random, int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) random.nextInt(256);
    }
    return b;
  }
}
