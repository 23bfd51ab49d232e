package io.idem.core.sketch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.idem.core.format.Golden;
import io.idem.core.format.ReaderFuzz;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Scanner;
import java.util.SplittableRandom;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

/**
 * The merging t-digest: RedisBloom's TDIGEST vectors, t-digest-c's exact results, accuracy on
 * random streams, merges, and the format. Fixed seeds.
 */
class TDigestTest {

  private static TDigest digest(long compression, double... values) {
    TDigest t = TDigest.create(compression);
    for (double v : values) {
      assertThat(t.add(v)).isTrue();
    }
    return t;
  }

  private static final double[] ONE_TO_FIVE_BY_COUNT = {
    1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5
  };

  private static final double INF = Double.POSITIVE_INFINITY;

  // ---- RedisBloom's vectors (tests/flow/test_tdigest.py)

  @Test
  void rankAndRevRank_onOneTwoTwoThreeThreeThree_asRedisBloom() {
    TDigest t = digest(1000, ONE_TO_FIVE_BY_COUNT);
    long[] ranks = new long[7];
    long[] revRanks = new long[7];
    for (int v = 0; v <= 6; v++) {
      ranks[v] = t.rank(v);
      revRanks[v] = t.revRank(v);
    }
    assertThat(ranks).containsExactly(-1, 0, 2, 4, 8, 12, 15);
    assertThat(revRanks).containsExactly(15, 14, 13, 10, 7, 2, -1);

    TDigest tens = digest(1000, 10, 20, 30, 40, 50, 60);
    long[] tenRanks = new long[8];
    for (int i = 0; i <= 7; i++) {
      tenRanks[i] = tens.rank(10 * i);
    }
    assertThat(tenRanks).containsExactly(-1, 0, 1, 2, 3, 4, 5, 6);
  }

  @Test
  void byRankAndByRevRank_onOneTwoTwoThreeThreeThree_asRedisBloom() {
    TDigest t = digest(1000, ONE_TO_FIVE_BY_COUNT);
    double[] byRevRank = new double[16];
    double[] byRank = new double[16];
    for (int r = 0; r <= 15; r++) {
      byRevRank[r] = t.byRevRank(r);
      byRank[15 - r] = t.byRank(15 - r);
    }
    assertThat(byRevRank).containsExactly(5, 5, 5, 5, 5, 4, 4, 4, 4, 3, 3, 3, 2, 2, 1, -INF);
    assertThat(byRank).containsExactly(1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5, INF);
  }

  @Test
  void rankAndRevRank_onZeroToNineteen_atCompression500() {
    TDigest t = TDigest.create(500);
    for (int x = 0; x < 20; x++) {
      t.add(x);
    }
    assertThat(List.of(t.rank(-1), t.rank(0), t.rank(19), t.rank(20), t.rank(18), t.rank(10)))
        .containsExactly(-1L, 0L, 19L, 20L, 18L, 10L);
    assertThat(List.of(t.rank(1), t.rank(-20), t.rank(9))).containsExactly(1L, -1L, 9L);
    // cdf(19) × 20 = 19.5: RANK drops the half, REVRANK rounds it up, so 20 - 20 = 0.
    assertThat(t.cdf(19) * 20).isEqualTo(19.5);
    assertThat(List.of(t.revRank(20), t.revRank(0), t.revRank(19), t.revRank(50)))
        .containsExactly(-1L, 19L, 0L, -1L);
    assertThat(List.of(t.revRank(18), t.revRank(10), t.revRank(1), t.revRank(21)))
        .containsExactly(1L, 9L, 18L, -1L);
  }

