package io.idem.core.seen;

import io.idem.core.Checks;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The HMAC-SHA256 keys a codec signs and verifies with. Values are written with the current key and
 * accepted under the current or any older key still listed, so a key rotates without logging every
 * user out of their seen-cache: add the new key as current, keep the old one until every cookie
 * signed with it has expired, then drop it.
 *
 * <p>The tag is the first {@code tagBytes} of the HMAC (RFC 2104 truncation, at least 10 bytes).
 * Verification compares with {@link MessageDigest#isEqual}, whose time does not depend on where the
 * bytes first differ.
 */
public final class SigningKeys {
  static final String ALGORITHM = "HmacSHA256";

  /** The default tag length: 96 bits, as in many truncated-HMAC protocols. */
  public static final int DEFAULT_TAG_BYTES = 12;

  private final List<byte[]> keys;
  private final int tagBytes;
  private final ThreadLocal<Mac[]> macs = ThreadLocal.withInitial(this::newMacs);

  private SigningKeys(List<byte[]> keys, int tagBytes) {
    this.keys = keys;
    this.tagBytes = tagBytes;
  }

  /**
   * Keys for signing with {@code current} and verifying with it or any of {@code older}.
   *
   * @param current at least 16 bytes (32 recommended: SHA-256's block is 64)
   */
  public static SigningKeys of(byte[] current, byte[]... older) {
    return withTag(DEFAULT_TAG_BYTES, current, older);
  }

  /** As {@link #of}, with a tag of {@code tagBytes} (10 to 32). */
  public static SigningKeys withTag(int tagBytes, byte[] current, byte[]... older) {
    Checks.checkArgument(
        tagBytes >= 10 && tagBytes <= 32, "tag bytes (%s) must be in [10, 32]", tagBytes);
    List<byte[]> all = new ArrayList<>();
    all.add(check(current));
    for (byte[] k : older) {
      all.add(check(k));
    }
    return new SigningKeys(List.copyOf(all), tagBytes);
  }

  private static byte[] check(byte[] key) {
    Checks.checkArgument(
        key.length >= 16, "a key of %s bytes is too short (16 at least)", key.length);
    return key.clone();
  }

  public int tagBytes() {
    return tagBytes;
  }

  /** The tag of {@code context} then {@code bytes[0, length)} under the current key. */
  byte[] sign(byte[] context, byte[] bytes, int length) {
    return Arrays.copyOf(mac(0, context, bytes, length), tagBytes);
  }

  /**
   * Whether {@code bytes[length, length + tagBytes)} is the tag of {@code context} then {@code
   * bytes[0, length)} under any key. Every key is tried, whichever matches, so the time says
   * nothing about which one did.
   */
  boolean verify(byte[] context, byte[] bytes, int length) {
    byte[] tag = Arrays.copyOfRange(bytes, length, length + tagBytes);
    boolean ok = false;
    for (int i = 0; i < keys.size(); i++) {
      ok |= MessageDigest.isEqual(Arrays.copyOf(mac(i, context, bytes, length), tagBytes), tag);
    }
    return ok;
  }

  private byte[] mac(int keyIndex, byte[] context, byte[] bytes, int length) {
    Mac mac = macs.get()[keyIndex];
    mac.update(context);
    mac.update(bytes, 0, length);
    return mac.doFinal(); // doFinal also resets it for the next value
  }

  /** A keyed Mac a key, a thread: making and keying one costs more than a cookie's HMAC. */
  private Mac[] newMacs() {
    Mac[] out = new Mac[keys.size()];
    try {
      for (int i = 0; i < out.length; i++) {
        out[i] = Mac.getInstance(ALGORITHM);
        out[i].init(new SecretKeySpec(keys.get(i), ALGORITHM));
      }
    } catch (GeneralSecurityException e) {
      // Every Java platform must provide HmacSHA256 (JCA's required algorithms).
      throw new IllegalStateException(e);
    }
    return out;
  }
}
