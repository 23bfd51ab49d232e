package io.idem.core.seen;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class GolombBitsTest {

  @Test
  void setsOfEveryDensityReadBackExactlyAndTheirSizeIsPredicted() {
    SplittableRandom rnd = new SplittableRandom(11);
    for (int trial = 0; trial < 3000; trial++) {
      int range = 1 + rnd.nextInt(trial % 3 == 0 ? 100 : 5_000_000);
      int count = rnd.nextInt(Math.min(range, 400) + 1);
      int[] values = rnd.ints(count * 2L, 0, range).distinct().limit(count).sorted().toArray();
      count = values.length;
      int m =
          switch (trial % 4) {
            case 0 -> 1;
            case 1 -> 1 + rnd.nextInt(8);
            case 2 -> GolombBits.parameter(count, range);
            default -> 1 + rnd.nextInt(1 << 22);
          };
      GolombBits.Writer w = new GolombBits.Writer(1);
      long gammaValue = 1 + rnd.nextLong((1L << 31) - 1); // up to 2^31 - 1, the reader's limit
      w.gamma(gammaValue);
      w.golomb(values, count, m);
      byte[] bytes = w.finish(3);
      long bits = GolombBits.gammaBits(gammaValue) + GolombBits.golombBits(values, count, m);
      assertThat(bytes.length - 3).isEqualTo((int) ((bits + 7) / 8));

      GolombBits.Reader r = new GolombBits.Reader(bytes, 0, bytes.length - 3);
      assertThat(r.gamma()).isEqualTo(gammaValue);
      long previous = -1;
      for (int i = 0; i < count; i++) {
        previous = r.golombNext(previous, m, range);
        assertThat(previous).isEqualTo(values[i]);
      }
      assertThat(r.atPadding()).isTrue();

      // Cut anywhere: every read either succeeds with the right value or reports the cut.
      int cut = rnd.nextInt(bytes.length - 3 + 1);
      GolombBits.Reader c = new GolombBits.Reader(Arrays.copyOf(bytes, cut), 0, cut);
      long g = c.gamma();
      if (g >= 0) {
        assertThat(g).isEqualTo(gammaValue);
        long p = -1;
        for (int i = 0; i < count; i++) {
          p = c.golombNext(p, m, range);
          if (p < 0) {
            assertThat(p).isEqualTo(-1);
            break;
          }
          assertThat(p).isEqualTo(values[i]);
        }
      }
    }
  }

  @Test
  void aGenerationKeepsItsCodeLengthAsValuesComeAndGo() {
    SplittableRandom rnd = new SplittableRandom(12);
    for (int range : new int[] {50, 10_000, 3_000_000}) {
      Generation g = Generation.empty();
      for (int step = 0; step < 5000; step++) {
        if (g.size > 0 && (rnd.nextInt(3) == 0 || g.size > 400)) {
          g.remove(rnd.nextInt(g.size));
        } else {
          int f = rnd.nextInt(range);
          int at = g.indexOf(f);
          if (at < 0) {
            g.insert(-at - 1, f);
          }
        }
        if (rnd.nextInt(4) == 0 || step % 97 == 0) {
          long kept = g.codeBits(range);
          assertThat(kept).isEqualTo(GolombBits.golombBits(g.values, g.size, g.parameter(range)));
        }
      }
    }
  }

  @Test
  void valuesPastTheRangeAreReported() {
    GolombBits.Writer w = new GolombBits.Writer(1);
    w.golomb(new int[] {5, 900}, 2, 7);
    byte[] bytes = w.finish(0);
    GolombBits.Reader r = new GolombBits.Reader(bytes, 0, bytes.length);
    assertThat(r.golombNext(-1, 7, 1000)).isEqualTo(5);
    assertThat(r.golombNext(5, 7, 900)).isEqualTo(-2);
  }
}
