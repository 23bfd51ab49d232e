package io.idem.core.rate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class GcraTest {

  private static final long S = 1_000_000_000L;
  private static final long MS = 1_000_000L;
  private static final long START = 1_790_000_000_000L * MS;

  /** One request of the table: its time after the start, quantity, and what it must get. */
  private record Case(long afterMs, long quantity, long remaining, long resetMs, long retryMs) {}

  /**
   * Five a second at most (max burst 4, one a second), requests at the times below: the figures
   * follow from redis-cell's documented algorithm (its README, and its own table of these cases). A
   * retry of -1000 ms is "not limited" (redis-cell's -1 s).
   */
  @Test
  void theDocumentedTable() {
    Gcra.Quota q = new Gcra.Quota(4, 1, 1);
    Case[] cases = {
      new Case(0, 6, 5, 0, -1000), // larger than the burst: limited, never retryable
      new Case(0, 1, 4, 1000, -1000),
      new Case(0, 1, 3, 2000, -1000),
      new Case(0, 1, 2, 3000, -1000),
      new Case(0, 1, 1, 4000, -1000),
      new Case(0, 1, 0, 5000, -1000),
      new Case(0, 1, 0, 5000, 1000), // limited
      new Case(3000, 1, 2, 3000, -1000),
      new Case(3100, 1, 1, 3900, -1000),
      new Case(4000, 1, 1, 4000, -1000),
      new Case(8000, 1, 4, 1000, -1000),
      new Case(9500, 1, 4, 1000, -1000),
      new Case(9500, 0, 4, 1000, -1000), // quantity 0 only looks
      new Case(9500, 2, 2, 3000, -1000),
      new Case(9500, 5, 2, 3000, 3000), // limited
    };
    long tat = -1;
    for (int i = 0; i < cases.length; i++) {
      Case c = cases[i];
      Gcra.Decision d = Gcra.decide(q, tat, START + c.afterMs() * MS, c.quantity());
      boolean limited = c.retryMs() >= 0 || i == 0;
      assertThat(d.limited()).as("case %d limited", i).isEqualTo(limited);
      assertThat(d.limit()).isEqualTo(5);
      assertThat(d.remaining()).as("case %d remaining", i).isEqualTo(c.remaining());
      assertThat(d.resetAfterNanos()).as("case %d reset", i).isEqualTo(c.resetMs() * MS);
      assertThat(d.retryAfterNanos()).as("case %d retry", i).isEqualTo(c.retryMs() * MS);
      if (!d.limited()) {
        tat = d.newTatNanos();
      } else {
        assertThat(d.newTatNanos()).isEqualTo(-1);
      }
    }
  }

  @Test
  void replySecondsRoundUpAMillisecondPart() {
    assertThat(Gcra.replySeconds(-S)).isEqualTo(-1);
    assertThat(Gcra.replySeconds(0)).isZero();
    assertThat(Gcra.replySeconds(S)).isEqualTo(1);
    assertThat(Gcra.replySeconds(S + 500 * MS)).isEqualTo(2);
    assertThat(Gcra.replySeconds(S + MS)).isEqualTo(2);
    assertThat(Gcra.replySeconds(S + 999_999)).as("under a millisecond").isEqualTo(1);
    assertThat(Gcra.replySeconds(-300 * MS)).isZero();
  }

  /**
   * Over any window, a limiter lets through at most the burst plus what the rate earns in it: at
   * most limit + window / emission requests, whatever the requests' times and sizes (fixed seeds).
   */
  @Test
  void neverLetsThroughMoreThanTheBurstAndTheRate() {
    for (long seed = 1; seed <= 20; seed++) {
      SplittableRandom r = new SplittableRandom(seed);
      Gcra.Quota q = new Gcra.Quota(r.nextInt(20), 1 + r.nextInt(100), 1 + r.nextInt(60));
      long now = START;
      long tat = -1;
      long[] times = new long[4000];
      long[] amounts = new long[4000];
      int n = 0;
      for (int i = 0; i < 4000; i++) {
        now += r.nextLong(q.emissionNanos() / 2 + 1);
        long quantity = r.nextInt(4) == 0 ? 0 : 1 + r.nextInt(3);
        Gcra.Decision d = Gcra.decide(q, tat, now, quantity);
        if (!d.limited()) {
          tat = d.newTatNanos();
          times[n] = now;
          amounts[n++] = quantity;
          assertThat(d.remaining()).isBetween(0L, q.limit());
        } else {
          assertThat(d.retryAfterNanos() == -S || d.retryAfterNanos() > 0).isTrue();
        }
      }
      assertThat(n).as("seed %d let some through", seed).isGreaterThan(10);
      for (int a = 0; a < n; a++) {
        long sum = 0;
        for (int b = a; b < n; b++) {
          sum += amounts[b];
          long window = times[b] - times[a];
          assertThat(sum)
              .as("seed %d: let through between %d and %d", seed, a, b)
              .isLessThanOrEqualTo(q.limit() + window / q.emissionNanos());
        }
      }
    }
  }

  @Test
  void aLimitedRequestCanGoAfterItsRetryTime() {
    Gcra.Quota q = new Gcra.Quota(2, 10, 60); // 10 a minute, bursts of 3
    long tat = -1;
    for (int i = 0; i < 3; i++) {
      tat = Gcra.decide(q, tat, START, 1).newTatNanos();
    }
    Gcra.Decision limited = Gcra.decide(q, tat, START, 1);
    assertThat(limited.limited()).isTrue();
    assertThat(limited.retryAfterNanos()).isEqualTo(6 * S);
    assertThat(Gcra.decide(q, tat, START + limited.retryAfterNanos() - 1, 1).limited()).isTrue();
    assertThat(Gcra.decide(q, tat, START + limited.retryAfterNanos(), 1).limited()).isFalse();
  }

  @Test
  void badQuotasAreRefused() {
    assertThatThrownBy(() -> new Gcra.Quota(-1, 1, 1)).hasMessageContaining("max burst");
    assertThatThrownBy(() -> new Gcra.Quota(1, 0, 1)).hasMessageContaining("count");
    assertThatThrownBy(() -> new Gcra.Quota(1, 1, 0)).hasMessageContaining("period");
    assertThatThrownBy(() -> new Gcra.Quota(1, 1L << 40, 1)).hasMessageContaining("nanosecond");
    assertThatThrownBy(() -> new Gcra.Quota(1L << 40, 1, Gcra.MAX_PERIOD_SECONDS))
        .hasMessageContaining("hundred years");
    Gcra.Quota q = new Gcra.Quota(1, 1, 1);
    assertThatThrownBy(() -> Gcra.decide(q, -1, START, -1)).hasMessageContaining("quantity");
    // The largest quantity is limited, not an overflow.
    assertThat(Gcra.decide(q, -1, START, Gcra.MAX_AMOUNT).limited()).isTrue();
  }
}
