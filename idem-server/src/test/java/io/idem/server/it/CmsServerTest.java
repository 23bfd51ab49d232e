package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Count-min sketches on the real store: counts survive restarts, from the log and snapshots. */
class CmsServerTest {

  @TempDir Path tmp;

  @Test
  void countsSurviveRestart_fromTheLogAndFromASnapshot() throws Exception {
    Path dir = tmp.resolve("data");
    try (ServerHarness s = new ServerHarness(dir);
        RespClient c = new RespClient(s.port())) {
      assertThat(c.call("CMS.INITBYDIM", "c", "1000", "5")).isEqualTo("OK");
      assertThat(c.call("CMS.INITBYDIM", "o", "1000", "5")).isEqualTo("OK");
      c.call("CMS.INCRBY", "c", "before-save", "7");
      c.call("CMS.INCRBY", "o", "merged", "2");
      assertThat(c.call("SAVE")).isEqualTo("OK");
      c.call("CMS.INCRBY", "c", "after-save", "11", "before-save", "1");
      assertThat(c.call("CMS.MERGE", "c", "2", "c", "o", "WEIGHTS", "1", "5")).isEqualTo("OK");
      s.server.setSaveOnShutdown(false); // the restart replays the log after the snapshot
    }
    try (ServerHarness s = new ServerHarness(dir);
        RespClient c = new RespClient(s.port())) {
      assertThat(c.call("CMS.QUERY", "c", "before-save", "after-save", "merged", "never"))
          .isEqualTo(List.of(8L, 11L, 10L, 0L));
      assertThat(c.call("CMS.INFO", "c"))
          .isEqualTo(List.of("width", 1000L, "depth", 5L, "count", 29L));
    }
  }
}