  @Test
  void byRank_onOneToTen() {
    TDigest t = digest(500, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
    assertThat(List.of(t.byRank(0), t.byRank(9), t.byRank(10), t.byRank(100)))
        .containsExactly(1.0, 10.0, INF, INF);
    TDigest r = digest(1000, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
    assertThat(List.of(r.byRevRank(0), r.byRevRank(9), r.byRevRank(10), r.byRevRank(100)))
        .containsExactly(10.0, 1.0, -INF, -INF);
  }

  @Test
  void trimmedMean_asRedisBloom() {
    TDigest t = TDigest.create(500);
    for (int x = 0; x < 20; x++) {
      t.add(x);
    }
    assertThat(t.trimmedMean(0.1, 0.9)).isEqualTo(9.5);
    assertThat(t.trimmedMean(0, 1)).isEqualTo(9.5);
    assertThat(t.trimmedMean(0.2, 0.8)).isEqualTo(9.5);
    t.reset();
    assertThat(t.trimmedMean(0.2, 0.8)).isNaN();
    for (int x = 1; x <= 10_000; x++) {
      t.add(x / 1000.0);
    }
    for (int x = 1; x < 10; x++) {
      assertThat(t.trimmedMean(x / 10.0, x / 10.0 + 0.1)).isCloseTo(x + 0.5, within(0.01));
    }
    // Nine 1s and one 5, as a spreadsheet's TRIMMEAN gives it.
    t.reset();
    for (int i = 0; i < 9; i++) {
      t.add(1);
    }
    t.add(5);
    assertThat(t.trimmedMean(0.1, 0.9)).isEqualTo(1.0);
    assertThat(t.trimmedMean(0.095, 0.905)).isEqualTo(1.4);
    assertThat(t.trimmedMean(0.05, 0.95)).isEqualTo(1.4);
    assertThat(t.trimmedMean(0.01, 0.99)).isEqualTo(1.4);
    assertThatThrownBy(() -> t.trimmedMean(0.5, 0.5)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> t.trimmedMean(-0.1, 0.5)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void quantileAndCdf_asRedisBloom_atCompression500() {
    TDigest t = TDigest.create(500);
    for (int x = 1; x < 10_000; x++) {
      t.add(x * 0.01);
    }
    assertThat(t.quantiles(new double[] {1.0})[0]).isEqualTo(t.max());
    assertThat(t.quantiles(new double[] {0.0})[0]).isEqualTo(t.min());
    double[] in = t.quantiles(new double[] {0.01, 0.5, 0.95, 0.99});
    double[] out = t.quantiles(new double[] {0.95, 0.99, 0.01, 0.5});
    double[] expected = {1.0, 50.0, 95.0, 99.0};
    for (int i = 0; i < 4; i++) {
      assertThat(in[i]).isCloseTo(expected[i], within(0.01));
    }
    assertThat(out).containsExactly(in[2], in[3], in[0], in[1]);

    TDigest c = TDigest.create(500);
    for (int x = 1; x < 100; x++) {
      c.add(x);
    }
    assertThat(c.cdf(1.0)).isCloseTo(0.01, within(0.01));
    assertThat(c.cdf(99.0)).isCloseTo(0.99, within(0.01));
    assertThat(c.cdf(Double.NEGATIVE_INFINITY)).isZero();
    assertThat(c.cdf(INF)).isEqualTo(1.0);
  }

  @Test
  void infoCounters_afterAddingOneToFive_atCompression100() {
    TDigest t = digest(100, 1, 2, 3, 4, 5);
    assertThat(t.compression()).isEqualTo(100);
    assertThat(t.capacity()).isEqualTo(610);
    assertThat(TDigest.bytesFor(100)).isEqualTo(9760); // RedisBloom's INFO adds 80, its struct
    assertThat(List.of(t.mergedNodes(), t.unmergedNodes())).containsExactly(0, 5);
    assertThat(List.of(t.mergedWeight(), t.unmergedWeight(), t.observations()))
        .containsExactly(0L, 5L, 5L);
    assertThat(t.totalCompressions()).isZero();
    assertThat(List.of(t.min(), t.max())).containsExactly(1.0, 5.0); // MIN and MAX: no compress
    assertThat(t.totalCompressions()).isZero();
    assertThat(t.rank(0)).isEqualTo(-1); // outside [min, max]: no compress either
    assertThat(t.byRank(0)).isEqualTo(1.0);
    assertThat(t.totalCompressions()).isZero();
    assertThat(t.rank(3)).isEqualTo(2);
    assertThat(List.of(t.mergedNodes(), t.unmergedNodes())).containsExactly(5, 0);
    assertThat(List.of(t.mergedWeight(), t.unmergedWeight())).containsExactly(5L, 0L);
    assertThat(t.totalCompressions()).isEqualTo(1);
    t.cdf(3); // nothing to merge: not a compression
    assertThat(t.totalCompressions()).isEqualTo(1);
  }

  @Test
  void aFullBuffer_compressesBeforeTheNextAdd() {
    TDigest t = TDigest.create(1); // 16 slots: compresses when 15 are in use
    for (int i = 0; i < 15; i++) {
      t.add(i);
    }
    assertThat(List.of(t.unmergedNodes(), (int) t.totalCompressions())).containsExactly(15, 0);
    t.add(15);
    assertThat(t.totalCompressions()).isEqualTo(1);
    assertThat(t.unmergedNodes()).isEqualTo(1);
    assertThat(t.mergedWeight()).isEqualTo(15);
    assertThat(t.observations()).isEqualTo(16);
  }

  @Test
  void aSingleObservation_isItsOwnEveryQuantile() {
    TDigest t = digest(100, 7.5);
    assertThat(List.of(t.min(), t.max())).containsExactly(7.5, 7.5);
    assertThat(t.quantiles(new double[] {0, 0.5, 1, 0.1})).containsExactly(7.5, 7.5, 7.5, 7.5);
    assertThat(List.of(t.mergedNodes(), t.unmergedNodes())).containsExactly(1, 0);
    assertThat(t.totalCompressions()).isEqualTo(1);
    assertThat(List.of(t.quantile(0), t.quantile(0.9), t.quantile(1)))
        .containsExactly(7.5, 7.5, 7.5);
    assertThat(List.of(t.cdf(7), t.cdf(7.5), t.cdf(8))).containsExactly(0.0, 0.5, 1.0);
    assertThat(List.of(t.rank(7.5), t.revRank(7.5))).containsExactly(0L, 0L);
    assertThat(List.of(t.rank(7), t.revRank(7), t.rank(8), t.revRank(8)))
        .containsExactly(-1L, 1L, 1L, -1L);
    assertThat(t.trimmedMean(0.1, 0.9)).isEqualTo(7.5);
    assertThat(List.of(t.byRank(0), t.byRank(1), t.byRevRank(0), t.byRevRank(1)))
        .containsExactly(7.5, INF, 7.5, -INF);
    assertThat(t.totalCompressions()).isEqualTo(1);
  }

  @Test
  void anEmptyDigest_answersNanAndMinusTwo_andNeverCompresses() {
    TDigest t = TDigest.create(100);
    assertThat(t.min()).isNaN();
    assertThat(t.max()).isNaN();
    assertThat(t.quantile(0.5)).isNaN();
    assertThat(t.quantiles(new double[] {0, 0.5, 1})).containsOnly(Double.NaN);
    assertThat(t.cdf(0)).isNaN();
    assertThat(t.cdf(INF)).isNaN();
    assertThat(t.trimmedMean(0.1, 0.9)).isNaN();
    assertThat(List.of(t.rank(0), t.revRank(0))).containsExactly(-2L, -2L);
    assertThat(t.byRank(0)).isNaN();
    assertThat(t.byRevRank(5)).isNaN();
    assertThat(t.observations()).isZero();
    assertThat(t.totalCompressions()).isZero();
    assertThat(t.sizeInBytes()).isZero();
  }

  @Test
  void reset_keepsCompressionAndCapacity_forgetsTheRest() throws IOException {
    TDigest t = TDigest.create(30);
    for (int i = 0; i < 1000; i++) {
      t.add(i);
    }
    t.reset();
    assertThat(List.of(t.compression(), (long) t.capacity())).containsExactly(30L, 190L);
    assertThat(List.of(t.mergedNodes(), t.unmergedNodes())).containsExactly(0, 0);
    assertThat(List.of(t.observations(), t.totalCompressions())).containsExactly(0L, 0L);
    assertThat(t.min()).isNaN();
    assertThat(bytes(t)).isEqualTo(bytes(TDigest.create(30)));
    t.add(3);
    assertThat(List.of(t.min(), t.max())).containsExactly(3.0, 3.0);
  }

  @Test
  void become_takesEverything_compressionIncluded() throws IOException {
    TDigest from = TDigest.create(30);
    for (int i = 0; i < 500; i++) {
      from.add(i % 37);
    }
    byte[] expected = bytes(from);
    TDigest t = digest(200, 1, 2, 3);
    t.become(from);
    assertThat(bytes(t)).isEqualTo(expected);
    assertThat(List.of(t.compression(), (long) t.capacity())).containsExactly(30L, 190L);
    t.add(1000);
    assertThat(t.quantile(1)).isEqualTo(1000.0);
  }

  @Test
  void reserve_growsTheSlotsOnce_soAddsAllocateNothing_andChangesNoState() throws IOException {
    TDigest t = digest(10, 5, 6); // 70 slots
    byte[] before = bytes(t);
    t.reserve(40);
    assertThat(t.sizeInBytes()).isEqualTo(16L * 42);
    assertThat(bytes(t)).isEqualTo(before);
    t.reserve(1000);
    assertThat(t.sizeInBytes()).isEqualTo(16L * 70); // never past the capacity
    long size = t.sizeInBytes();
    for (int i = 0; i < 500; i++) {
      t.add(i);
    }
    assertThat(t.sizeInBytes()).isEqualTo(size);
  }

  @Test
  void quantiles_walkEachNonDecreasingRunAfresh_andAgreeWithTheSingleRoutine() {
    TDigest t = TDigest.create(100);
    SplittableRandom r = new SplittableRandom(4);
    for (int i = 0; i < 5000; i++) {
      t.add(r.nextDouble() * 100);
    }
    double[] qs = {0.3, 0.3, 0.7, 0.1, 0.99, 0.5, 0.5, 0.0, 1.0};
    double[] batch = t.quantiles(qs);
    for (int i = 0; i < qs.length; i++) {
      // The first centroid is a singleton at min, so index < 1 gives min either way.
      assertThat(batch[i]).as("q %s", qs[i]).isEqualTo(t.quantile(qs[i]));
    }
    assertThatThrownBy(() -> t.quantiles(new double[] {0.5, 1.5}))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(t.quantile(1.5)).isNaN();
    assertThat(t.quantile(Double.NaN)).isNaN();
  }

  @Test
  void theFirstAndLastCentroid_areTheMinAndMax_withWeightOne() throws IOException {
    TDigest t = TDigest.create(20);
    SplittableRandom r = new SplittableRandom(8);
    for (int i = 0; i < 20_000; i++) {
      t.add(r.nextDouble());
    }
    t.compress();
    Nodes n = nodes(t);
    assertThat(n.means[0]).isEqualTo(t.min());
    assertThat(n.weights[0]).isEqualTo(1);
    assertThat(n.means[t.mergedNodes() - 1]).isEqualTo(t.max());
    assertThat(n.weights[t.mergedNodes() - 1]).isEqualTo(1);
    assertThat(Arrays.stream(n.weights).sum()).isEqualTo(20_000);
    assertThat(t.quantile(0)).isEqualTo(t.min());
    assertThat(t.quantile(1)).isEqualTo(t.max());
  }

  // ---- accuracy

  @Test
  void quantiles_ofUniformAndExponentialStreams_withinASmallRankError() {
    double[] qs = {0.0001, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 0.9999};
    for (int kind = 0; kind < 2; kind++) {
      for (long seed = 1; seed <= 3; seed++) {
        SplittableRandom r = new SplittableRandom(seed);
        TDigest t = TDigest.create(100);
        double[] data = new double[100_000];
        for (int i = 0; i < data.length; i++) {
          data[i] = kind == 0 ? r.nextDouble() : -Math.log1p(-r.nextDouble());
          t.add(data[i]);
        }
        Arrays.sort(data);
        double[] estimates = t.quantiles(qs);
        for (int i = 0; i < qs.length; i++) {
          double q = qs[i];
          // How far q lies from the ranks the estimate has among the data.
          double v = estimates[i];
          double lowRank = (double) rankBelow(data, v) / data.length;
          double highRank = (double) rankAtMost(data, v) / data.length;
          double error = Math.max(0, Math.max(lowRank - q, q - highRank));
          double cdfError = Math.abs(t.cdf(data[(int) (q * data.length)]) - q);
          double bound = q < 0.01 || q > 0.99 ? 0.0005 : 0.01;
          String as = "kind " + kind + " seed " + seed + " q " + q;
          assertThat(error).as(as).isLessThanOrEqualTo(bound);
          assertThat(cdfError).as(as).isLessThanOrEqualTo(bound);
        }
        assertThat(t.mergedNodes()).isBetween(40, 100); // about compression × 0.6
      }
    }
  }

  private static int rankBelow(double[] sorted, double v) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] < v) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static int rankAtMost(double[] sorted, double v) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] <= v) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  // ---- add and merge

