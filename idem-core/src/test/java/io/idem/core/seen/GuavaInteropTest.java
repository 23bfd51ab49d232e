package io.idem.core.seen;

import static io.idem.core.seen.SeenCacheTest.assertReason;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import io.idem.core.seen.SeenCacheException.Reason;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** GuavaBloomFilter against the real Guava library, in seed 000's use: MD5s of URLs. */
class GuavaInteropTest {
  static List<byte[]> md5s(int n, String prefix) throws Exception {
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(
          MessageDigest.getInstance("MD5").digest((prefix + i).getBytes(StandardCharsets.UTF_8)));
    }
    return out;
  }

  static byte[] guavaBytes(BloomFilter<byte[]> f) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    return out.toByteArray();
  }

  @Test
  void readsAndWritesGuavasBytesExactly() throws Exception {
    for (int n : new int[] {10, 100, 1000}) {
      for (double rate : new double[] {0.03, 0.01, 0.001}) {
        BloomFilter<byte[]> guava = BloomFilter.create(Funnels.byteArrayFunnel(), n, rate);
        GuavaBloomFilter ours = GuavaBloomFilter.create(n, rate);
        for (byte[] item : md5s(n, "https://example.com/" + n + "/")) {
          guava.put(item);
          ours.add(item);
        }
        byte[] theirs = guavaBytes(guava);
        // The same sizing and the same bits: byte for byte.
        assertThat(ours.toByteArray()).isEqualTo(theirs);
        // Their bytes read here answer as Guava does, for members and others alike.
        GuavaBloomFilter read = GuavaBloomFilter.readFrom(theirs, 1 << 20);
        SplittableRandom rnd = new SplittableRandom(n);
        for (int i = 0; i < 20_000; i++) {
          byte[] probe = new byte[16];
          rnd.nextBytes(probe);
          assertThat(read.mightContain(probe)).isEqualTo(guava.mightContain(probe));
        }
        // Our bytes read by Guava hold every member.
        BloomFilter<byte[]> back =
            BloomFilter.readFrom(
                new ByteArrayInputStream(ours.toByteArray()), Funnels.byteArrayFunnel());
        for (byte[] item : md5s(n, "https://example.com/" + n + "/")) {
          assertThat(back.mightContain(item)).isTrue();
        }
      }
    }
  }

  @Test
  void theSeedsCookieIs168CharactersAndReadsBack() throws Exception {
    BloomFilter<byte[]> guava = BloomFilter.create(Funnels.byteArrayFunnel(), 100, 0.01);
    List<byte[]> urls = md5s(100, "https://example.com/article/");
    urls.forEach(guava::put);
    String cookie = Base64.getEncoder().encodeToString(guavaBytes(guava));
    assertThat(cookie).hasSize(168);
    GuavaBloomFilter read = GuavaBloomFilter.fromBase64(cookie, 4096);
    for (byte[] u : urls) {
      assertThat(read.mightContain(u)).isTrue();
    }
    assertThat(read.toBase64()).isEqualTo(cookie);
    // The same bytes in base64url, unpadded, read too.
    String url = Base64.getUrlEncoder().withoutPadding().encodeToString(guavaBytes(guava));
    assertThat(GuavaBloomFilter.fromBase64(url, 4096).toBase64()).isEqualTo(cookie);
  }

  @Test
  void badGuavaBytesAreRefused() throws Exception {
    BloomFilter<byte[]> guava = BloomFilter.create(Funnels.byteArrayFunnel(), 100, 0.01);
    byte[] good = guavaBytes(guava);
    assertReason(() -> GuavaBloomFilter.readFrom(good, good.length - 1), Reason.TOO_LARGE);
    assertReason(() -> GuavaBloomFilter.readFrom(new byte[3], 100), Reason.TRUNCATED);
    assertReason(
        () -> GuavaBloomFilter.readFrom(java.util.Arrays.copyOf(good, good.length - 8), 4096),
        Reason.TRUNCATED);
    assertReason(
        () -> GuavaBloomFilter.readFrom(java.util.Arrays.copyOf(good, good.length + 8), 4096),
        Reason.MALFORMED);
    byte[] lying = good.clone();
    lying[2] = 0x7f; // word count 2^30 and more: refused from the size, not allocated
    assertReason(() -> GuavaBloomFilter.readFrom(lying, 4096), Reason.TRUNCATED);
    byte[] otherStrategy = good.clone();
    otherStrategy[0] = 0;
    assertReason(() -> GuavaBloomFilter.readFrom(otherStrategy, 4096), Reason.WRONG_FAMILY);
    byte[] noHash = good.clone();
    noHash[1] = 0;
    assertReason(() -> GuavaBloomFilter.readFrom(noHash, 4096), Reason.MALFORMED);
    assertReason(() -> GuavaBloomFilter.fromBase64("A".repeat(5000), 4096), Reason.TOO_LARGE);
    assertReason(() -> GuavaBloomFilter.fromBase64("AQc*", 4096), Reason.NOT_BASE64);
    // A seen-cache codec names a Guava value for what it is.
    String cookie = Base64.getUrlEncoder().withoutPadding().encodeToString(good);
    assertReason(() -> SeenCacheCodec.forBudget(4096, 0.01).decode(cookie), Reason.WRONG_FAMILY);
  }
}
