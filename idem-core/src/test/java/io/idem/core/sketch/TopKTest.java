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
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** HeavyKeeper top-k: heavy hitters of a Zipf stream, RedisBloom's heap rules, its format. */
class TopKTest {

  private static final Hash128 HASH = new Hash128();

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String add(TopK t, String item, long by) {
    byte[] expelled = t.add(b(item), HASH.hash(b(item)), by);
    return expelled == null ? null : new String(expelled, StandardCharsets.UTF_8);
  }

  private static long count(TopK t, String item) {
    return t.count(b(item), HASH.hash(b(item)));
  }

  private static List<String> list(TopK t) {
    return t.list().stream().map(e -> new String(e.item(), StandardCharsets.UTF_8)).toList();
  }

  @Test
  void findsTheHeavyHittersOfAZipfStream() {
    for (long seed = 1; seed <= 3; seed++) {
      SplittableRandom r = new SplittableRandom(seed);
      // Zipf with exponent 1 over 20,000 items: item i drawn with probability about 1 / (i H).
      int items = 20_000;
      double[] cumulative = new double[items];
      double sum = 0;
      for (int i = 0; i < items; i++) {
        sum += 1.0 / (i + 1);
        cumulative[i] = sum;
      }
      TopK t = TopK.create(10, 1000, 5, 0.9, seed);
      Map<String, Long> truth = new HashMap<>();
      for (int n = 0; n < 300_000; n++) {
        int i = Arrays.binarySearch(cumulative, r.nextDouble() * sum);
        String item = "item-" + (i < 0 ? -i - 1 : i);
        truth.merge(item, 1L, Long::sum);
        add(t, item, 1);
      }
      List<String> top =
          truth.entrySet().stream()
              .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
              .limit(10)
              .map(Map.Entry::getKey)
              .toList();
      List<String> found = list(t);
      assertThat(found).as("seed %d", seed).containsExactlyInAnyOrderElementsOf(top);
      // Listed largest first, each count near the truth (HeavyKeeper's decay only takes away).
      List<TopK.Entry> entries = t.list();
      for (int i = 0; i < entries.size(); i++) {
        long truly = truth.get(found.get(i));
        assertThat(entries.get(i).count()).isBetween((long) (truly * 0.95), truly);
        if (i > 0) {
          assertThat(entries.get(i).count()).isLessThanOrEqualTo(entries.get(i - 1).count());
        }
      }
      for (String item : top) {
        assertThat(t.contains(b(item), HASH.hash(b(item)))).isTrue();
      }
    }
  }

  @Test
  void heapRules_asRedisBloomsIncrbyExample_atDecayOne() {
    TopK t = TopK.create(3, 1000, 3, 1, 7);
    assertThat(add(t, "bar", 3)).isNull();
    assertThat(add(t, "baz", 6)).isNull();
    assertThat(add(t, "42", 2)).isNull();
    assertThat(add(t, "42", 8)).isNull(); // in the heap already: its count rises, nothing leaves
    assertThat(add(t, "xyzzy", 4)).isEqualTo("bar"); // 4 >= the least, 3: bar is expelled
    assertThat(List.of(count(t, "bar"), count(t, "baz"), count(t, "42"), count(t, "xyzzy")))
        .containsExactly(3L, 6L, 10L, 4L);
    assertThat(count(t, "4")).isZero();
    assertThat(list(t)).containsExactly("42", "baz", "xyzzy");
    assertThat(t.list().stream().map(TopK.Entry::count).toList()).containsExactly(10L, 6L, 4L);
    // A tie with the least displaces it.
    assertThat(add(t, "tie", 4)).isEqualTo("xyzzy");
    // Below the least: counted, not listed.
    assertThat(add(t, "small", 1)).isNull();
    assertThat(t.contains(b("small"), HASH.hash(b("small")))).isFalse();
    assertThat(count(t, "small")).isEqualTo(1);
  }

  @Test
  void aNotFullHeap_takesEveryItem_evenAtCountZero() {
    TopK t = TopK.create(4, 100, 3, 0.9, 1);
    assertThat(add(t, "zero", 0)).isNull();
    assertThat(t.contains(b("zero"), HASH.hash(b("zero")))).isTrue();
    assertThat(list(t)).isEmpty(); // count 0 is never listed
    // As RedisBloom 2.6.28 answers TOPK.INCRBY t zero 0, then TOPK.ADD t a, b, c, d, and
    // TOPK.LIST t: "zero" sank below an empty slot on a tie, so b, not a, expels it.
    assertThat(add(t, "a", 1)).isNull();
    assertThat(add(t, "b", 1)).isEqualTo("zero");
    assertThat(add(t, "c", 1)).isNull();
    assertThat(add(t, "d", 1)).isNull();
    assertThat(list(t)).containsExactly("b", "d", "c", "a");
  }

