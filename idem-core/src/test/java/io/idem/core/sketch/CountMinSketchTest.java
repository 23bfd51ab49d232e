package io.idem.core.sketch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.format.Golden;
import io.idem.core.format.ReaderFuzz;
import io.idem.core.hash.Hash128;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The count-min sketch: its bounds, saturation, weighted merges, and its format. Fixed seeds. */
class CountMinSketchTest {

  private static final Hash128 HASH = new Hash128();

  private static long add(CountMinSketch s, String item, long by) {
    HASH.hash(item.getBytes(StandardCharsets.UTF_8));
    return s.add(HASH.h1(), HASH.h2(), by);
  }

  private static long estimate(CountMinSketch s, String item) {
    HASH.hash(item.getBytes(StandardCharsets.UTF_8));
    return s.estimate(HASH.h1(), HASH.h2());
  }

  @Test
  void zipfStream_neverUnder_andWithinEpsilonTimesTheTotal_forAllButDeltaOfItems() {
    // width e / 0.001, depth ln(1 / 0.01): within 0.001 N for at least 99 % of items.
    double epsilon = 0.001;
    double delta = 0.01;
    CountMinSketch s =
        CountMinSketch.create(
            (long) Math.ceil(Math.E / epsilon), (long) Math.ceil(Math.log(1 / delta)));
    SplittableRandom r = new SplittableRandom(3);
    Map<String, Long> truth = new HashMap<>();
    long total = 0;
    for (int i = 0; i < 300_000; i++) {
      // Zipf-like: item k with weight about 1 / k over 50,000 items.
      String item = "item-" + (long) Math.exp(r.nextDouble() * Math.log(50_000));
      long by = 1 + r.nextInt(3);
      truth.merge(item, by, Long::sum);
      total += by;
      add(s, item, by);
    }
    assertThat(s.count()).isEqualTo(total);
    int over = 0;
    for (Map.Entry<String, Long> e : truth.entrySet()) {
      long est = estimate(s, e.getKey());
      assertThat(est).as(e.getKey()).isGreaterThanOrEqualTo(e.getValue());
      if (est - e.getValue() > epsilon * total) {
        over++;
      }
    }
    assertThat((double) over / truth.size()).isLessThanOrEqualTo(delta);
  }

  @Test
  void add_returnsTheEstimateAfterIt_andTheSameItemTwiceCountsTwice() {
    CountMinSketch s = CountMinSketch.create(1000, 5);
    assertThat(add(s, "a", 3)).isEqualTo(3);
    assertThat(add(s, "a", 4)).isEqualTo(7);
    assertThat(add(s, "b", 0)).isZero();
    assertThat(estimate(s, "a")).isEqualTo(7);
    assertThat(s.count()).isEqualTo(7);
    assertThatThrownBy(() -> add(s, "a", -1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void counters_saturateAtTwoToThe32MinusOne_whileTheTotalKeepsCounting() {
    CountMinSketch s = CountMinSketch.create(50, 2);
    assertThat(add(s, "a", 2147483647)).isEqualTo(2147483647);
    assertThat(add(s, "a", 2147483647)).isEqualTo(4294967294L);
    assertThat(add(s, "a", 2147483647)).isEqualTo(CountMinSketch.MAX_COUNTER);
    assertThat(add(s, "b", Long.MAX_VALUE)).isEqualTo(CountMinSketch.MAX_COUNTER);
    assertThat(estimate(s, "a")).isEqualTo(CountMinSketch.MAX_COUNTER);
    assertThat(s.count()).isEqualTo(3L * 2147483647 + Long.MAX_VALUE); // modulo 2^64
  }

  @Test
  void create_limits() {
    assertThatThrownBy(() -> CountMinSketch.create(0, 5))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> CountMinSketch.create(5, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> CountMinSketch.create(1L << 31, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> CountMinSketch.create(1L << 16, 1L << 16))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(CountMinSketch.create(20, 5).sizeInBytes()).isEqualTo(400);
  }

  @Test
  void setToWeightedSum_addsSubtractsInPlace_andIsAllOrNothing() throws IOException {
    CountMinSketch a = CountMinSketch.create(100, 4);
    CountMinSketch b = CountMinSketch.create(100, 4);
    add(a, "x", 10);
    add(b, "x", 3);
    add(b, "y", 5);
    CountMinSketch d = CountMinSketch.create(100, 4);
    add(d, "z", 99); // overwritten: not a source
    assertThat(d.setToWeightedSum(new CountMinSketch[] {a, b}, new long[] {2, 1})).isTrue();
    assertThat(estimate(d, "x")).isEqualTo(23);
    assertThat(estimate(d, "y")).isEqualTo(5);
    assertThat(estimate(d, "z")).isZero();
    assertThat(d.count()).isEqualTo(2 * 10 + 8);
    // In place, with a negative weight: a - b.
    byte[] before = bytes(a);
    assertThat(a.setToWeightedSum(new CountMinSketch[] {a, b}, new long[] {1, -1})).isFalse();
    assertThat(bytes(a)).as("unchanged").isEqualTo(before); // y's counters would go below 0
    CountMinSketch c = CountMinSketch.create(100, 4);
    add(c, "x", 4);
    assertThat(a.setToWeightedSum(new CountMinSketch[] {a, c}, new long[] {1, -1})).isTrue();
    assertThat(estimate(a, "x")).isEqualTo(6);
    assertThat(a.count()).isEqualTo(6);
    // Past a counter's range, or 64 bits on the way: nothing changes.
    CountMinSketch big = CountMinSketch.create(100, 4);
    add(big, "x", 4_000_000_000L);
    before = bytes(d);
    assertThat(d.setToWeightedSum(new CountMinSketch[] {big}, new long[] {2})).isFalse();
    assertThat(d.setToWeightedSum(new CountMinSketch[] {big}, new long[] {Long.MAX_VALUE}))
        .isFalse();
    assertThat(bytes(d)).isEqualTo(before);
    assertThatThrownBy(
            () ->
                d.setToWeightedSum(
                    new CountMinSketch[] {CountMinSketch.create(99, 4)}, new long[] {1}))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ---- format

  private static CountMinSketch sample() {
    CountMinSketch s = CountMinSketch.create(13, 3); // an odd number of counters: one padded
    for (int i = 0; i < 40; i++) {
      add(s, "item-" + i, i);
    }
    return s;
  }

  private static byte[] bytes(CountMinSketch s) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    s.writeTo(out);
    return out.toByteArray();
  }

  private static CountMinSketch read(byte[] b) throws IOException {
    return CountMinSketch.readFrom(new ByteArrayInputStream(b), Long.MAX_VALUE);
  }

  @Test
  void format_goldenBytes_roundTrip() throws IOException {
    byte[] b = bytes(sample());
    Golden.assertMatches("count-min-v1.bin", b);
    CountMinSketch back = read(Golden.read("count-min-v1.bin"));
    assertThat(back.width()).isEqualTo(13);
    assertThat(back.depth()).isEqualTo(3);
    assertThat(back.count()).isEqualTo(sample().count());
    for (int i = 0; i < 40; i++) {
      assertThat(estimate(back, "item-" + i)).isEqualTo(estimate(sample(), "item-" + i));
    }
    assertThat(bytes(back)).isEqualTo(b);
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
      byte[] bad = ReaderFuzz.mutate(valid, r);
      ReaderFuzz.readOrIOException(in -> CountMinSketch.readFrom(in, Long.MAX_VALUE), bad);
    }
    assertThatThrownBy(() -> CountMinSketch.readFrom(new ByteArrayInputStream(valid), 100))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("over the limit");
  }
}
