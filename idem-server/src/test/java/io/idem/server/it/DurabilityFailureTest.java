package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.store.FaultyStore;
import io.idem.server.store.FaultyStore.Action;
import io.idem.server.store.StoreFaults.Step;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server whose log cannot be written: writes are refused with MISCONF and the reason, replies
 * that wait for the failed write are never sent, reads go on, INFO says why, and a restart has
 * every acknowledged write.
 */
class DurabilityFailureTest {

  @TempDir Path dir;

  @Test
  void failedLogWrite_refusesWrites_dropsUnwrittenReplies_keepsReads() throws Exception {
    FaultyStore faults = new FaultyStore();
    Path data = dir.resolve("d");
    try (ServerHarness h = new ServerHarness(data, faults)) {
      try (RespClient c = new RespClient(h.port())) {
        assertThat(c.call("BF.ADD", "bf", "acked")).isEqualTo(1L);
        faults.arm(Step.COMMIT_WRITE, Action.ROCKSDB_ERROR);
        c.send("BF.ADD", "bf", "lost");
        c.flush();
        // The add is in memory but not in the log: its reply must never arrive as a success.
        assertThat(c.closedWithin(10_000)).isTrue();
      }
      try (RespClient c = new RespClient(h.port())) {
        Object refused = c.call("BF.ADD", "bf", "later");
        assertThat(refused).isInstanceOf(RespClient.Err.class);
        assertThat(((RespClient.Err) refused).text())
            .startsWith("MISCONF Idem cannot write its log, so writes are refused:")
            .contains("injected at COMMIT_WRITE");
        assertThat(c.call("BF.EXISTS", "bf", "acked")).isEqualTo(1L);
        String info = new String((byte[]) c.call("INFO", "persistence"), StandardCharsets.UTF_8);
        assertThat(info).contains("journal_status:err").contains("journal_error:cannot write");
      }
    }
    try (ServerHarness h = new ServerHarness(data);
        RespClient c = new RespClient(h.port())) {
      assertThat(c.call("BF.EXISTS", "bf", "acked")).isEqualTo(1L);
      assertThat(c.call("BF.ADD", "bf", "after-restart")).isEqualTo(1L);
    }
  }

  @Test
  void readReply_waitsForTheChangeItSaw() throws Exception {
    FaultyStore faults = new FaultyStore();
    try (ServerHarness h = new ServerHarness(dir.resolve("d"), faults);
        RespClient writer = new RespClient(h.port());
        RespClient reader = new RespClient(h.port())) {
      assertThat(writer.call("BF.ADD", "bf", "a")).isEqualTo(1L);
      // Hold the committer before it writes the next group: the add is applied, not logged.
      faults.arm(Step.COMMIT_WRITE, Action.PAUSE);
      writer.send("BF.ADD", "bf", "b");
      writer.flush();
      assertThat(faults.awaitFired(10)).isTrue();
      reader.send("BF.EXISTS", "bf", "b");
      reader.flush();
      // The reader saw b, which a crash now would take back: its reply waits for the log.
      assertThat(reader.closedWithin(500)).isFalse();
      faults.release();
      assertThat(reader.read()).isEqualTo(1L);
      assertThat(writer.read()).isEqualTo(1L);
    }
  }
}
