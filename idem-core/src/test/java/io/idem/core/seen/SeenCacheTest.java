package io.idem.core.seen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.format.Golden;
import io.idem.core.seen.SeenCacheException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SeenCacheTest {
  static byte[] item(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static List<byte[]> randomItems(SplittableRandom rnd, int n) {
    List<byte[]> items = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      byte[] b = new byte[16];
      rnd.nextBytes(b);
      items.add(b);
    }
    return items;
  }

  @Test
  void hundredItemsAtOnePercentFitIn140Characters() throws Exception {
    SeenCacheCodec codec = SeenCacheCodec.forCount(100, 0.01);
    SplittableRandom rnd = new SplittableRandom(34);
    int longest = 0;
    for (int trial = 0; trial < 2000; trial++) {
      SeenCache c = codec.newCache();
      List<byte[]> items = randomItems(rnd, 100);
      items.forEach(c::add);
      String value = c.encode();
      assertThat(value.length()).isEqualTo(c.encodedLength());
      longest = Math.max(longest, value.length());
      // Still a working cache after a decode: every item is there, and it takes more.
      SeenCache back = codec.decode(value);
      assertThat(back.encode()).isEqualTo(value);
      for (byte[] it : items) {
        assertThat(back.mightContain(it)).isTrue();
      }
      // A new item is almost always new to it (1 % are false positives), and is kept.
      back.add(item("one more " + trial));
      assertThat(back.mightContain(item("one more " + trial))).isTrue();
      assertThat(back.size()).isLessThanOrEqualTo(100);
    }
    assertThat(longest).isLessThanOrEqualTo(140);
  }

  @Test
  void aFewItemsMakeAShortValueWhateverTheCapacity() throws Exception {
    SeenCacheCodec big = SeenCacheCodec.forBudget(4000, 0.01);
    SeenCache c = big.newCache();
    assertThat(c.encode()).hasSizeLessThanOrEqualTo(8); // the header and a count
    randomItems(new SplittableRandom(5), 10).forEach(c::add);
    // About log2(range / 10) + 1.5 bits an item, not a share of the capacity.
    assertThat(c.encode().length()).isLessThan(40);
    assertThat(big.decode(c.encode()).size()).isEqualTo(10);
  }

  @Test
  void falsePositiveRateStaysWithinTheRate() {
    for (double rate : new double[] {0.01, 0.001}) {
      SeenCacheCodec codec = SeenCacheCodec.forCount(1000, rate);
      SeenCache c = codec.newCache();
      SplittableRandom rnd = new SplittableRandom(7);
      randomItems(rnd, 1000).forEach(c::add);
      assertThat(c.falsePositiveRate()).isLessThanOrEqualTo(rate);
      int trials = 2_000_000;
      int hits = 0;
      byte[] probe = new byte[17]; // a length no added item has
      for (int i = 0; i < trials; i++) {
        rnd.nextBytes(probe);
        if (c.mightContain(probe)) {
          hits++;
        }
      }
      // The expected count is at most rate * trials; allow five standard deviations.
      double expected = c.falsePositiveRate() * trials;
      assertThat((double) hits).isLessThan(expected + 5 * Math.sqrt(expected));
      assertThat((double) hits).isGreaterThan(expected - 5 * Math.sqrt(expected));
    }
  }

  @Test
  void agesOutOlderItemsAndKeepsEveryNewerOne() throws Exception {
    SeenCacheCodec codec = SeenCacheCodec.forCount(100, 0.01);
    SeenCache c = codec.newCache();
    List<byte[]> items = randomItems(new SplittableRandom(3), 2000);
    int sinceRotation = 0;
    for (int i = 0; i < items.size(); i++) {
      int olderBefore = c.olderSize();
      c.add(items.get(i));
      assertThat(c.size()).isLessThanOrEqualTo(100);
      assertThat(c.falsePositiveRate()).isLessThanOrEqualTo(0.01);
      sinceRotation = c.olderSize() > olderBefore ? 1 : sinceRotation + 1;
      // Every item added since the newer generation began is still there.
      for (int j = i - sinceRotation + 1; j <= i; j++) {
        assertThat(c.mightContain(items.get(j))).as("item %s at step %s", j, i).isTrue();
      }
      if (i % 97 == 0) {
        assertThat(codec.decode(c.encode()).encode()).isEqualTo(c.encode());
      }
    }
    // Once it ages it is full, and the first items are (almost all) gone.
    assertThat(c.size()).isEqualTo(100);
    long remembered = items.subList(0, 100).stream().filter(c::mightContain).count();
    assertThat(remembered).isLessThan(10);
  }

  @Test
  void aBudgetIsNeverPassedAndTheNewestItemsStay() throws Exception {
    for (int budget : new int[] {40, 300, 4000}) {
      SeenCacheCodec codec = SeenCacheCodec.forBudget(budget, 0.01);
      SeenCache c = codec.newCache();
      List<byte[]> items = randomItems(new SplittableRandom(budget), codec.capacity() * 5);
      for (int i = 0; i < items.size(); i++) {
        c.add(items.get(i));
        assertThat(c.encodedLength()).isLessThanOrEqualTo(budget);
        assertThat(c.mightContain(items.get(i))).isTrue();
        if (i % 251 == 0 || i == items.size() - 1) {
          String value = c.encode();
          assertThat(value.length()).isEqualTo(c.encodedLength()).isLessThanOrEqualTo(budget);
          assertThat(codec.decode(value).encode()).isEqualTo(value);
        }
      }
      // A full cache keeps at least half its capacity, and the newest of them.
      assertThat(c.size()).isGreaterThanOrEqualTo(codec.capacity() / 2);
      for (byte[] recent : items.subList(items.size() - codec.capacity() / 4, items.size())) {
        assertThat(c.mightContain(recent)).isTrue();
      }
    }
  }

  @Test
  void everyBudgetAcceptedHoldsItsLongestValue_orIsRefused() throws Exception {
    byte[] key = item("a key of thirty-two bytes, test!");
    SplittableRandom rnd = new SplittableRandom(20);
    for (int budget = 8; budget <= 64; budget++) {
      for (double rate : new double[] {0.5, 0.0125, 0.001, 1e-6, 6.7e-10}) {
        for (boolean signed : new boolean[] {false, true}) {
          SeenCacheCodec codec;
          try {
            codec = SeenCacheCodec.forBudget(budget, rate);
            if (signed) {
              codec = codec.signedWith(SigningKeys.of(key));
            }
          } catch (IllegalArgumentException refused) {
            assertThat(refused).hasMessageMatching(".*(holds no item|over 2\\^31).*");
            continue;
          }
          for (int round = 0; round < 3; round++) {
            SeenCache c = codec.newCache();
            for (byte[] it : randomItems(rnd, 1 + codec.capacity() * 2)) {
              c.add(it);
              String value = c.encode();
              assertThat(value.length()).isLessThanOrEqualTo(budget);
              assertThat(codec.decode(value).encode()).isEqualTo(value);
            }
          }
        }
      }
    }
  }

  @Test
  void aSeenItemMovesToTheNewerGeneration() {
    SeenCacheCodec codec = SeenCacheCodec.forCount(10, 0.01);
    SeenCache c = codec.newCache();
    for (int i = 0; i < 11; i++) {
      c.add(item("a" + i));
    }
    assertThat(c.olderSize()).isEqualTo(9); // a0..a9 rotated out of the newer one, one forgotten
    byte[] kept = item("a0").clone();
    boolean stillThere = c.mightContain(kept);
    byte[] again = stillThere ? kept : item("a1");
    assertThat(c.add(again)).isFalse();
    assertThat(c.olderSize()).isEqualTo(8);
    assertThat(c.mightContain(again)).isTrue();
  }

  @Test
  void signedValuesVerifyAndRotateKeys() throws Exception {
    byte[] oldKey = item("an old key of 32 bytes, not real");
    byte[] newKey = item("a new key of 32 bytes, not real!");
    SeenCacheCodec plain = SeenCacheCodec.forCount(100, 0.01);
    SeenCacheCodec old = plain.signedWith(SigningKeys.of(oldKey));
    SeenCacheCodec rotating = plain.signedWith(SigningKeys.of(newKey, oldKey));
    SeenCacheCodec fresh = plain.signedWith(SigningKeys.of(newKey));

    SeenCache c = old.newCache();
    c.add(item("x"));
    String signedOld = c.encode();
    SeenCache same = plain.newCache();
    same.add(item("x"));
    assertThat(signedOld.length()).isEqualTo(same.encodedLength() + 16);
    // Verified with the old key, written again with the new one.
    SeenCache read = rotating.decode(signedOld);
    assertThat(read.mightContain(item("x"))).isTrue();
    String signedNew = read.encode();
    assertThat(fresh.decode(signedNew).mightContain(item("x"))).isTrue();
    // The tag covers the codec's size: the same key under another size refuses the value.
    assertReason(
        () ->
            SeenCacheCodec.forCount(101, 0.01).signedWith(SigningKeys.of(oldKey)).decode(signedOld),
        Reason.BAD_TAG);
    assertThatThrownBy(() -> fresh.decode(signedOld))
        .isInstanceOf(SeenCacheException.class)
        .extracting(e -> ((SeenCacheException) e).reason())
        .isEqualTo(Reason.BAD_TAG);
    // An unsigned value, or one with any bit changed, is refused.
    SeenCache u = plain.newCache();
    u.add(item("x"));
    assertReason(() -> fresh.decode(u.encode()), Reason.TRUNCATED);
    byte[] bytes = java.util.Base64.getUrlDecoder().decode(signedNew);
    for (int i = 0; i < bytes.length * 8; i++) {
      byte[] flipped = bytes.clone();
      flipped[i / 8] ^= (byte) (1 << (i % 8));
      String v = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(flipped);
      assertReason(() -> rotating.decode(v), Reason.BAD_TAG);
    }
  }

  @Test
  void badValuesAreRefusedWithTheirReason() {
    SeenCacheCodec codec = SeenCacheCodec.forCount(100, 0.01);
    SeenCache c = codec.newCache();
    randomItems(new SplittableRandom(1), 50).forEach(c::add);
    String good = c.encode();
    assertReason(() -> codec.decode("A".repeat(codec.maxChars() + 1)), Reason.TOO_LARGE);
    assertReason(() -> codec.decode(""), Reason.TRUNCATED);
    assertReason(() -> codec.decode(null), Reason.TRUNCATED);
    assertReason(() -> codec.decode(good + "="), Reason.NOT_BASE64);
    assertReason(() -> codec.decode(good.replace('A', '+') + "+"), Reason.NOT_BASE64);
    assertReason(() -> codec.decode("Cw%3D"), Reason.NOT_BASE64);
    assertReason(() -> codec.decode("C"), Reason.NOT_BASE64);
    assertReason(() -> codec.decode("Cx"), Reason.NOT_BASE64); // not canonical: 'x' leaves bits
    assertReason(() -> codec.decode("Cw"), Reason.TRUNCATED);
    assertReason(() -> codec.decode("AAAA"), Reason.WRONG_FAMILY);
    byte[] header = java.util.Base64.getUrlDecoder().decode(good);
    header[1] = (byte) ((header[1] & 0x3f) | 0x80); // version 2
    assertReason(() -> codec.decode(b64(header)), Reason.WRONG_VERSION);
    assertReason(() -> SeenCacheCodec.forCount(1000, 0.01).decode(good), Reason.WRONG_SPEC);
    assertReason(() -> SeenCacheCodec.forCount(100, 0.001).decode(good), Reason.WRONG_SPEC);
    // Cut off in the middle of a code: the padding rule or a short code catches it.
    byte[] bytes = java.util.Base64.getUrlDecoder().decode(good);
    byte[] cut = java.util.Arrays.copyOf(bytes, bytes.length / 2);
    cut[cut.length - 1] = 0;
    assertReason(() -> codec.decode(b64(cut)), Reason.TRUNCATED);
    byte[] zeros = java.util.Arrays.copyOf(bytes, bytes.length + 4); // trailing zero bytes
    assertThatThrownBy(() -> codec.decode(b64(zeros))).isInstanceOf(SeenCacheException.class);
  }

  @Test
  void refusesSizesItCannotKeep() {
    assertThatThrownBy(() -> SeenCacheCodec.forCount(0, 0.01))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> SeenCacheCodec.forCount(100, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> SeenCacheCodec.forCount(1 << 20, 1e-6))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("over 2^31");
    assertThatThrownBy(() -> SeenCacheCodec.forBudget(8, 1e-12))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("holds no item");
    assertThatThrownBy(() -> SigningKeys.of(new byte[8]))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void formatIsPinned() throws Exception {
    SeenCacheCodec codec = SeenCacheCodec.forCount(100, 0.01);
    SeenCache one = codec.newCache();
    for (int i = 0; i < 100; i++) {
      one.add(item("https://example.com/article/" + i));
    }
    SeenCache two = SeenCacheCodec.forCount(10, 0.01).newCache();
    for (int i = 0; i < 15; i++) {
      two.add(item("https://example.com/article/" + i));
    }
    SeenCacheCodec signed =
        SeenCacheCodec.forCount(10, 0.01).signedWith(SigningKeys.of(item("k".repeat(32))));
    SeenCache three = signed.newCache();
    three.add(item("https://example.com/article/0"));
    String golden = one.encode() + "\n" + two.encode() + "\n" + three.encode() + "\n";
    Golden.assertMatches("seen-cache-v1.txt", golden.getBytes(StandardCharsets.US_ASCII));
    String[] lines =
        new String(Golden.read("seen-cache-v1.txt"), StandardCharsets.US_ASCII).split("\n");
    assertThat(SeenCacheCodec.forCount(10, 0.01).decode(lines[1]).olderSize()).isPositive();
    assertThat(signed.decode(lines[2]).mightContain(item("https://example.com/article/0")))
        .isTrue();
  }

  static String b64(byte[] b) {
    return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  interface Decode {
    Object run() throws SeenCacheException;
  }

  static void assertReason(Decode d, Reason reason) {
    assertThatThrownBy(d::run)
        .isInstanceOf(SeenCacheException.class)
        .satisfies(e -> assertThat(((SeenCacheException) e).reason()).isEqualTo(reason));
  }
}