  @Test
  void add_refusesAnOverflowingWeightOrANonFiniteValue_changingNothing() throws IOException {
    TDigest t = TDigest.create(100);
    assertThat(t.add(1, Long.MAX_VALUE - 1)).isTrue();
    assertThat(t.add(2, 1)).isTrue();
    byte[] before = bytes(t);
    assertThat(t.add(3, 1)).isFalse();
    assertThat(t.add(3, Long.MAX_VALUE)).isFalse();
    assertThat(t.add(INF)).isFalse();
    assertThat(t.add(Double.NaN)).isFalse();
    assertThat(bytes(t)).isEqualTo(before);
    assertThat(t.observations()).isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(() -> t.add(1, 0)).isInstanceOf(IllegalArgumentException.class);
    // The unmerged and merged weights each fit, but not their sum.
    TDigest m = TDigest.create(100);
    m.add(1, Long.MAX_VALUE / 2 + 1);
    m.compress();
    assertThat(m.add(2, Long.MAX_VALUE / 2)).isTrue();
    assertThat(m.add(2, 1)).isFalse();
  }

  @Test
  void merge_takesTheDestinationsContentFirst_thenEachSource_andCompressesThemInPlace()
      throws IOException {
    TDigest a = digest(100, 1, 2, 3, 4, 5);
    TDigest b = digest(200, 10, 11, 12);
    TDigest m = TDigest.merge(List.of(a, b), 100, null);
    assertThat(m).isNotNull();
    assertThat(m.compression()).isEqualTo(100);
    // Each source compresses the result first, then adds to its buffer: b's nodes stay unmerged.
    assertThat(List.of(m.mergedNodes(), m.unmergedNodes())).containsExactly(5, 3);
    assertThat(List.of(m.mergedWeight(), m.unmergedWeight())).containsExactly(5L, 3L);
    assertThat(m.totalCompressions()).isEqualTo(1);
    assertThat(List.of(m.min(), m.max())).containsExactly(1.0, 12.0);
    for (TDigest source : List.of(a, b)) {
      assertThat(source.unmergedNodes()).isZero();
      assertThat(source.totalCompressions()).isEqualTo(1);
    }
    // With the old destination's content, and a source listed twice.
    TDigest dest = digest(50, -1);
    TDigest d = TDigest.merge(List.of(b, b), 50, dest);
    assertThat(d.observations()).isEqualTo(7);
    assertThat(d.compression()).isEqualTo(50);
    assertThat(List.of(d.min(), d.max())).containsExactly(-1.0, 12.0);
    assertThat(dest.mergedNodes()).isEqualTo(1); // compressed in place
    assertThat(nodes(d).means).containsExactly(-1, 10, 11, 12, 10, 11, 12);
    // MERGE d 1 d doubles d; the old d is untouched but for its compression.
    byte[] before = bytes(d);
    d.compress();
    byte[] compressed = bytes(d);
    TDigest twice = TDigest.merge(List.of(d), 50, d);
    assertThat(twice.observations()).isEqualTo(14);
    assertThat(bytes(d)).isEqualTo(compressed).isNotEqualTo(before);
  }

