package io.idem.core.dedup;

import org.jspecify.annotations.Nullable;

/**
 * The bounds of a dedup table, whoever holds it (the server's DEDUP.* commands, a Kafka Streams
 * store): what its parameters may be, and how long an id and an owner may be. A row or a record
 * past them is refused as corrupt, so they are part of the stored format too.
 */
public final class DedupLimits {

  public static final long MIN_WINDOW_MILLIS = 1000;
  public static final long MAX_WINDOW_MILLIS = 3650L * 86_400_000;
  public static final int MAX_SLICES = 1024;
  public static final int DEFAULT_SLICES = 8;
  public static final long DEFAULT_CAPACITY = 1_000_000;
  public static final long MAX_CAPACITY = 1L << 40;

  /** Three longs a slot in one Java array. */
  public static final long MAX_SLOTS = (Integer.MAX_VALUE - 8) / 3;

  public static final int MAX_ID_BYTES = 1024;
  public static final int MAX_OWNER_BYTES = 255;

  private DedupLimits() {}

  /** What may be wrong with a table's parameters; the message is the server's reply without ERR. */
  public enum Problem {
    WINDOW("window must be seconds or a duration such as 90s, 15m, 24h or 7d, from 1s to 3650d"),
    SLICES("SLICES must be from 1 to " + MAX_SLICES + ", with slices of at least one second"),
    CAPACITY("capacity must be from 1 to 2^40"),
    ERROR_RATE("error rate must be a number in (0, 1)"),
    SLOTS("slots must be from 1 to " + MAX_SLOTS),
    SLICE_TOO_LARGE(
        "a slice's filter would be larger than 16 GiB: use more SLICES or a smaller capacity");

    private final String message;

    Problem(String message) {
      this.message = message;
    }

    public String message() {
      return message;
    }
  }

  /**
   * What is wrong with a table's parameters (parsed, or read from disk), or null. A slice too large
   * for an array is checked too, so that a table that passes can always be made.
   */
  public static DedupLimits.@Nullable Problem check(DedupTable.Params p) {
    if (p.windowMillis() < MIN_WINDOW_MILLIS || p.windowMillis() > MAX_WINDOW_MILLIS) {
      return Problem.WINDOW;
    }
    if (p.slices() < 1 || p.slices() > MAX_SLICES || p.windowMillis() / p.slices() < 1000) {
      return Problem.SLICES;
    }
    if (p.capacity() < 1 || p.capacity() > MAX_CAPACITY) {
      return Problem.CAPACITY;
    }
    if (!(p.errorRate() > 0 && p.errorRate() < 1)) {
      return Problem.ERROR_RATE;
    }
    if (p.mode() == DedupTable.Mode.RECENT
        ? p.slots() < 1 || p.slots() > MAX_SLOTS
        : p.slots() != 0) {
      return Problem.SLOTS;
    }
    if (p.mode() != DedupTable.Mode.RECENT && SliceFilters.firstBytes(p) == Long.MAX_VALUE) {
      return Problem.SLICE_TOO_LARGE;
    }
    return null;
  }
}
