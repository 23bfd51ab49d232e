package io.idem.core.rate;

/**
 * The generic cell rate algorithm, as redis-cell's {@code CL.THROTTLE} documents and runs it. A
 * limiter keeps one number, the theoretical arrival time (TAT): when the requests let through so
 * far would have been done had they come evenly spaced at the rate. A request of {@code quantity}
 * moves it on by that many emission intervals (the period over the count); it is let through if the
 * new TAT is at most the burst's tolerance (emission interval × (max burst + 1)) ahead of now. A
 * pure function of its inputs, so a replayed log decides the same. Times are nanoseconds.
 */
public final class Gcra {

  /** The largest count, max burst and quantity taken: far past any real limit, and no overflow. */
  public static final long MAX_AMOUNT = 1L << 40;

  /** The longest period taken, in seconds: ten years. */
  public static final long MAX_PERIOD_SECONDS = 10L * 366 * 24 * 3600;

  /** The most a burst's room may be (period / count × (max burst + 1)): a hundred years. */
  public static final long MAX_TOLERANCE_NANOS = 100L * 366 * 24 * 3600 * 1_000_000_000L;

  private static final long SECOND = 1_000_000_000L;

  private Gcra() {}

  /**
   * {@code count} requests a {@code periodSeconds}, with bursts of {@code maxBurst} more. The
   * emission interval is the period over the count in nanoseconds, truncated, as redis-cell
   * computes it; it must not be zero.
   */
  public record Quota(long maxBurst, long count, long periodSeconds) {
    public Quota {
      if (maxBurst < 0 || maxBurst > MAX_AMOUNT) {
        throw new IllegalArgumentException("max burst must be from 0 to " + MAX_AMOUNT);
      }
      if (count < 1 || count > MAX_AMOUNT) {
        throw new IllegalArgumentException("count must be from 1 to " + MAX_AMOUNT);
      }
      if (periodSeconds < 1 || periodSeconds > MAX_PERIOD_SECONDS) {
        throw new IllegalArgumentException(
            "period must be from 1 to " + MAX_PERIOD_SECONDS + " seconds");
      }
      long emission = emission(count, periodSeconds);
      if (emission == 0) {
        throw new IllegalArgumentException("the period over the count is under a nanosecond");
      }
      if (saturatedMultiply(emission, maxBurst + 1) > MAX_TOLERANCE_NANOS) {
        throw new IllegalArgumentException(
            "the burst's room (period / count * (max burst + 1)) is over a hundred years");
      }
    }

    private static long emission(long count, long periodSeconds) {
      return (long) ((double) (periodSeconds * SECOND) / count);
    }

    /** Nanoseconds between two requests at the rate. */
    public long emissionNanos() {
      return emission(count, periodSeconds);
    }

    /** How far ahead of now the TAT may run: the burst's room. */
    public long toleranceNanos() {
      return emissionNanos() * (maxBurst + 1); // bounded by MAX_TOLERANCE_NANOS
    }

    /** Requests a burst may hold: max burst + 1. */
    public long limit() {
      return maxBurst + 1;
    }
  }

  /**
   * What a request got: whether it was limited, the limit, the requests left, the nanoseconds until
   * it could be let through ({@code -1 s} when it was, or never can be), the nanoseconds until the
   * limiter is back to full, and the TAT to keep ({@code -1}: keep what was there).
   */
  public record Decision(
      boolean limited,
      long limit,
      long remaining,
      long retryAfterNanos,
      long resetAfterNanos,
      long newTatNanos) {}

  /**
   * Decides a request of {@code quantity} (0 only looks) at {@code nowNanos}, given the TAT kept
   * ({@code -1} if none).
   */
  public static Decision decide(Quota q, long tatNanos, long nowNanos, long quantity) {
    if (quantity < 0 || quantity > MAX_AMOUNT) {
      throw new IllegalArgumentException("quantity must be from 0 to " + MAX_AMOUNT);
    }
    long emission = q.emissionNanos();
    long tolerance = q.toleranceNanos();
    long increment = saturatedMultiply(emission, quantity);
    long tat = tatNanos == -1 ? nowNanos : tatNanos;
    long newTat = saturatedAdd(Math.max(tat, nowNanos), increment);
    long allowAt = newTat - tolerance;
    long diff = nowNanos - allowAt;
    boolean limited = diff < 0;
    long ttl = limited ? tat - nowNanos : newTat - nowNanos;
    long retryAfter = limited && increment <= tolerance ? -diff : -SECOND;
    long next = tolerance - ttl;
    long remaining = 0;
    if (next > -emission) {
      // As redis-cell: whole microseconds over whole microseconds, in floating point, truncated.
      remaining = (long) ((double) (next / 1000) / (double) (emission / 1000));
    }
    return new Decision(limited, q.limit(), remaining, retryAfter, ttl, limited ? -1 : newTat);
  }

  /**
   * Nanoseconds as CL.THROTTLE's reply gives them: whole seconds, one more if a millisecond part is
   * left (so a fast caller does not retry too early); -1 s stays -1.
   */
  public static long replySeconds(long nanos) {
    long seconds = nanos / SECOND;
    return (nanos % SECOND) / 1_000_000 > 0 ? seconds + 1 : seconds;
  }

  private static long saturatedMultiply(long a, long b) {
    long high = Math.multiplyHigh(a, b);
    long low = a * b;
    return high == 0 && low >= 0 ? low : Long.MAX_VALUE;
  }

  private static long saturatedAdd(long a, long b) {
    long s = a + b;
    return ((a ^ s) & (b ^ s)) < 0 ? Long.MAX_VALUE : s;
  }
}
