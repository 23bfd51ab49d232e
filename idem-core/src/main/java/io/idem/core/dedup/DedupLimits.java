package io.idem.core.dedup;

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
}
