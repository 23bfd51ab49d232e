package io.idem.core.seen;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Random and mutated cookie values. The contract: decode returns a cache within the codec's limits
 * or throws SeenCacheException; never another exception, and never allocates more than the value's
 * own size and the codec's capacity allow.
 */
class SeenCacheFuzzTest {
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private static List<SeenCacheCodec> codecs() {
    byte[] key =
        "a fuzzing key of thirty-two byte".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    return List.of(
        SeenCacheCodec.forCount(100, 0.01),
        SeenCacheCodec.forCount(10, 0.001),
        SeenCacheCodec.forBudget(400, 0.01),
        SeenCacheCodec.forCount(50, 0.01).signedWith(SigningKeys.of(key)),
        // A large capacity: a value claiming all of it must not be given the memory.
        SeenCacheCodec.forCount(1 << 20, 0.01));
  }

  /** Off while warming up: class loading, string-concatenation sites and the first MAC allocate. */
  private static boolean measure;

  static {
    SplittableRandom rnd = new SplittableRandom(1);
    for (int i = 0; i < 300; i++) {
      for (SeenCacheCodec codec : codecs()) {
        decodeChecked(codec, randomText(rnd, codec, i));
        SeenCache c = codec.newCache();
        c.add(new byte[] {(byte) i});
        decodeChecked(
            codec, B64.encodeToString(mutate(rnd, Base64.getUrlDecoder().decode(c.encode()))));
        decodeChecked(codec, mutateText(rnd, c.encode()));
      }
    }
    measure = true;
  }

  /** Decodes; checks the result's limits and the allocation; returns whether it was accepted. */
  private static boolean decodeChecked(SeenCacheCodec codec, String value) {
    long before = THREADS.getCurrentThreadAllocatedBytes();
    boolean accepted;
    try {
      SeenCache c = codec.decode(value);
      assertThat(c.size()).isLessThanOrEqualTo(codec.capacity());
      assertThat(c.encode().length()).isLessThanOrEqualTo(codec.maxChars());
      accepted = true;
    } catch (SeenCacheException expected) {
      assertThat(expected.getMessage()).isNotBlank();
      accepted = false;
    }
    long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
    if (!measure) {
      return accepted;
    }
    // The value's bytes (a few copies); for an accepted value its arrays (4 bytes an item, at most
    // one item a bit, doubled while growing, and again for the re-encode); and for the objects, an
    // exception's stack trace and a MAC. Nothing in proportion to the codec's capacity.
    long bound = 256L * 1024 + 8L * value.length() + (accepted ? 40L * value.length() : 0);
    assertThat(allocated).as("bytes allocated decoding %s chars", value.length()).isLessThan(bound);
    return accepted;
  }

  @Test
  void mutatedValuesAreAcceptedWithinLimitsOrRefusedWithAReason() {
    SplittableRandom rnd = new SplittableRandom(20261127);
    int accepted = 0;
    int total = 0;
    for (SeenCacheCodec codec : codecs()) {
      for (int round = 0; round < 1500; round++) {
        SeenCache c = codec.newCache();
        int items = rnd.nextInt(Math.min(codec.capacity() * 3, 2000) + 1);
        for (int i = 0; i < items; i++) {
          c.add(("item " + rnd.nextLong()).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        String good = c.encode();
        assertThat(decodeChecked(codec, good)).isTrue();
        byte[] bytes = Base64.getUrlDecoder().decode(good);
        byte[] mutated = mutate(rnd, bytes);
        total++;
        if (decodeChecked(codec, B64.encodeToString(mutated))) {
          accepted++;
        }
        decodeChecked(codec, mutateText(rnd, good));
      }
    }
    // Unsigned values often stay valid after a change (any set is a valid set); signed ones never.
    assertThat(accepted).isPositive().isLessThan(total);
  }

  @Test
  void randomTextIsRefusedOrBounded() {
    SplittableRandom rnd = new SplittableRandom(34);
    for (SeenCacheCodec codec : codecs()) {
      for (int round = 0; round < 3000; round++) {
        decodeChecked(codec, randomText(rnd, codec, round));
      }
    }
  }

  private static String randomText(SplittableRandom rnd, SeenCacheCodec codec, int round) {
    String alphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/=% ;\u00e9\u0000";
    int length = rnd.nextInt(round % 10 == 0 ? 20_000 : Math.min(codec.maxChars(), 4096) + 4);
    StringBuilder sb = new StringBuilder(length);
    boolean base64Only = rnd.nextBoolean();
    for (int i = 0; i < length; i++) {
      sb.append(alphabet.charAt(rnd.nextInt(base64Only ? 64 : alphabet.length())));
    }
    return sb.toString();
  }

  private static byte[] mutate(SplittableRandom rnd, byte[] bytes) {
    byte[] b = bytes.clone();
    switch (rnd.nextInt(6)) {
      case 0 -> b[rnd.nextInt(b.length)] ^= (byte) (1 << rnd.nextInt(8));
      case 1 -> b = java.util.Arrays.copyOf(b, rnd.nextInt(b.length + 1));
      case 2 -> {
        b = java.util.Arrays.copyOf(b, b.length + 1 + rnd.nextInt(8));
        for (int i = bytes.length; i < b.length; i++) {
          b[i] = (byte) rnd.nextInt(256);
        }
      }
      case 3 -> b[rnd.nextInt(b.length)] = (byte) rnd.nextInt(256);
      case 4 -> {
        // Two generations whose counts start with a run of zeros: a gamma code claiming millions.
        b = java.util.Arrays.copyOf(b, Math.max(b.length, 12));
        b[1] |= 0x20;
        int zeros = rnd.nextInt(5);
        for (int i = 2; i < b.length; i++) {
          b[i] = i < 2 + zeros ? 0 : (byte) rnd.nextInt(256);
        }
      }
      default -> {
        for (int i = 2; i < b.length; i++) {
          b[i] = (byte) rnd.nextInt(256);
        }
      }
    }
    return b;
  }

  private static String mutateText(SplittableRandom rnd, String value) {
    StringBuilder sb = new StringBuilder(value);
    int at = rnd.nextInt(sb.length() + 1);
    switch (rnd.nextInt(3)) {
      case 0 -> sb.insert(at, "=+/%\u00ff".charAt(rnd.nextInt(5)));
      case 1 -> {
        if (at < sb.length()) {
          sb.deleteCharAt(at);
        }
      }
      default -> sb.append(sb);
    }
    return sb.toString();
  }
}
