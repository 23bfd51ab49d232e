package io.idem.core.dedup;

/** An exact table's row is not a run of claim chunks: the store holding it is corrupt. */
public final class CorruptRowsException extends RuntimeException {

  public CorruptRowsException() {
    super("the dedup table's rows in the store are corrupt");
  }
}
