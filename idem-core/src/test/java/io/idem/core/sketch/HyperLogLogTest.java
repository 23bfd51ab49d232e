package io.idem.core.sketch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.format.Golden;
import io.idem.core.format.ReaderFuzz;
import io.idem.core.hash.Hash128;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The HyperLogLog: its error against true counts, its registers against a model, its formats. */
class HyperLogLogTest {

  private static final Hash128 HASH = new Hash128();

  private static boolean add(HyperLogLog h, long item) {
    return h.add(HASH.hashLong(item).h1());
  }

  @Test
  void estimates_stayWithinThreeStandardErrors_andAverageAboutOne() {
    SplittableRandom r = new SplittableRandom(11);
    for (int p : new int[] {10, 12, 14}) {
      double rse = 1.04 / Math.sqrt(1 << p);
      double sumRelative = 0;
      int trials = 0;
      for (long n : new long[] {1, 7, 100, 1_000, 5_000, 20_000, 100_000, 400_000}) {
        for (int t = 0; t < 3; t++) {
          HyperLogLog h = HyperLogLog.create(p);
          long base = r.nextLong();
          for (long i = 0; i < n; i++) {
            add(h, base + i);
          }
          double relative = (h.estimate() - n) / n;
          assertThat(Math.abs(relative)).as("p=%s n=%s", p, n).isLessThanOrEqualTo(3 * rse);
          sumRelative += Math.abs(relative);
          trials++;
        }
      }
      // The mean error is not above the order the docs state (a bound of 3 standard errors alone
      // would let a sketch twice as bad pass).
      assertThat(sumRelative / trials).as("p=%s mean |error|", p).isLessThan(1.2 * rse);
    }
  }

  @Test
  void smallCounts_areExactOrNearly_andEmptyIsZero() {
    HyperLogLog h = HyperLogLog.create(14);
    assertThat(h.count()).isZero();
    for (long i = 0; i < 50; i++) {
      add(h, i);
      assertThat(h.count()).isBetween(i, i + 2);
    }
  }

  @Test
  void add_saysWhetherARegisterRose() {
    HyperLogLog h = HyperLogLog.create(14);
    assertThat(add(h, 42)).isTrue();
    assertThat(add(h, 42)).isFalse();
    long hash = HASH.hashLong(42).h1();
    assertThat(h.rank(h.registerOf(hash))).isEqualTo(h.rankOf(hash));
    // Rank from the bits above the register: all zero gives the largest rank, 65 - p.
    assertThat(h.rankOf(5)).isEqualTo(51);
    assertThat(h.rankOf(1L << 14)).isEqualTo(1);
    assertThat(h.rankOf(1L << 20)).isEqualTo(7);
    assertThat(h.registerOf((1L << 20) | 77)).isEqualTo(77);
  }