  @Test
  void merge_pastTwoToThe63_isNull_leavingOnlyTheSourcesCompressions() throws IOException {
    TDigest big = TDigest.create(100);
    big.add(1, Long.MAX_VALUE / 4);
    big.add(2, Long.MAX_VALUE / 4);
    TDigest small = digest(100, 5, 6);
    TDigest untouched = digest(100, 7, 8);
    byte[] untouchedBefore = bytes(untouched);
    assertThat(TDigest.merge(List.of(small, big, big, big, untouched), 100, null)).isNull();
    assertThat(small.totalCompressions()).isEqualTo(1);
    assertThat(big.totalCompressions()).isEqualTo(1);
    assertThat(big.observations()).isEqualTo(2 * (Long.MAX_VALUE / 4));
    assertThat(bytes(untouched)).isEqualTo(untouchedBefore); // never reached
    // Doubling by MERGE d 1 d: exact until the first that would pass 2^63 - 1.
    TDigest d = digest(100, 1, 2, 3);
    int doublings = 0;
    for (TDigest next; (next = TDigest.merge(List.of(d), 100, d)) != null; d = next) {
      assertThat(next.observations()).isEqualTo(2 * d.observations());
      doublings++;
    }
    assertThat(doublings).isEqualTo(61); // 3 × 2^61 < 2^63 <= 3 × 2^62
  }

