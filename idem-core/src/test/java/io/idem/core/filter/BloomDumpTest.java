package io.idem.core.filter;

import static io.idem.core.filter.BloomFilter.Storage.HEAP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.hash.Hash128;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The chunk layout with small chunks, so one layer spans several of them. */
class BloomDumpTest {

  private static final int WORDS = 5; // chunks of 5 words: layers of 8k words split unevenly

  @Test
  void chunks_ofEveryLayer_atMostMaxWordsAndNeverAcrossLayers() throws IOException {
    ScalableBloomFilter f = filter(3, 60);
    List<DumpChunk> chunks = chunks(f);
    long words = 0;
    for (int i = 0; i < f.layerCount(); i++) {
      words += f.layer(i).wordCount();
    }
    long expected = 0;
    for (int i = 0; i < f.layerCount(); i++) {
      expected += (f.layer(i).wordCount() + WORDS - 1) / WORDS;
    }
    assertThat(chunks).hasSize((int) expected);
    long total = 0;
    for (DumpChunk c : chunks) {
      assertThat(c.bytes().length - 4).isPositive().isLessThanOrEqualTo(WORDS * 8);
      total += c.bytes().length - 4;
    }
    assertThat(total).isEqualTo(words * 8);
    assertThat(BloomDump.chunk(f, chunks.getLast().next(), WORDS)).isEqualTo(DumpChunk.END);
  }

  @Test
  void load_everyChunkInAnyOrder_givesTheSameFilter() throws IOException {
    ScalableBloomFilter f = filter(2, 100);
    List<DumpChunk> chunks = new ArrayList<>(chunks(f));
    Collections.shuffle(chunks, new Random(5));
    ScalableBloomFilter g = BloomDump.build(BloomDump.parseHeader(BloomDump.header(f)), HEAP);
    for (DumpChunk c : chunks) {
      BloomDump.load(g, c.next(), c.bytes(), WORDS);
    }
    assertThat(bytes(g)).isEqualTo(bytes(f));
  }

  @Test
  void load_chunkOfAnotherPositionOrSize_refused() throws IOException {
    ScalableBloomFilter f = filter(2, 100);
    List<DumpChunk> chunks = chunks(f);
    ScalableBloomFilter g = BloomDump.build(BloomDump.parseHeader(BloomDump.header(f)), HEAP);
    DumpChunk second = chunks.get(1);
    // The neighbour's iterator: the checksum binds a chunk to its offset.
    assertThatThrownBy(() -> BloomDump.load(g, chunks.get(2).next(), second.bytes(), WORDS))
        .hasMessage("chunk checksum mismatch");
    // The same chunk read with a larger chunk size: not where such a chunk starts.
    assertThatThrownBy(() -> BloomDump.load(g, second.next(), second.bytes(), WORDS + 1))
        .hasMessageStartingWith("no chunk of 5 words ends at iterator");
    assertThat(bytes(g))
        .isEqualTo(bytes(BloomDump.build(BloomDump.parseHeader(BloomDump.header(f)), HEAP)));
  }

  @Test
  void chunk_iteratorNotAtAChunk_refused() throws IOException {
    ScalableBloomFilter f = filter(1, 100); // 24 words: chunks of 5, 5, 5, 5, 4
    assertThatThrownBy(() -> BloomDump.chunk(f, 9, WORDS))
        .hasMessage("iterator 9 is not one BF.SCANDUMP returned");
    assertThatThrownBy(() -> BloomDump.chunk(f, 0, WORDS)).isInstanceOf(IOException.class);
    assertThat(BloomDump.chunk(f, 1 + 8 * WORDS, WORDS).bytes()).hasSize(8 * WORDS + 4);
  }

  @Test
  void header_fieldsOutOfRange_refusedWithTheField() {
    ScalableBloomFilter f = filter(2, 100);
    byte[] good = BloomDump.header(f);
    assertBad(good, 6, 1.5, "error rate 1.5 is not in (0, 1)");
    assertBad(good, 14, 0L, "initial capacity 0 is not in [1, 2^62]");
    assertBad(good, 22, -1, "expansion -1 is not in [0, 32768]");
    assertBad(good, 22, 0, "a non-scaling filter has 1 layer, not 2");
    int layer1 = BloomDump.HEADER_BYTES + BloomDump.LAYER_BYTES;
    assertBad(good, layer1, -5L, "layer 1 capacity -5 is not in [1, 2^62]");
    assertBad(good, layer1, 1L << 62, "layers hold more than 2^62 items");
    assertBad(good, layer1 + 8, 0.0, "layer 1 error rate 0.0 is not in (0, 1)");
    assertBad(good, layer1 + 17, 0, "layer 1 blocks 0 is not in [1, 268435454]");
    assertBad(
        good, layer1 + 21, Long.MAX_VALUE, "layer 1 items 9223372036854775807 is not in [0, 200]");
    byte[] hashes = good.clone();
    hashes[layer1 + 16] = 33;
    assertBadFixed(hashes, "layer 1 hashes 33 is not in [1, 32]");
    byte[] version = good.clone();
    version[4] = 2;
    assertBadFixed(version, "header version 2 is not 1");
    byte[] function = good.clone();
    function[5] = 9;
    assertBadFixed(function, "hash function 9 is not 1");
  }

  private static void assertBad(byte[] good, int at, Object value, String message) {
    byte[] b = good.clone();
    ByteBuffer buf = ByteBuffer.wrap(b);
    switch (value) {
      case Double d -> buf.putDouble(at, d);
      case Long l -> buf.putLong(at, l);
      case Integer i -> buf.putInt(at, i);
      default -> throw new IllegalArgumentException();
    }
    assertBadFixed(b, message);
  }

  private static void assertBadFixed(byte[] b, String message) {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(b, 0, b.length - 4);
    ByteBuffer.wrap(b).putInt(b.length - 4, (int) crc.getValue());
    assertThatThrownBy(() -> BloomDump.parseHeader(b))
        .isInstanceOf(IOException.class)
        .hasMessage(message);
  }

  /** A filter grown to {@code layers} layers from {@code capacity}, with items in each. */
  private static ScalableBloomFilter filter(int layers, int capacity) {
    ScalableBloomFilter f = ScalableBloomFilter.create(capacity, 0.01, 2);
    Hash128 h = new Hash128();
    for (long i = 0; f.layerCount() < layers || f.layer(layers - 1).itemCount() < 3; i++) {
      f.add(h.hashLong(i));
    }
    return f;
  }

  private static List<DumpChunk> chunks(ScalableBloomFilter f) throws IOException {
    List<DumpChunk> out = new ArrayList<>();
    long iter = 1;
    while (true) {
      DumpChunk c = BloomDump.chunk(f, iter, WORDS);
      if (c == DumpChunk.END) {
        return out;
      }
      out.add(c);
      iter = c.next();
    }
  }

  private static byte[] bytes(ScalableBloomFilter f) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    return out.toByteArray();
  }
}
