package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * COUNTER.ALLOW at a clock the test moves, against a table worked out by hand: a limit of 3 in a
 * sliding 5-minute window, read at the default table's minute buckets.
 */
class CounterAllowTest {

  private static final long TEN = 36_000_000; // 10:00 on the first day, in ms

  private final AtomicLong clock = new AtomicLong(TEN);
  private final Harness h = new Harness(clock::get);

  private String allow(String... extra) {
    String[] words = new String[6 + extra.length];
    System.arraycopy(new String[] {"COUNTER.ALLOW", "k", "*", "u", "3", "5m"}, 0, words, 0, 6);
    System.arraycopy(extra, 0, words, 6, extra.length);
    return h.show(words);
  }

  private static String reply(int allowed, int remaining, long reset) {
    return "[(integer) " + allowed + ", (integer) " + remaining + ", (integer) " + reset + "]";
  }

  @Test
  void theWindowSlides_andResetSaysWhenItLetsMoreThrough() {
    // 10:00: the first; it leaves the window at 10:05.
    assertThat(allow()).isEqualTo(reply(1, 2, 300_000));
    clock.set(TEN + 60_000); // 10:01: the oldest counted is still 10:00's
    assertThat(allow()).isEqualTo(reply(1, 1, 240_000));
    clock.set(TEN + 90_000); // 10:01:30
    assertThat(allow()).isEqualTo(reply(1, 0, 210_000));
    // Full: refused until 10:00's one leaves at 10:05; a cost of 3 until 10:01's two leave too.
    assertThat(allow()).isEqualTo(reply(0, 0, 210_000));
    assertThat(allow("COST", "3")).isEqualTo(reply(0, 0, 270_000));
    assertThat(allow("COST", "4")).isEqualTo(reply(0, 0, -1)); // never fits
    // Refusals counted nothing: the same table answers COUNTER.QUERY.
    assertThat(h.show("COUNTER.QUERY", "k", "*", "5m", "NAMES", "u")).isEqualTo("[[(integer) 3]]");
    clock.set(TEN + 300_000); // 10:05: 10:00's one left the window
    assertThat(allow()).isEqualTo(reply(1, 0, 60_000)); // 10:01's two leave at 10:06
    assertThat(h.show("COUNTER.QUERY", "k", "*", "5m", "NAMES", "u")).isEqualTo("[[(integer) 3]]");
    // Another name, and an explicit time: counted apart.
    assertThat(h.show("COUNTER.ALLOW", "k", Long.toString(TEN + 300_000), "v", "1", "1h"))
        .isEqualTo(reply(1, 0, 3_600_000));
  }

  @Test
  void badArguments_areRefused_andChangeNothing() {
    assertThat(h.show("COUNTER.ALLOW", "k", "*", "u", "-1", "5m")).contains("non-negative");
    assertThat(h.show("COUNTER.ALLOW", "k", "*", "u", "3", "5m", "COST", "0")).contains("COST");
    assertThat(h.show("COUNTER.ALLOW", "k", "*", "u", "3", "90s")).contains("no resolution");
    assertThat(h.show("COUNTER.ALLOW", "k", "*", "u", "3", "5m", "COST")).contains("syntax");
    assertThat(h.show("EXISTS", "k")).isEqualTo("(integer) 0");
    assertThat(h.show("COUNTER.ALLOW", "k", "*", "u", "0", "5m")).isEqualTo(reply(0, 0, -1));
    assertThat(h.show("EXISTS", "k")).isEqualTo("(integer) 0");
  }
}
