package io.idem.server.engine;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A clock that never goes back: when its source steps back (an NTP correction), it holds at its
 * latest reading until the source passes it again. Changes are logged with the time they ran at,
 * and a replay reproduces them only if a key's time never goes back: a queue does not journal a
 * job's move from delayed to ready, which a later operation stamped earlier would otherwise see
 * live but not in the replay.
 */
public final class MonotonicClock implements LongSupplier {

  private final LongSupplier source;
  private final AtomicLong latest = new AtomicLong(Long.MIN_VALUE);

  public MonotonicClock(LongSupplier source) {
    this.source = source;
  }

  @Override
  public long getAsLong() {
    long t = source.getAsLong();
    long l = latest.get();
    // Within a millisecond the read alone; a new millisecond updates once.
    return t > l ? latest.accumulateAndGet(t, Math::max) : l;
  }
}
