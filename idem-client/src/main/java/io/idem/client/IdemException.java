package io.idem.client;

/** A call failed: the server's error reply (its text as the message), or the connection's. */
public class IdemException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  IdemException(String message) {
    super(message);
  }

  IdemException(String message, Throwable cause) {
    super(message, cause);
  }

  static IdemException of(Throwable cause) {
    return cause instanceof IdemException e ? e : new IdemException(cause.getMessage(), cause);
  }
}
