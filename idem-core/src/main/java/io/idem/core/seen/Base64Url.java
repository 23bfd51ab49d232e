package io.idem.core.seen;

import io.idem.core.seen.SeenCacheException.Reason;
import java.util.Base64;

/**
 * Strict base64 decoding for cookie values: RFC 4648 base64url without padding, the unused bits of
 * the last character zero (so one value has one spelling, and a tag covers exactly one string).
 */
final class Base64Url {
  private Base64Url() {}

  static byte[] decode(String value) throws SeenCacheException {
    return decode(value, false);
  }

  /**
   * Decodes {@code value}; with {@code standardToo}, the standard alphabet and padding are also
   * accepted (Guava filters were stored with either).
   */
  static byte[] decode(String value, boolean standardToo) throws SeenCacheException {
    int length = value.length();
    if (standardToo) {
      while (length > 0 && value.charAt(length - 1) == '=') {
        length--;
      }
    }
    int last = 0;
    for (int i = 0; i < length; i++) {
      char c = value.charAt(i);
      int v = sextet(c, standardToo);
      if (v < 0) {
        throw new SeenCacheException(
            Reason.NOT_BASE64,
            "not base64url: character "
                + (c < 0x20 || c > 0x7e ? "U+" + Integer.toHexString(c) : "'" + c + "'")
                + " at "
                + i);
      }
      last = v;
    }
    int tail = length % 4;
    if (tail == 1) {
      throw new SeenCacheException(Reason.NOT_BASE64, "not base64url: " + length + " characters");
    }
    if ((tail == 2 && (last & 0x0f) != 0) || (tail == 3 && (last & 0x03) != 0)) {
      throw new SeenCacheException(
          Reason.NOT_BASE64, "not base64url: last character not canonical");
    }
    if (!standardToo) {
      return Base64.getUrlDecoder().decode(value); // checked above: the alphabet, no padding
    }
    String body = value.substring(0, length).replace('+', '-').replace('/', '_');
    return Base64.getUrlDecoder().decode(body);
  }

  private static int sextet(char c, boolean standardToo) {
    if (c >= 'A' && c <= 'Z') {
      return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
      return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
      return c - '0' + 52;
    }
    if (c == '-' || (standardToo && c == '+')) {
      return 62;
    }
    if (c == '_' || (standardToo && c == '/')) {
      return 63;
    }
    return -1;
  }
}
