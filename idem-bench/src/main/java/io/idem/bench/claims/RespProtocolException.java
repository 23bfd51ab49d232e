package io.idem.bench.claims;

import java.io.IOException;

/** The server sent bytes that are not a RESP2 reply, or a reply beyond the reader's limits. */
public final class RespProtocolException extends IOException {
  private static final long serialVersionUID = 1L;

  public RespProtocolException(String message) {
    super(message);
  }
}
