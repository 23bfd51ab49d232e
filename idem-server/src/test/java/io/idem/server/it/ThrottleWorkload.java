package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import java.util.Random;

/**
 * The crash test's rate limiters: CL.THROTTLE requests pipelined against a limiter of 500,000 that
 * earns one unit back every 52 minutes, so that over the test what it has let through is exactly
 * its limit less what remains. Checks after each restart: every request acknowledged as let through
 * still counts (none lost: a lost one would let a caller past its limit after a crash), and no more
 * than were sent do. A limiter used up is left for a new key.
 */
final class ThrottleWorkload extends CrashWorkload {

  private static final String[] QUOTA = {"499999", "10000", "31536000"}; // a year's 10,000
  private static final long LIMIT = 500_000;

  private int key;

  /** Requests let through at the key, as acknowledged. */
  private long confirmed;

  /** Requests sent to the key whose replies were never read: let through or not, unknown. */
  private long unsure;

  ThrottleWorkload() {
    super("CL.THROTTLE limiters");
  }

  private String key() {
    return "limiter-" + key;
  }

  @Override
  void create(RespClient c) {}

  @Override
  void batch(RespClient c, Random random) throws IOException {
    int n = 1 + random.nextInt(200);
    long[] quantities = new long[n];
    for (int i = 0; i < n; i++) {
      quantities[i] = 1 + random.nextInt(3);
      unsure += quantities[i];
      c.send("CL.THROTTLE", key(), QUOTA[0], QUOTA[1], QUOTA[2], Long.toString(quantities[i]));
    }
    c.flush();
    boolean full = false;
    for (int i = 0; i < n; i++) {
      List<?> r = list(c.read(), "CL.THROTTLE " + key());
      unsure -= quantities[i];
      if ((Long) r.get(0) == 0) {
        confirmed += quantities[i];
      } else {
        full = true;
      }
      acknowledged++;
    }
    if (full) {
      key++;
      confirmed = 0;
    }
  }

  @Override
  void verify(RespClient c, Random random) throws IOException {
    List<?> r = list(c.call("CL.THROTTLE", key(), QUOTA[0], QUOTA[1], QUOTA[2], "0"), "a look");
    assertThat(r.get(1)).isEqualTo(LIMIT);
    long used = LIMIT - (Long) r.get(2);
    assertThat(used)
        .as(
            "%s: let through after the restart, against %d acknowledged and %d unsure",
            key(), confirmed, unsure)
        .isBetween(confirmed, confirmed + unsure);
    confirmed = used;
    unsure = 0;
  }
}