  @Test
  void collisionsDecay_soAHeavyItemKeepsItsBucket() {
    TopK t = TopK.create(1, 1, 1, 0.9, 3); // one bucket: every item collides
    add(t, "heavy", 1000);
    for (int i = 0; i < 200; i++) {
      add(t, "light-" + i, 1);
    }
    assertThat(list(t)).containsExactly("heavy");
    assertThat(count(t, "heavy")).isEqualTo(1000); // decay 0.9^1000 never takes one
    // At decay 1 every unit of a collision takes one: of 5 units against a count of 3, the third
    // empties the bucket and b takes it with the units not yet spent, that one included: 3.
    TopK d = TopK.create(1, 1, 1, 1, 3);
    add(d, "a", 3);
    assertThat(add(d, "b", 5)).isEqualTo("a");
    assertThat(count(d, "b")).isEqualTo(3);
    assertThat(count(d, "a")).isZero();
  }

  @Test
  void theSameAdditionsOnTheSameSeed_giveTheSameBytes() throws IOException {
    TopK a = sample(11);
    TopK b = sample(11);
    assertThat(bytes(a)).isEqualTo(bytes(b));
    // Other coin flips change the buckets, not only the generator's state (bytes 28 to 35).
    byte[] other = bytes(sample(12));
    byte[] mine = bytes(a);
    Arrays.fill(other, 28, 36, (byte) 0);
    Arrays.fill(mine, 28, 36, (byte) 0);
    Arrays.fill(other, other.length - 4, other.length, (byte) 0); // and the checksum
    Arrays.fill(mine, mine.length - 4, mine.length, (byte) 0);
    assertThat(other).isNotEqualTo(mine);
  }

  @Test
  void create_limits() {
    assertThatThrownBy(() -> TopK.create(0, 8, 7, 0.9, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TopK.create(1, 8, 7, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TopK.create(1, 8, 7, 1.01, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TopK.create(1, 1L << 20, 1L << 9, 0.9, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TopK.create(TopK.MAX_K + 1, 8, 7, 0.9, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ---- format

  private static TopK sample(long seed) {
    TopK t = TopK.create(3, 7, 2, 0.9, seed);
    for (int i = 0; i < 60; i++) {
      add(t, "item-" + (i % 9), 1 + i % 4);
    }
    return t;
  }

  private static byte[] bytes(TopK t) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    t.writeTo(out);
    return out.toByteArray();
  }

  private static TopK read(byte[] b) throws IOException {
    return TopK.readFrom(new ByteArrayInputStream(b), Long.MAX_VALUE);
  }

  @Test
  void format_goldenBytes_roundTrip_andTheGeneratorCarriesOn() throws IOException {
    TopK s = sample(5);
    byte[] b = bytes(s);
    Golden.assertMatches("topk-v1.bin", b);
    TopK back = read(Golden.read("topk-v1.bin"));
    assertThat(bytes(back)).isEqualTo(b);
    assertThat(back.list().stream().map(e -> new String(e.item(), StandardCharsets.UTF_8)))
        .containsExactlyElementsOf(list(s));
    for (int i = 0; i < 30; i++) {
      add(s, "more-" + i, 3);
      add(back, "more-" + i, 3);
    }
    assertThat(bytes(back)).isEqualTo(bytes(s));
    // A heap with an empty slot reads back too.
    TopK partly = TopK.create(5, 10, 2, 0.5, 1);
    add(partly, "", 2);
    assertThat(bytes(read(bytes(partly)))).isEqualTo(bytes(partly));
  }

  @Test
  void format_truncatedCorruptOrOversized_isAnIOException() throws IOException {
    byte[] valid = bytes(sample(5));
    for (int length = 0; length < valid.length; length++) {
      byte[] cut = Arrays.copyOf(valid, length);
      assertThatThrownBy(() -> read(cut)).isInstanceOf(IOException.class);
    }
    SplittableRandom r = new SplittableRandom(9);
    for (int i = 0; i < 3000; i++) {
      ReaderFuzz.readOrIOException(
          in -> TopK.readFrom(in, Long.MAX_VALUE), ReaderFuzz.mutate(valid, r));
    }
    assertThatThrownBy(() -> TopK.readFrom(new ByteArrayInputStream(valid), 100))
        .isInstanceOf(IOException.class);
  }
}
