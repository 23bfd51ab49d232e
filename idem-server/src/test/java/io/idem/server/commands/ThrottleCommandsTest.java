package io.idem.server.commands;

import static io.idem.server.commands.Harness.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.commands.CuckooCodecTest.Logged;
import io.idem.server.commands.CuckooCodecTest.Recording;
import io.idem.server.commands.throttle.ThrottleCodec;
import java.io.IOException;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** CL.THROTTLE through the dispatcher, at a clock the test moves, and its log's replay. */
class ThrottleCommandsTest {

  private final AtomicLong clock = new AtomicLong(1_790_000_000_000L);
  private final Harness h = new Harness(clock::get);
  private final long start = clock.get();

  private String throttle(String... tail) {
    String[] words = new String[tail.length + 1];
    words[0] = "CL.THROTTLE";
    System.arraycopy(tail, 0, words, 1, tail.length);
    return h.show(words);
  }

  private static String reply(int limited, int limit, int remaining, int retry, int reset) {
    return String.format(
        "[(integer) %d, (integer) %d, (integer) %d, (integer) %d, (integer) %d]",
        limited, limit, remaining, retry, reset);
  }

  /**
   * redis-cell's README example and its documented table (five a second at most: max burst 4, one a
   * second), through the command: each reply worked out from its algorithm, the seconds rounded up
   * as it rounds them.
   */
  @Test
  void theDocumentedTable_throughTheCommand() {
    String[] k = {"user123", "4", "1", "1"};
    assertThat(throttle(k[0], k[1], k[2], k[3], "6")).isEqualTo(reply(1, 5, 5, -1, 0));
    assertThat(h.show("EXISTS", "user123")).isEqualTo("(integer) 0"); // limited: nothing kept
    for (int i = 1; i <= 5; i++) {
      assertThat(throttle(k)).isEqualTo(reply(0, 5, 5 - i, -1, i));
    }
    assertThat(throttle(k)).isEqualTo(reply(1, 5, 0, 1, 5));
    clock.set(start + 3000);
    assertThat(throttle(k)).isEqualTo(reply(0, 5, 2, -1, 3));
    clock.set(start + 3100);
    assertThat(throttle(k)).isEqualTo(reply(0, 5, 1, -1, 4)); // 3.9 s, rounded up
    clock.set(start + 4000);
    assertThat(throttle(k)).isEqualTo(reply(0, 5, 1, -1, 4));
    clock.set(start + 8000);
    assertThat(throttle(k)).isEqualTo(reply(0, 5, 4, -1, 1));
    clock.set(start + 9500);
    assertThat(throttle(k)).isEqualTo(reply(0, 5, 4, -1, 1));
    assertThat(throttle(k[0], k[1], k[2], k[3], "0")).isEqualTo(reply(0, 5, 4, -1, 1));
    assertThat(throttle(k[0], k[1], k[2], k[3], "2")).isEqualTo(reply(0, 5, 2, -1, 3));
    assertThat(throttle(k[0], k[1], k[2], k[3], "5")).isEqualTo(reply(1, 5, 2, 3, 3));
    assertThat(h.show("TYPE", "user123")).isEqualTo("string");
  }

  /** The key lives until its limiter is full again, to the millisecond, then goes. */
  @Test
  void theKeyExpiresWhenTheLimiterIsFullAgain() {
    // 30 a minute: one every 2 s; bursts of 16.
    assertThat(throttle("api:7", "15", "30", "60", "3")).isEqualTo(reply(0, 16, 13, -1, 6));
    assertThat(h.show("PTTL", "api:7")).isEqualTo("(integer) 6000");
    clock.set(start + 5999);
    assertThat(h.show("EXISTS", "api:7")).isEqualTo("(integer) 1");
    clock.set(start + 6000);
    assertThat(h.show("EXISTS", "api:7")).isEqualTo("(integer) 0");
    assertThat(throttle("api:7", "15", "30", "60")).isEqualTo(reply(0, 16, 15, -1, 2));
  }

  @Test
  void badArguments_areRefused_andChangeNothing() {
    assertThat(throttle("k", "x", "1", "1"))
        .isEqualTo("(error) ERR value is not an integer or out of range");
    assertThat(throttle("k", "-1", "1", "1")).contains("max burst must be from 0");
    assertThat(throttle("k", "1", "0", "1")).contains("count must be from 1");
    assertThat(throttle("k", "1", "1", "0")).contains("period must be from 1");
    assertThat(throttle("k", "1", "1", "1", "-1")).contains("quantity must be from 0");
    assertThat(throttle("k", "1", "1", "1", "1", "1"))
        .isEqualTo("(error) ERR wrong number of arguments for 'cl.throttle' command");
    assertThat(throttle("k", "1", "1")).contains("wrong number of arguments");
    assertThat(h.show("DBSIZE")).isEqualTo("(integer) 0");
    h.call("PFADD", "hll", "a");
    assertThat(throttle("hll", "1", "1", "1")).startsWith("(error) WRONGTYPE");
  }

  /** A random hour of limiters under a moving clock: the log's replay is the live limiter. */
  @Test
  void replayingTheLog_givesTheLiveLimiter() throws IOException {
    Recording journal = new Recording();
    h.engine.attach(journal);
    SplittableRandom rnd = new SplittableRandom(46);
    int limited = 0;
    for (int step = 0; step < 2000; step++) {
      clock.addAndGet(rnd.nextInt(200)); // about twice what the limiter lets through
      String r = throttle("lim", "9", "5", "1", Integer.toString(rnd.nextInt(3)));
      limited += r.startsWith("[(integer) 1") ? 1 : 0;
      if (h.engine.read(bytes("lim"), e -> e) != null) {
        Logged logged = journal.of(h, "lim");
        long live = h.engine.read(bytes("lim"), e -> e.valueAs(ThrottleCodec.INSTANCE)).tatNanos();
        assertThat(logged.replay(ThrottleCodec.INSTANCE).tatNanos()).isEqualTo(live);
      }
    }
    assertThat(limited).as("some requests were limited").isBetween(100, 1900);
  }
}
