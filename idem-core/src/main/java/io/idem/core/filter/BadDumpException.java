package io.idem.core.filter;

/**
 * Why a filter's dump (a SCANDUMP header or chunk, of either layout) or an iterator into it is
 * refused: RedisBloom's reply text for it, and what exactly was wrong. Which replies show the
 * detail is the command family's choice (RedisBloom's own texts come alone).
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
