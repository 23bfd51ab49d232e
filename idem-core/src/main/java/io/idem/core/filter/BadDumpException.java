package io.idem.core.filter;

/**
 * Why a dump from RedisBloom (a SCANDUMP header or chunk) is refused: RedisBloom's reply text for
 * it, and what exactly was wrong.
 */
public final class BadDumpException extends Exception {
  private static final long serialVersionUID = 1L;
  private final String reply;

  BadDumpException(String reply, String detail) {
    super(detail);
    this.reply = reply;
  }

  /** RedisBloom's error text for it, such as {@code received bad data}. */
  public String reply() {
    return reply;
  }
}
