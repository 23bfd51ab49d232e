package io.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.hash.Hash128;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The dump layout itself: golden header bytes, and chunking with small chunks. */
class CuckooDumpTest {

  @Test
  void header_goldenBytes_andParsedBack() throws IOException {
    CuckooFilter.Shape shape = new CuckooFilter.Shape(1000, 0.01, 8, 2, 20, 3, 863, 2);
    byte[] header = CuckooDump.header(shape, 5);
    assertThat(HexFormat.of().formatHex(header))
        .isEqualTo(
            "49434644" // magic "ICFD"
                + "01" // layout version
                + "01" // hash function id
                + "00000000000003e8" // capacity 1000
                + "3f847ae147ae147b" // error rate 0.01
                + "08" // fingerprint bits
                + "02" // bucket size
                + "0014" // max iterations 20
                + "0003" // expansion 3
                + "02" // sub-tables
                + "000000000000035f" // buckets of sub-table 0: 863
                + "0000000000000005" // deletes
                + "c220177d"); // CRC32C (Castagnoli) of the bytes before
    CuckooDump.Header parsed = CuckooDump.parseHeader(header);
    assertThat(parsed.shape()).isEqualTo(shape);
    assertThat(parsed.deletes()).isEqualTo(5);
    CuckooFilter f = CuckooDump.build(parsed);
    assertThat(f.shape()).isEqualTo(shape);
    assertThat(f.sizeInBytes()).isEqualTo(shape.bytes()).isEqualTo(1728 + 3 * 1728);
  }

  @Test
  void chunksOfThreeWords_straddlingSlots_roundTripInAnyOrder() throws IOException {
    // 12-bit fingerprints: slots straddle words, and chunks cut through slots.
    CuckooFilter src = CuckooFilter.createWithFingerprintBits(200, 12, 3, 9, 2);
    Hash128 h = new Hash128();
    for (int i = 0; i < 1200; i++) {
      h.hashLong(i);
      src.insert(h.h1(), h.h2());
    }
    assertThat(src.tableCount()).isGreaterThan(1);
    List<Long> iters = new ArrayList<>();
    List<byte[]> chunks = new ArrayList<>();
    long iter = 1;
    DumpChunk c;
    while (!(c = CuckooDump.chunk(src, iter, 3)).isEnd()) {
      assertThat(c.bytes().length).isLessThanOrEqualTo(3 * 8 + 4);
      iters.add(c.next());
      chunks.add(c.bytes());
      iter = c.next();
    }
    long words = 0;
    for (int t = 0; t < src.tableCount(); t++) {
      words += src.wordCount(t);
    }
    assertThat(iter).isEqualTo(1 + 8 * words);
    CuckooFilter dst = CuckooDump.build(CuckooDump.parseHeader(CuckooDump.header(src)));
    for (int i = chunks.size() - 1; i >= 0; i--) {
      CuckooDump.load(dst, iters.get(i), chunks.get(i), 3);
    }
    assertThat(dst.itemCount()).isEqualTo(src.itemCount());
    assertThat(snapshot(dst)).isEqualTo(snapshot(src));
    // The same chunks do not fit another chunk size: the size is part of the layout.
    assertThatThrownBy(() -> CuckooDump.load(dst, iters.get(1), chunks.get(1), 4))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("no chunk of 3 words ends at iterator");
    assertThatThrownBy(() -> CuckooDump.chunk(src, 9, 3))
        .isInstanceOf(IOException.class)
        .hasMessage("iterator 9 is not one CF.SCANDUMP returned");
  }

  @Test
  void maxChunk_withItsChecksum_isAtMost16MiB() {
    assertThat(CuckooDump.MAX_CHUNK_WORDS * 8L + 4).isLessThanOrEqualTo(16 << 20);
    assertThat((CuckooDump.MAX_CHUNK_WORDS + 1) * 8L + 4).isGreaterThan(16 << 20);
  }

  private static byte[] snapshot(CuckooFilter f) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    return out.toByteArray();
  }
}
