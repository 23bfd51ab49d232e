package io.idem.client;

import io.idem.client.IdemClient.Keyword;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A rate limiter (CL.THROTTLE, docs/commands/throttle.md): {@code count} requests every {@code
 * period}, with bursts of {@code maxBurst} more, by the generic cell rate algorithm, as redis-cell.
 * The quota travels with each call, so two limiters of one key must agree on it.
 */
public final class RateLimiter {

  private static final Keyword THROTTLE = Keyword.of("CL.THROTTLE");

  /**
   * What a request got: let through or not; the limit (max burst + 1); the requests left; how long
   * until it could be let through (null when it was, or never can be: more than the limit); how
   * long until the limiter is full again. The durations are whole seconds, rounded up.
   */
  public record Decision(
      boolean allowed, long limit, long remaining, Duration retryAfter, Duration resetAfter) {}

  private final IdemClient client;
  private final byte[] key;
  private final long maxBurst;
  private final long count;
  private final long periodSeconds;

  RateLimiter(IdemClient client, String key, long maxBurst, long count, Duration period) {
    if (period.toSeconds() < 1 || period.toNanosPart() != 0) {
      throw new IllegalArgumentException("a period is a whole number of seconds, at least one");
    }
    this.client = client;
    this.key = key.getBytes(StandardCharsets.UTF_8);
    this.maxBurst = maxBurst;
    this.count = count;
    this.periodSeconds = period.toSeconds();
  }

  /** One request. */
  public Decision acquire() {
    return acquire(1);
  }

  /** A request of {@code quantity} units (0 only looks). */
  public Decision acquire(long quantity) {
    return Queue.join(acquireAsync(quantity));
  }

  public CompletionStage<Decision> acquireAsync(long quantity) {
    return client
        .array(
            THROTTLE,
            IdemClient.args().addKey(key).add(maxBurst).add(count).add(periodSeconds).add(quantity))
        .thenApply(RateLimiter::decision);
  }

  private static Decision decision(List<Object> r) {
    long retry = (Long) r.get(3);
    return new Decision(
        (Long) r.get(0) == 0,
        (Long) r.get(1),
        (Long) r.get(2),
        retry < 0 ? null : Duration.ofSeconds(retry),
        Duration.ofSeconds(Math.max(0, (Long) r.get(4))));
  }
}
