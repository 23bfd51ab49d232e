package io.idem.core.dedup;

/**
 * A claim needs memory it may not take: the caller's budget said no, or a slice's filter cannot
 * grow. The claims before it in the same call are made and recorded.
 */
public final class TableFullException extends RuntimeException {

  /** Why the claim could not be made. */
  public enum Reason {
    /** The budget given to the claim refused the bytes a new slice or layer needs. */
    MEMORY,
    /** A slice's cuckoo filter is full and cannot add a table. */
    SLICE
  }

  private final Reason reason;

  public TableFullException(Reason reason) {
    super(reason == Reason.MEMORY ? "no memory for the dedup table" : "a slice's filter is full");
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
