package io.idem.core.window;

import org.jspecify.annotations.Nullable;

/**
 * One resolution of a windowed counter: events are counted in buckets of {@code bucketMillis},
 * aligned to the Unix epoch, and a bucket is kept while any part of it lies within {@code
 * retentionMillis} of now. So a window of up to the retention, ending now, is always whole.
 */
public record Resolution(long bucketMillis, long retentionMillis) {

  public static final long MIN_BUCKET_MILLIS = 1000;
  public static final long MAX_RETENTION_MILLIS = 3650L * 86_400_000;

  /** The most buckets one resolution keeps: what one window's sum may read. */
  public static final long MAX_BUCKETS = 1 << 17;

  public Resolution {
    String bad = problem(bucketMillis, retentionMillis);
    if (bad != null) {
      throw new IllegalArgumentException(bad);
    }
  }

  /** What is wrong with these values, or null. */
  public static @Nullable String problem(long bucketMillis, long retentionMillis) {
    if (bucketMillis < MIN_BUCKET_MILLIS || bucketMillis % 1000 != 0) {
      return "a bucket must be a whole number of seconds, at least 1s";
    }
    if (retentionMillis < bucketMillis || retentionMillis > MAX_RETENTION_MILLIS) {
      return "a retention must be from one bucket to 3650d";
    }
    if (retentionMillis / bucketMillis > MAX_BUCKETS) {
      return "a resolution keeps at most " + MAX_BUCKETS + " buckets (retention / bucket)";
    }
    return null;
  }

  /** The bucket that holds {@code time}. */
  public long bucket(long time) {
    return Math.floorDiv(time, bucketMillis);
  }

  /** The first bucket still kept at {@code now}: the one whose end is past now - retention. */
  public long firstKept(long now) {
    return Math.floorDiv(now - retentionMillis, bucketMillis);
  }
}
