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
}
