package io.idem.bench.idemkeys;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * The requests of a run, the same for every side: request {@code i} is sent {@code i / rate}
 * seconds after the start, with the key of request {@link #keyOf}. A share of them are retries of
 * an earlier request's key: half while it may still run (within the work's time after it), half
 * later (up to {@code retrySeconds}), as a client that timed out and one that came back. Keys are
 * UUIDs, as idempotency keys are; a key's fingerprint and result follow from it.
 */
public final class Mix {
  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  private final int[] keyOf;
  private final long salt;
  private final int resultBytes;
  private final int retries;

  public Mix(
      int requests,
      double rate,
      double retryShare,
      double workMillis,
      double retrySeconds,
      int resultBytes,
      long seed) {
    this.keyOf = new int[requests];
    this.salt = seed * 0x9E3779B97F4A7C15L;
    this.resultBytes = resultBytes;
    SplittableRandom rnd = new SplittableRandom(seed);
    int r = 0;
    for (int i = 0; i < requests; i++) {
      keyOf[i] = i;
      if (rnd.nextDouble() < retryShare) {
        double delaySeconds =
            rnd.nextBoolean()
                ? rnd.nextDouble() * workMillis / 1000
                : workMillis / 1000 + rnd.nextDouble() * (retrySeconds - workMillis / 1000);
        int lag = (int) Math.max(1, Math.round(delaySeconds * rate));
        if (lag <= i) {
          keyOf[i] = keyOf[i - lag];
          r++;
        }
      }
    }
    this.retries = r;
  }

  int requests() {
    return keyOf.length;
  }

  /** The request whose key request {@code i} sends: itself for a first request. */
  int keyOf(int i) {
    return keyOf[i];
  }

  /** Requests that are retries of an earlier one's key. */
  int retries() {
    return retries;
  }

  /** Key {@code k} as a UUID's 36 characters. */
  byte[] id(int k) {
    long hi = mix(salt + k);
    long lo = mix(hi ^ k);
    byte[] b = new byte[36];
    int p = 0;
    for (int nibble = 0; nibble < 32; nibble++) {
      if (nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20) {
        b[p++] = '-';
      }
      long word = nibble < 16 ? hi : lo;
      b[p++] = HEX[(int) (word >>> (60 - 4 * (nibble % 16))) & 15];
    }
    return b;
  }

  /** Key {@code k}'s request fingerprint: 16 bytes, as a 128-bit hash of method, path and body. */
  byte[] fingerprint(int k) {
    byte[] b = new byte[16];
    long a = mix(salt ^ 0x5bd1e995L ^ k);
    long c = mix(a);
    for (int j = 0; j < 8; j++) {
      b[j] = (byte) (a >>> (8 * j));
      b[8 + j] = (byte) (c >>> (8 * j));
    }
    return b;
  }

  /** Key {@code k}'s result: a response's status line and a JSON body, padded to its size. */
  byte[] result(int k) {
    byte[] b = new byte[resultBytes];
    byte[] head =
        ("201 {\"id\":\"" + k + "\",\"status\":\"succeeded\",\"pad\":\"")
            .getBytes(StandardCharsets.US_ASCII);
    long x = mix(salt + 31L * k);
    for (int j = 0; j < b.length; j++) {
      if (j < head.length) {
        b[j] = head[j];
      } else {
        x = x * 6364136223846793005L + 1442695040888963407L;
        b[j] = HEX[(int) (x >>> 60)];
      }
    }
    if (b.length >= 2) {
      b[b.length - 2] = '"';
      b[b.length - 1] = '}';
    }
    return b;
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
