package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.cluster.KafkaBroker;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster node killed with SIGKILL while it applies a record, at the point where the record's
 * changes are made but not yet numbered in the journal, with a snapshot round asked for meanwhile:
 * after a restart the record counts once.
 */
class ClusterApplyKillTest {

  @TempDir Path dir;

  private static int freePort() throws IOException {
    return Ports.free();
  }

  private static ServerProcess node(Path data, int port, String bootstrap, List<String> jvm)
      throws IOException {
    return ServerProcess.start(data, jvm, LoneNode.settings(port, bootstrap, "applykill", 2));
  }

  /**
   * Finding 1 of the review: the handler's write unlocked the key before the record's changes got
   * their numbers, so a snapshot round could image the queue with the record's job in it, stamped
   * before the record; the offset was not stored yet, so after the kill the record was applied
   * again on top of the image: two jobs for one add.
   */
  @Test
  void killedBetweenARecordsChangesAndItsOffset_whileASnapshotRuns_appliesTheRecordOnce()
      throws Exception {
    try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"))) {
      Path data = dir.resolve("node");
      int port = freePort();
      try (ServerProcess server =
          node(
              data,
              port,
              broker.bootstrapServers(),
              List.of("-Didem.fault=APPLY_BEFORE_OFFSET:pause:2"))) {
        try (RespClient writer = new RespClient(server.port());
            RespClient admin = new RespClient(server.port())) {
          // The first record makes the queue (a value the next round images); the second pauses.
          assertThat(render(writer.call("QUEUE.ADD", "q", "first"))).startsWith("[new");
          writer.send("QUEUE.ADD", "q", "second");
          writer.flush();
          assertThat(server.awaitLine("fault: paused at APPLY_BEFORE_OFFSET")).isTrue();
          assertThat(admin.call("BGSAVE")).isEqualTo("Background saving started");
          // The round may image the queue only once the record's changes have their numbers: it
          // waits for the paused record's keys. Give a round that did not wait time to finish.
          long deadline = System.nanoTime() + 3_000_000_000L;
          while (System.nanoTime() < deadline
              && render(admin.call("INFO", "persistence")).contains("rdb_bgsave_in_progress:1")) {
            Thread.sleep(50);
          }
        }
        server.kill();
      }
      try (ServerProcess server = node(data, port, broker.bootstrapServers(), List.of());
          RespClient c = new RespClient(server.port())) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        Object info = null;
        while (System.nanoTime() < deadline) {
          info = c.call("QUEUE.INFO", "q");
          if (info instanceof List<?> l && Long.valueOf(2).compareTo((Long) l.get(1)) <= 0) {
            break;
          }
          Thread.sleep(50); // MOVED or no such queue while it catches up
        }
        assertThat(render(info)).startsWith("[ready, 2, delayed, 0, leased, 0, dead, 0,");
      }
    }
  }

  private static String render(Object reply) {
    return RespClient.text(reply);
  }
}
