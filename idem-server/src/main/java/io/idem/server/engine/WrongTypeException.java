package io.idem.server.engine;

/**
 * A key holds a value of another type than the command works on. The engine throws it; the command
 * layer answers with Redis's WRONGTYPE error, whose text this carries.
 */
public final class WrongTypeException extends RuntimeException {

  /** Redis's reply, word for word: clients match on it. */
  public static final String REPLY =
      "WRONGTYPE Operation against a key holding the wrong kind of value";

  public WrongTypeException() {
    super(REPLY, null, false, false);
  }
}
