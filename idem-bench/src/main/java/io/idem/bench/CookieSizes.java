package io.idem.bench;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import io.idem.core.seen.SeenCache;
import io.idem.core.seen.SeenCacheCodec;
import io.idem.core.seen.SeenCacheException;
import io.idem.core.seen.SigningKeys;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.Base64;
import java.util.SplittableRandom;

/**
 * Issue 34's sizes: a seen-cache cookie for N items at rate E against seed 000's Guava filter
 * ({@code writeTo}, then base64) for the same items, over many random item sets; the rate each
 * measures; and the time of one request's cookie work (read, 20 checks, 5 adds, write) on both.
 *
 * <pre>
 * scripts/bench-cookie.sh
 * </pre>
 */
public final class CookieSizes {
  private CookieSizes() {}

  private static final byte[] KEY = new byte[32];

  static byte[][] items(SplittableRandom rnd, int n) {
    byte[][] out = new byte[n][16]; // the seed's items: MD5s of URLs, 16 bytes
    for (byte[] b : out) {
      rnd.nextBytes(b);
    }
    return out;
  }

  static String guavaBase64(BloomFilter<byte[]> f) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    return Base64.getEncoder().encodeToString(out.toByteArray());
  }

  public static void main(String[] args) throws Exception {
    System.out.println(
        "| items | rate | Idem cookie, chars: mean (max) | signed, 12-byte tag | Guava writeTo +"
            + " base64 (the seed) | Guava, base64url unpadded | Idem / Guava | measured rate,"
            + " Idem | measured rate, Guava |");
    System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (int n : new int[] {10, 100, 1000}) {
      for (double rate : new double[] {0.01, 0.001}) {
        row(n, rate, n >= 1000 ? 200 : 1000);
      }
    }
    System.out.println();
    timing(SeenCacheCodec.forCount(100, 0.01), "unsigned");
    timing(SeenCacheCodec.forCount(100, 0.01).signedWith(SigningKeys.of(KEY)), "signed");
  }

  static void row(int n, double rate, int trials) throws IOException {
    SeenCacheCodec codec = SeenCacheCodec.forCount(n, rate);
    SeenCacheCodec signed = codec.signedWith(SigningKeys.of(KEY));
    SplittableRandom rnd = new SplittableRandom(34L * n);
    long idem = 0;
    int idemMax = 0;
    long idemSigned = 0;
    long guava = 0;
    long guavaUrl = 0;
    long probes = 0;
    long idemHits = 0;
    long guavaHits = 0;
    for (int t = 0; t < trials; t++) {
      byte[][] items = items(rnd, n);
      SeenCache c = codec.newCache();
      SeenCache s = signed.newCache();
      BloomFilter<byte[]> g = BloomFilter.create(Funnels.byteArrayFunnel(), n, rate);
      for (byte[] item : items) {
        c.add(item);
        s.add(item);
        g.put(item);
      }
      int chars = c.encode().length();
      idem += chars;
      idemMax = Math.max(idemMax, chars);
      idemSigned += s.encode().length();
      String b64 = guavaBase64(g);
      guava += b64.length();
      guavaUrl += b64.replace("=", "").length();
      if (t < 20) {
        byte[] probe = new byte[17]; // never an item: items are 16 bytes
        for (int i = 0; i < 100_000; i++) {
          rnd.nextBytes(probe);
          probes++;
          idemHits += c.mightContain(probe) ? 1 : 0;
          guavaHits += g.mightContain(probe) ? 1 : 0;
        }
      }
    }
    System.out.printf(
        "| %,d | %s %% | %.1f (%d) | %.1f | %.1f | %.1f | %.2f | %.3f %% | %.3f %% |%n",
        n,
        new java.math.BigDecimal(Double.toString(rate * 100)).stripTrailingZeros().toPlainString(),
        (double) idem / trials,
        idemMax,
        (double) idemSigned / trials,
        (double) guava / trials,
        (double) guavaUrl / trials,
        (double) idem / guava,
        100.0 * idemHits / probes,
        100.0 * guavaHits / probes);
  }

  /** One request's work on a cookie of 100 items at 1 %: read, 20 checks, 5 adds, write. */
  static void timing(SeenCacheCodec codec, String form) throws Exception {
    SplittableRandom rnd = new SplittableRandom(7);
    int requests = 20_000;
    String[] idemCookies = new String[64];
    String[] guavaCookies = new String[64];
    for (int i = 0; i < idemCookies.length; i++) {
      SeenCache c = codec.newCache();
      BloomFilter<byte[]> g = BloomFilter.create(Funnels.byteArrayFunnel(), 100, 0.01);
      for (byte[] item : items(rnd, 95)) {
        c.add(item);
        g.put(item);
      }
      idemCookies[i] = c.encode();
      guavaCookies[i] = guavaBase64(g);
    }
    byte[][] probes = items(rnd, 25);
    long[] idemNs = new long[7];
    long[] guavaNs = new long[7];
    long sink = 0;
    for (int round = 0; round < idemNs.length; round++) {
      long t0 = System.nanoTime();
      for (int r = 0; r < requests; r++) {
        sink += idemRequest(codec, idemCookies[r & 63], probes).length();
      }
      long t1 = System.nanoTime();
      for (int r = 0; r < requests; r++) {
        sink += guavaRequest(guavaCookies[r & 63], probes).length();
      }
      long t2 = System.nanoTime();
      idemNs[round] = (t1 - t0) / requests;
      guavaNs[round] = (t2 - t1) / requests;
    }
    // The first two rounds warm up; the median of the other five.
    long idem = median(Arrays.copyOfRange(idemNs, 2, 7));
    long guava = median(Arrays.copyOfRange(guavaNs, 2, 7));
    System.out.printf(
        "One request (read the cookie, 20 checks, 5 adds, write it), 100 items at 1 %%, median of"
            + " five rounds of %,d: Idem (%s) %,d ns, Guava (unsigned) %,d ns: Guava / Idem %.2f"
            + " (sink %d)%n",
        requests, form, idem, guava, (double) guava / idem, sink & 1);
  }

  static String idemRequest(SeenCacheCodec codec, String cookie, byte[][] probes)
      throws SeenCacheException {
    SeenCache c = codec.decode(cookie);
    int seen = 0;
    for (int i = 0; i < 20; i++) {
      seen += c.mightContain(probes[i]) ? 1 : 0;
    }
    for (int i = 20; i < 25; i++) {
      c.add(probes[i]);
    }
    return seen > 20 ? "" : c.encode();
  }

  static String guavaRequest(String cookie, byte[][] probes) throws IOException {
    BloomFilter<byte[]> g =
        BloomFilter.readFrom(
            new ByteArrayInputStream(Base64.getDecoder().decode(cookie)),
            Funnels.byteArrayFunnel());
    int seen = 0;
    for (int i = 0; i < 20; i++) {
      seen += g.mightContain(probes[i]) ? 1 : 0;
    }
    for (int i = 20; i < 25; i++) {
      g.put(probes[i]);
    }
    return seen > 20 ? "" : guavaBase64(g);
  }

  static long median(long[] values) {
    long[] v = values.clone();
    Arrays.sort(v);
    return v[v.length / 2];
  }
}
