package io.idem.core.seen;

/**
 * Why a cookie value (or Guava filter bytes) was refused. Checked, so that a caller reading a
 * cookie decides what a bad one means, usually an empty seen-cache and a log line, rather than a
 * failed request.
 */
public final class SeenCacheException extends Exception {
  private static final long serialVersionUID = 1L;

  /** What was wrong, for callers that count or log refusals by kind. */
  public enum Reason {
    /** Longer than the codec accepts; refused before it is decoded. */
    TOO_LARGE,
    /** Not RFC 4648 base64url without padding (or, for Guava bytes, not base64 at all). */
    NOT_BASE64,
    /** Ends in the middle of the header, a code or the tag. */
    TRUNCATED,
    /** Another format: not a seen-cache (or not a Guava Bloom filter). */
    WRONG_FAMILY,
    /** A seen-cache format version this build does not read. */
    WRONG_VERSION,
    /** Made by a codec with another size or rate (its parameter check differs). */
    WRONG_SPEC,
    /** The HMAC tag matches none of the keys: forged, altered or signed with a retired key. */
    BAD_TAG,
    /** The bits break a rule of the format (a value out of range, bad padding, too many items). */
    MALFORMED
  }

  private final Reason reason;

  SeenCacheException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
