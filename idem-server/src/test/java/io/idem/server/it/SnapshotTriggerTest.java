package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write load starts a snapshot once the log passes snapshot-log-bytes, long before the interval.
 */
class SnapshotTriggerTest {

  @TempDir Path dir;

  private static final Pattern CHANGES = Pattern.compile("rdb_changes_since_last_save:(\\d+)");

  @Test
  void logBytes_startASnapshot_beforeTheInterval() throws Exception {
    int commands = 100;
    try (ServerHarness server =
            new ServerHarness(
                dir.resolve("data"), "snapshot-log-bytes", "1mb", "snapshot-interval", "86400");
        RespClient c = new RespClient(server.port())) {
      // 100 commands of 1,000 items log about 1.6 MB (16 bytes an item): past 1 MB a snapshot is
      // due, and the interval (a day) never makes one.
      for (int i = 0; i < commands; i++) {
        List<String> words = new ArrayList<>(List.of("BF.MADD", "bf"));
        for (int j = 0; j < 1000; j++) {
          words.add("item-" + i + "-" + j);
        }
        c.call(words.toArray(String[]::new));
      }
      long changes = Long.MAX_VALUE;
      for (int tries = 0; tries < 300 && changes >= commands; tries++) {
        Matcher m =
            CHANGES.matcher(
                new String((byte[]) c.call("INFO", "persistence"), StandardCharsets.UTF_8));
        assertThat(m.find()).isTrue();
        changes = Long.parseLong(m.group(1));
        if (changes >= commands) {
          Thread.sleep(100);
        }
      }
      // A snapshot round began after some of the commands: fewer changes follow it than were made.
      assertThat(changes).isLessThan(commands);
    }
  }

  /**
   * After a round that wrote a large value, the next waits until the log has grown by as many bytes
   * (snapshot-log-percentage 100): a value of ~10 MB changed by 1.6 MB of log is not rewritten, and
   * is once the log passes its size.
   */
  @Test
  void aLargeSnapshot_delaysTheNext_untilTheLogHasGrownAsMuch() throws Exception {
    try (ServerHarness server =
            new ServerHarness(
                dir.resolve("data"), "snapshot-log-bytes", "1mb", "snapshot-interval", "86400");
        RespClient c = new RespClient(server.port())) {
      c.call("BF.RESERVE", "bf", "0.01", "8000000"); // about 9.6 MB of bits
      int batch = 100; // about 1.6 MB of log, as above
      madds(c, 0, batch);
      assertThat(awaitChangesBelow(c, batch)).isLessThan(batch); // the first round, at 1 MB
      long afterFirst = changes(c);
      // Wait for the round to end (its truncation counts once durable) before counting on.
      madds(c, batch, 2 * batch);
      Thread.sleep(1000); // 50 checks of the trigger, every 20 ms
      assertThat(changes(c))
          .as("1.6 MB of log after a round of 9.6 MB starts no round")
          .isGreaterThanOrEqualTo(afterFirst + batch);
      madds(c, 2 * batch, 9 * batch); // the log passes the filter's bytes
      assertThat(awaitChangesBelow(c, 7 * batch)).isLessThan(7 * batch);
    }
  }

  private static void madds(RespClient c, int from, int to) throws Exception {
    for (int i = from; i < to; i++) {
      List<String> words = new ArrayList<>(List.of("BF.MADD", "bf"));
      for (int j = 0; j < 1000; j++) {
        words.add("item-" + i + "-" + j);
      }
      c.call(words.toArray(String[]::new));
    }
  }

  private static long changes(RespClient c) throws Exception {
    Matcher m =
        CHANGES.matcher(new String((byte[]) c.call("INFO", "persistence"), StandardCharsets.UTF_8));
    assertThat(m.find()).isTrue();
    return Long.parseLong(m.group(1));
  }

  /** Polls for up to 30 s until fewer than {@code n} changes follow the last round. */
  private static long awaitChangesBelow(RespClient c, long n) throws Exception {
    long changes = changes(c);
    for (int tries = 0; tries < 300 && changes >= n; tries++) {
      Thread.sleep(100);
      changes = changes(c);
    }
    return changes;
  }
}
