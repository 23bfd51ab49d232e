package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.store.StoreFaults.Step;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A server process killed with SIGKILL at a fixed step of a snapshot or of a group commit, or ended
 * by a real OutOfMemoryError there, restarts with every acknowledged write.
 */
class FaultStepKillTest {

  @TempDir Path dir;

  /** Adds items to a Bloom filter, a cuckoo filter and a count-min sketch; returns them. */
  private static List<String> write(RespClient c, String prefix, int n) throws Exception {
    List<String> items = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String item = prefix + i;
      c.send("BF.ADD", "bf", item);
      c.send("CF.ADD", "cf", item);
      c.send("CMS.INCRBY", "cms", "k", "1");
      items.add(item);
    }
    c.flush();
    for (int i = 0; i < n; i++) {
      assertThat(c.read()).isIn(0L, 1L);
      assertThat(c.read()).isEqualTo(1L);
      assertThat(c.read()).isInstanceOf(List.class);
    }
    return items;
  }

  private static void verify(int port, List<String> items, long count) throws Exception {
    try (RespClient c = new RespClient(port)) {
      for (String item : items) {
        assertThat(c.call("BF.EXISTS", "bf", item)).as("bf %s", item).isEqualTo(1L);
        assertThat(c.call("CF.EXISTS", "cf", item)).as("cf %s", item).isEqualTo(1L);
      }
      assertThat(c.call("CMS.QUERY", "cms", "k")).isEqualTo(List.of(count));
    }
  }

  /** Writes in a server process with no fault, kills it, and returns the items acknowledged. */
  private List<String> writtenThenKilled(Path data) throws Exception {
    try (ServerProcess server = ServerProcess.start(data)) {
      List<String> items = setUpAndWrite(server);
      server.kill();
      return items;
    }
  }

  private List<String> setUpAndWrite(ServerProcess server) throws Exception {
    try (RespClient c = new RespClient(server.port())) {
      assertThat(c.call("BF.RESERVE", "bf", "0.001", "100000")).isEqualTo("OK");
      assertThat(c.call("CMS.INITBYDIM", "cms", "1000", "5")).isEqualTo("OK");
      List<String> items = write(c, "a", 500);
      assertThat(c.call("SAVE")).isEqualTo("OK"); // a snapshot before: the next has a past
      items.addAll(write(c, "b", 500));
      return items;
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = Step.class,
      names = {"SNAPSHOT_IMAGE", "SNAPSHOT_CHUNKS", "SNAPSHOT_POINTERS", "SNAPSHOT_TRUNCATED"})
  void killedAtASnapshotStep_restartsWithEveryAcknowledgedWrite(Step step) throws Exception {
    Path data = dir.resolve("d");
    List<String> items = writtenThenKilled(data);
    try (ServerProcess server =
        ServerProcess.start(data, List.of("-Didem.fault=" + step + ":pause"))) {
      try (RespClient c = new RespClient(server.port())) {
        items.addAll(write(c, "c", 200));
        assertThat(c.call("BGSAVE")).isEqualTo("Background saving started");
        assertThat(server.awaitLine("fault: paused at " + step)).isTrue();
        // Writes go on while the round is held at the step (at the image, it holds a key's lock).
        if (step != Step.SNAPSHOT_IMAGE) {
          items.addAll(write(c, "d", 200));
        }
      }
      server.kill();
    }
    try (ServerProcess server = ServerProcess.start(data)) {
      verify(server.port(), items, items.size());
      try (RespClient c = new RespClient(server.port())) {
        assertThat(c.call("SAVE")).isEqualTo("OK");
      }
      assertThat(server.terminate()).isEqualTo(143);
    }
    try (ServerProcess server = ServerProcess.start(data)) {
      verify(server.port(), items, items.size());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"COMMIT_WRITE", "COMMIT_WRITTEN"})
  void killedAtACommitStep_restartsWithEveryAcknowledgedWrite(String step) throws Exception {
    Path data = dir.resolve("d");
    List<String> items = writtenThenKilled(data);
    // The fault fires at the first commit after start: the write that makes it is not acked.
    try (ServerProcess server =
        ServerProcess.start(data, List.of("-Didem.fault=" + step + ":pause"))) {
      try (RespClient c = new RespClient(server.port())) {
        c.send("BF.ADD", "bf", "unacknowledged");
        c.flush();
        assertThat(server.awaitLine("fault: paused at " + step)).isTrue();
      }
      server.kill();
    }
    try (ServerProcess server = ServerProcess.start(data)) {
      verify(server.port(), items, 1000);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"SNAPSHOT_IMAGE", "COMMIT_WRITTEN"})
  void outOfMemory_endsTheProcess_andARestartLosesNothing(String step) throws Exception {
    Path data = dir.resolve("d");
    List<String> items = writtenThenKilled(data);
    try (ServerProcess server =
        ServerProcess.start(data, List.of("-Didem.fault=" + step + ":oom"))) {
      try (RespClient c = new RespClient(server.port())) {
        c.send("BF.ADD", "bf", "x");
        c.send("BGSAVE");
        c.flush();
      }
      // Not a half-alive server: the JVM exits on the OutOfMemoryError (ExitOnOutOfMemoryError).
      assertThat(server.awaitExit(60)).isEqualTo(3);
    }
    try (ServerProcess server = ServerProcess.start(data)) {
      verify(server.port(), items, 1000);
    }
  }
}