  @Test
  void merge_ofACompressionOutOfRange_isRefused() {
    assertThatThrownBy(() -> TDigest.merge(List.of(), 0, null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void create_limits() {
    assertThatThrownBy(() -> TDigest.create(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TDigest.create(TDigest.MAX_COMPRESSION + 1))
        .isInstanceOf(IllegalArgumentException.class);
    TDigest largest = TDigest.create(TDigest.MAX_COMPRESSION);
    assertThat(largest.capacity()).isEqualTo(60_000_010);
    assertThat(TDigest.bytesFor(TDigest.MAX_COMPRESSION)).isEqualTo(960_000_160L);
    assertThat(largest.sizeInBytes()).isZero(); // slots come as nodes do
    largest.add(1);
    assertThat(largest.sizeInBytes()).isEqualTo(16 * 16);
  }

  // ---- the sort

  @Test
  void sort_ordersByMean_keepingEachWeightWithItsMean() {
    SplittableRandom r = new SplittableRandom(6);
    for (int n : new int[] {0, 1, 2, 3, 16, 17, 18, 100, 1000, 100_000}) {
      for (int shape = 0; shape < 6; shape++) {
        double[] means = new double[n];
        long[] weights = new long[n];
        for (int i = 0; i < n; i++) {
          means[i] =
              switch (shape) {
                case 0 -> r.nextDouble();
                case 1 -> 7; // all equal
                case 2 -> i; // ascending
                case 3 -> n - i; // descending
                case 4 -> Math.min(i, n - i); // organ pipe
                default -> r.nextInt(3); // few distinct
              };
          weights[i] = Double.doubleToLongBits(means[i]) ^ i; // traceable to its mean
        }
        long[] pairs = pairs(means, weights);
        TDigest.sort(means, weights, n);
        assertSorted(means, weights, pairs, n + " " + shape);
        // Past the depth limit, heapsort takes over.
        shuffle(means, weights, r);
        TDigest.introsort(means, weights, 0, n - 1, 0);
        assertSorted(means, weights, pairs, n + " " + shape + " heapsort");
      }
    }
  }

  private static long[] pairs(double[] means, long[] weights) {
    long[] p = new long[means.length];
    for (int i = 0; i < p.length; i++) {
      p[i] = 31 * Double.doubleToLongBits(means[i]) + weights[i];
    }
    Arrays.sort(p);
    return p;
  }

  private static void assertSorted(double[] means, long[] weights, long[] pairs, String as) {
    for (int i = 1; i < means.length; i++) {
      assertThat(means[i]).as(as).isGreaterThanOrEqualTo(means[i - 1]);
    }
    assertThat(pairs(means, weights)).as(as).isEqualTo(pairs);
  }

  private static void shuffle(double[] means, long[] weights, SplittableRandom r) {
    for (int i = means.length - 1; i > 0; i--) {
      int j = r.nextInt(i + 1);
      double m = means[i];
      means[i] = means[j];
      means[j] = m;
      long w = weights[i];
      weights[i] = weights[j];
      weights[j] = w;
    }
  }

  @Test
  void aLargeBufferOfEqualValues_compresses() {
    // RedisBloom's quicksort before PR #1049 took n²/2 steps here; the introsort takes 2n.
    TDigest t = TDigest.create(100_000);
    for (int i = 0; i < 600_000; i++) {
      t.add(42);
    }
    assertThat(t.unmergedNodes()).isEqualTo(600_000);
    assertThat(t.quantile(0.5)).isEqualTo(42);
    assertThat(t.cdf(42)).isEqualTo(0.5);
    assertThat(t.totalCompressions()).isEqualTo(1);
    assertThat(t.mergedWeight()).isEqualTo(600_000);
  }

  // ---- exact agreement with t-digest-c

  /**
   * A script run by this test and by a C harness around t-digest-c at daf1f4a (RedisBloom's
   * deps/t-digest-c since PR #1049), with RedisBloom's RANK and BYRANK rules around it. Commands:
   * {@code new d c}; {@code gen d kind count seed} adds values from a SplitMix64 stream ({@link
   * #gen}); {@code merge dest c content n src...} is TDIGEST.MERGE (content -1 for none); {@code
   * compress d}; {@code dump d} prints counters, quantiles, centroids, CDFs, ranks and trimmed
   * means ({@link #dump}), every double as its bits. Each dump's CRC32 is the C harness's: the same
   * doubles to the bit, and the same compressions.
   */
  private static final String SCRIPT =
      """
      new 0 100
      gen 0 0 100000 1
      dump 0
      new 1 100
      gen 1 1 100000 2
      dump 1
      new 2 100
      gen 2 2 20000 3
      dump 2
      new 3 50
      gen 3 3 5000 4
      dump 3
      new 4 1
      gen 4 4 1000 5
      dump 4
      new 5 2
      gen 5 0 1000 6
      dump 5
      new 6 1000
      gen 6 2 15 7
      dump 6
      new 7 100
      gen 7 0 1 8
      dump 7
      new 8 100
      dump 8
      new 9 500
      gen 9 2 3000 9
      new 10 200
      gen 10 1 3000 10
      merge 11 100 -1 2 9 10
      dump 11
      dump 9
      merge 12 300 11 3 9 10 9
      dump 12
      new 13 10000
      gen 13 2 200000 11
      dump 13
      new 14 100
      gen 14 3 100000 12
      merge 14 100 14 5 14 14 14 14 14
      merge 14 100 14 5 14 14 14 14 14
      merge 14 100 14 5 14 14 14 14 14
      merge 14 100 14 5 14 14 14 14 14
      merge 14 100 14 5 14 14 14 14 14
      merge 14 100 14 5 14 14 14 14 14
      merge 14 100 14 5 14 14 14 14 14
      merge 14 100 14 5 14 14 14 14 14
      dump 14
      new 15 20
      gen 15 4 7777 13
      compress 15
      gen 15 0 100 14
      dump 15
      new 1 100
      gen 1 3 1000 3
      """
          + "merge 1 100 1 5 1 1 1 1 1\n".repeat(17)
          + "dump 1\nmerge 1 100 1 5 1 1 1 1 1\ndump 1\n";

  private static final long[] DUMP_CRCS = {
    0x58d53c38L, 0x256c14dfL, 0x74a584ceL, 0xe6d3fa81L, 0xaa33b25bL, 0xcee07adeL,
    0xc558b254L, 0xdff965f1L, 0x71763f22L, 0xb4c398feL, 0x868b7558L, 0x520578eaL,
    0x7ad36dfeL, 0x6cd07c75L, 0x688a8cf1L, 0x58269a4aL, 0x155a92feL
  };

  @Test
  void aScript_givesTDigestCsResults_toTheBit() throws IOException {
    String out = run(SCRIPT);
    String[] dumps = out.split("(?m)^(?=== dump)");
    long[] crcs = new long[dumps.length];
    for (int i = 0; i < dumps.length; i++) {
      CRC32 crc = new CRC32();
      crc.update(dumps[i].getBytes(StandardCharsets.UTF_8));
      crcs[i] = crc.getValue();
    }
    assertThat(crcs).containsExactly(DUMP_CRCS);
    // A few of them in the open: 20,000 values of 0..9 at compression 100.
    assertThat(dumps[2])
        .startsWith("== dump 2\ncounters 46 200 19800 200 35\n")
        .contains("counters 45 0 20000 0 36\n");
    // The 18th doubling of digest 1 would pass 2^63 - 1: it fails and changes nothing.
    assertThat(dumps[15]).endsWith("\nmergefail\n");
    String after = "counters 24 0 8293775374710079488 0 6\n";
    assertThat(dumps[15]).contains(after);
    assertThat(dumps[16]).startsWith("== dump 1\n" + after);
  }

  /** SplitMix64, written alike in the C harness. */
  private static final class SplitMix {
    private long state;

    SplitMix(long seed) {
      this.state = seed;
    }

    long next() {
      long z = (state += 0x9E3779B97F4A7C15L);
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      return z ^ (z >>> 31);
    }
  }

  /**
   * Adds {@code count} values. Kinds: 0 uniform in [0, 1); 1 u⁴ × 10⁶ (skewed); 2 integers 0 to 9;
   * 3 integers 0 to 4 weighing 1 to 1000 (ties of unequal weights); 4 uniform in [-50, 50) weighing
   * 1 to 3.
   */
  private static void gen(TDigest t, int kind, long count, long seed, StringBuilder out) {
    SplitMix r = new SplitMix(seed);
    for (long i = 0; i < count; i++) {
      double u = (r.next() >>> 11) * 0x1.0p-53;
      double v;
      long w = 1;
      switch (kind) {
        case 0 -> v = u;
        case 1 -> v = u * u * u * u * 1e6;
        case 2 -> v = Long.remainderUnsigned(r.next(), 10);
        case 3 -> {
          v = Long.remainderUnsigned(r.next(), 5);
          w = 1 + Long.remainderUnsigned(r.next(), 1000);
        }
        default -> {
          v = u * 100 - 50;
          w = 1 + Long.remainderUnsigned(r.next(), 3);
        }
      }
      if (!t.add(v, w)) {
        out.append("addfail\n");
      }
    }
  }

  private static String run(String script) throws IOException {
    TDigest[] d = new TDigest[16];
    StringBuilder out = new StringBuilder();
    Scanner s = new Scanner(script);
    while (s.hasNext()) {
      switch (s.next()) {
        case "new" -> d[s.nextInt()] = TDigest.create(s.nextLong());
        case "gen" -> {
          TDigest t = d[s.nextInt()];
          int kind = s.nextInt();
          long count = s.nextLong();
          gen(t, kind, count, s.nextLong(), out);
        }
        case "merge" -> {
          int dest = s.nextInt();
          long compression = s.nextLong();
          int content = s.nextInt();
          List<TDigest> sources = new ArrayList<>();
          for (int n = s.nextInt(); n > 0; n--) {
            sources.add(d[s.nextInt()]);
          }
          TDigest m = TDigest.merge(sources, compression, content < 0 ? null : d[content]);
          if (m == null) {
            out.append("mergefail\n");
          } else {
            d[dest] = m;
          }
        }
        case "compress" -> d[s.nextInt()].compress();
        case "dump" -> {
          int k = s.nextInt();
          out.append("== dump ").append(k).append('\n');
          dump(d[k], out);
        }
        default -> throw new IllegalArgumentException("script");
      }
    }
    return out.toString();
  }

  private static void bits(StringBuilder out, String key, double v) {
    out.append(key).append(String.format(" %016x%n", Double.doubleToRawLongBits(v)));
  }

  private static void counters(StringBuilder out, TDigest t) {
    out.append(
        String.format(
            "counters %d %d %d %d %d%n",
            t.mergedNodes(),
            t.unmergedNodes(),
            t.mergedWeight(),
            t.unmergedWeight(),
            t.totalCompressions()));
  }

  private static void dump(TDigest t, StringBuilder out) throws IOException {
    counters(out, t);
    long n = t.observations();
    if (n > 0) {
      bits(out, "min", t.min());
      bits(out, "max", t.max());
    }
    double[] qs = {0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1};
    for (double v : t.quantiles(qs)) {
      bits(out, "qb", v);
    }
    for (double q : qs) {
      bits(out, "qs", t.quantile(q));
    }
    counters(out, t);
    Nodes nodes = nodes(t);
    int m = t.mergedNodes();
    for (int i = 0; i < m; i++) {
      out.append(
          String.format(
              "c %016x %d%n", Double.doubleToRawLongBits(nodes.means[i]), nodes.weights[i]));
    }
    if (n == 0) {
      return;
    }
    List<Double> points = new ArrayList<>();
    for (int k = 0; k <= 8; k++) {
      points.add(t.min() + (t.max() - t.min()) * k / 8);
    }
    points.addAll(List.of(nodes.means[m / 3], nodes.means[m > 1 ? 1 : 0], nodes.means[m - 1]));
    for (double p : points) {
      bits(out, "cdf", t.cdf(p));
      out.append("rank ").append(t.rank(p)).append(' ').append(t.revRank(p)).append('\n');
    }
    for (long r : new long[] {0, 1, n / 7, n / 2, n - 1, n}) {
      bits(out, "byrank", t.byRank(r));
      bits(out, "byrevrank", t.byRevRank(r));
    }
    bits(out, "tm", t.trimmedMean(0.1, 0.9));
    bits(out, "tm", t.trimmedMean(0, 1));
    bits(out, "tm", t.trimmedMean(0.25, 0.5));
  }

  /** The nodes, merged then unmerged, as the format holds them. */
  private record Nodes(double[] means, long[] weights) {}

  private static Nodes nodes(TDigest t) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(bytes(t));
    int n = b.getInt(16) + b.getInt(20);
    double[] means = new double[n];
    long[] weights = new long[n];
    for (int i = 0; i < n; i++) {
      means[i] = b.getDouble(48 + 8 * i);
      weights[i] = b.getLong(48 + 8 * (n + i));
    }
    return new Nodes(means, weights);
  }

  // ---- format

  private static TDigest sample() {
    TDigest t = TDigest.create(20);
    gen(t, 4, 500, 77, new StringBuilder());
    t.compress();
    gen(t, 0, 37, 78, new StringBuilder()); // an unmerged buffer too
    return t;
  }

  private static byte[] bytes(TDigest t) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    t.writeTo(out);
    return out.toByteArray();
  }

  private static TDigest read(byte[] b) throws IOException {
    return TDigest.readFrom(new ByteArrayInputStream(b), Long.MAX_VALUE);
  }

  @Test
  void format_goldenBytes_roundTrip_andTheReadDigestCarriesOnAlike() throws IOException {
    TDigest s = sample();
    byte[] b = bytes(s);
    Golden.assertMatches("tdigest-v1.bin", b);
    TDigest back = read(Golden.read("tdigest-v1.bin"));
    assertThat(bytes(back)).isEqualTo(b);
    assertThat(List.of(back.mergedNodes(), back.unmergedNodes()))
        .containsExactly(s.mergedNodes(), s.unmergedNodes());
    assertThat(back.unmergedNodes()).isEqualTo(37);
    assertThat(List.of(back.mergedWeight(), back.unmergedWeight(), back.totalCompressions()))
        .containsExactly(s.mergedWeight(), s.unmergedWeight(), s.totalCompressions());
    assertThat(List.of(back.min(), back.max())).containsExactly(s.min(), s.max());
    gen(s, 0, 300, 5, new StringBuilder());
    gen(back, 0, 300, 5, new StringBuilder());
    assertThat(bytes(back)).isEqualTo(bytes(s));
    assertThat(back.quantile(0.3)).isEqualTo(s.quantile(0.3));
    assertThat(bytes(back)).isEqualTo(bytes(s));
    // Empty, and a lone observation, read back too.
    for (TDigest t : List.of(TDigest.create(1), digest(7, 2.5))) {
      assertThat(bytes(read(bytes(t)))).isEqualTo(bytes(t));
    }
  }

  @Test
  void format_truncatedCorruptOrOversized_isAnIOException() throws IOException {
    byte[] valid = bytes(sample());
    for (int length = 0; length < valid.length; length++) {
      byte[] cut = Arrays.copyOf(valid, length);
      assertThatThrownBy(() -> read(cut)).isInstanceOf(IOException.class);
    }
    SplittableRandom r = new SplittableRandom(9);
    for (int i = 0; i < 3000; i++) {
      ReaderFuzz.readOrIOException(
          in -> TDigest.readFrom(in, Long.MAX_VALUE), ReaderFuzz.mutate(valid, r));
    }
    assertThatThrownBy(() -> TDigest.readFrom(new ByteArrayInputStream(valid), 100))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("over the limit");
  }

  @Test
  void format_fieldsOutOfRange_areRefused_withTheirReason() throws IOException {
    assertRefused(b -> b.putLong(8, 0), "compression (0)");
    assertRefused(b -> b.putLong(8, TDigest.MAX_COMPRESSION + 1), "compression");
    assertRefused(b -> b.putInt(20, 200), "must be at most the capacity, 130");
    assertRefused(b -> b.putInt(16, -1), "must be at most the capacity");
    assertRefused(b -> b.putDouble(24, 1e9), "min <= max");
    assertRefused(b -> b.putDouble(32, Double.NaN), "must be finite");
    assertRefused(b -> b.putLong(40, -1), "compressions (-1)");
    int n = ByteBuffer.wrap(bytes(sample())).getInt(16) + 37;
    assertRefused(b -> b.putLong(48 + 8 * n, 0), "weight (0) must be >= 1");
    assertRefused(b -> b.putLong(48 + 8 * n + 8, Long.MAX_VALUE), "weight");
    // An empty digest's min and max are +-DBL_MAX.
    byte[] empty = bytes(TDigest.create(5));
    ByteBuffer e = ByteBuffer.wrap(empty);
    e.putDouble(24, 1);
    assertThatThrownBy(() -> read(withCrc(empty)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("when empty");
  }

  private interface Edit {
    void apply(ByteBuffer b);
  }

  private static void assertRefused(Edit edit, String message) throws IOException {
    byte[] b = bytes(sample());
    edit.apply(ByteBuffer.wrap(b));
    assertThatThrownBy(() -> read(withCrc(b)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(message);
  }

  /** The bytes with their CRC32C trailer set right, so a field's own check is what fails. */
  private static byte[] withCrc(byte[] b) {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(b, 0, b.length - 4);
    ByteBuffer.wrap(b).putInt(b.length - 4, (int) crc.getValue());
    return b;
  }
}