  @Test
  void registers_matchAModel_acrossTheTurnToDense() throws IOException {
    SplittableRandom r = new SplittableRandom(5);
    for (int p : new int[] {4, 8, 12}) {
      int m = 1 << p;
      HyperLogLog h = HyperLogLog.create(p);
      int[] model = new int[m];
      for (int step = 0; step < 4 * m; step++) {
        int register = r.nextInt(m);
        int rank = 1 + r.nextInt(65 - p);
        boolean rose = rank > model[register];
        model[register] = Math.max(model[register], rank);
        assertThat(h.raise(register, rank)).isEqualTo(rose);
        if (step % 97 == 0 || step == 4 * m - 1) {
          for (int i = 0; i < m; i++) {
            assertThat(h.rank(i)).isEqualTo(model[i]);
          }
          HyperLogLog back = HyperLogLog.fromBytes(h.toBytes());
          for (int i = 0; i < m; i++) {
            assertThat(back.rank(i)).isEqualTo(model[i]);
          }
        }
      }
      assertThat(h.isSparse()).isFalse();
    }
    assertThatThrownBy(() -> HyperLogLog.create(14).raise(0, 51 + 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HyperLogLog.create(3)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HyperLogLog.create(19)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void merge_givesTheUnionsRegisters_whateverTheEncodings() {
    for (int[] sizes : new int[][] {{10, 10}, {10, 50_000}, {50_000, 10}, {50_000, 60_000}}) {
      HyperLogLog a = HyperLogLog.create(12);
      HyperLogLog b = HyperLogLog.create(12);
      HyperLogLog both = HyperLogLog.create(12);
      for (long i = 0; i < sizes[0]; i++) {
        add(a, i);
        add(both, i);
      }
      for (long i = 0; i < sizes[1]; i++) {
        add(b, 1_000_000 + i);
        add(both, 1_000_000 + i);
      }
      HyperLogLog copy = a.copy();
      assertThat(a.merge(b)).isTrue();
      assertThat(a.merge(b)).isFalse();
      for (int i = 0; i < 1 << 12; i++) {
        assertThat(a.rank(i)).isEqualTo(both.rank(i));
      }
      assertThat(a.estimate()).isEqualTo(both.estimate());
      assertThat(copy.estimate()).isLessThanOrEqualTo(a.estimate()); // the copy is its own
      assertThatThrownBy(() -> a.merge(HyperLogLog.create(13)))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  // ---- formats

  private static HyperLogLog sample(int items) {
    HyperLogLog h = HyperLogLog.create(6);
    for (long i = 0; i < items; i++) {
      add(h, i);
    }
    return h;
  }

  private static byte[] bytes(HyperLogLog h) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    h.writeTo(out);
    return out.toByteArray();
  }

  private static HyperLogLog read(byte[] b) throws IOException {
    return HyperLogLog.readFrom(new ByteArrayInputStream(b), Long.MAX_VALUE);
  }

  @Test
  void format_goldenBytes_roundTrip_sparseAndDense() throws IOException {
    HyperLogLog sparse = sample(3);
    HyperLogLog dense = sample(200);
    assertThat(sparse.isSparse()).isTrue();
    assertThat(dense.isSparse()).isFalse();
    Golden.assertMatches("hyperloglog-sparse-v1.bin", bytes(sparse));
    Golden.assertMatches("hyperloglog-dense-v1.bin", bytes(dense));
    for (HyperLogLog h : new HyperLogLog[] {sparse, dense}) {
      HyperLogLog back = read(bytes(h));
      assertThat(back.isSparse()).isEqualTo(h.isSparse());
      assertThat(back.estimate()).isEqualTo(h.estimate());
      assertThat(bytes(back)).isEqualTo(bytes(h));
    }
    assertThat(read(Golden.read("hyperloglog-dense-v1.bin")).count()).isEqualTo(dense.count());
    // Dense packing, by hand: p = 4, register 0 rank 61 (0b111101), register 1 rank 3.
    HyperLogLog h = HyperLogLog.create(4);
    h.raise(0, 61);
    h.raise(1, 3);
    byte[] b = h.toBytes();
    assertThat(b.length).isEqualTo(2 + 12);
    assertThat(b[0]).isEqualTo((byte) 4);
    assertThat(b[1]).isEqualTo((byte) 2);
    assertThat(b[2] & 0xff).isEqualTo(0b11_111101);
    assertThat(b[3] & 0xff).isEqualTo(0b0000_0000);
  }

  @Test
  void encodings_truncatedCorruptOrOversized_areIOExceptions() throws IOException {
    for (HyperLogLog h : new HyperLogLog[] {sample(3), sample(200)}) {
      byte[] valid = bytes(h);
      for (int length = 0; length < valid.length; length++) {
        byte[] cut = Arrays.copyOf(valid, length);
        assertThatThrownBy(() -> read(cut)).isInstanceOf(IOException.class);
      }
      SplittableRandom r = new SplittableRandom(9);
      for (int i = 0; i < 3000; i++) {
        ReaderFuzz.readOrIOException(
            in -> HyperLogLog.readFrom(in, Long.MAX_VALUE), ReaderFuzz.mutate(valid, r));
        byte[] body = h.toBytes();
        ReaderFuzz.readOrIOException(
            in -> HyperLogLog.fromBytes(in.readAllBytes()), ReaderFuzz.mutate(body, r));
      }
      assertThatThrownBy(() -> HyperLogLog.readFrom(new ByteArrayInputStream(valid), 20))
          .isInstanceOf(IOException.class);
    }
    // Out of order, out of range, wrong lengths.
    assertThatThrownBy(() -> HyperLogLog.fromBytes(new byte[] {14, 1, 0, 0, 65, 0, 0, 65}))
        .hasMessageContaining("out of order");
    assertThatThrownBy(() -> HyperLogLog.fromBytes(new byte[] {14, 1, 0, 0, 52}))
        .hasMessageContaining("out of order or range");
    assertThatThrownBy(() -> HyperLogLog.fromBytes(new byte[] {14, 1, 0, 0}))
        .hasMessageContaining("3-byte entries");
    assertThatThrownBy(() -> HyperLogLog.fromBytes(new byte[] {14, 2, 0}))
        .hasMessageContaining("not 12288");
    assertThatThrownBy(() -> HyperLogLog.fromBytes(new byte[] {19, 1}))
        .hasMessageContaining("precision");
    assertThatThrownBy(() -> HyperLogLog.fromBytes(new byte[] {14, 3}))
        .hasMessageContaining("encoding 3");
    assertThat(HyperLogLog.fromBytes(new byte[] {14, 1}).count()).isZero();
  }
}
