package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Dedup tables on the real store: claims survive restarts, from the log and from snapshots. */
class DedupServerTest {

  @TempDir Path tmp;

  private static Object status(Object claimReply) {
    return ((List<?>) claimReply).getFirst();
  }

  private static String owner(Object claimReply) {
    Object o = ((List<?>) claimReply).get(1);
    return o == null ? null : new String((byte[]) o, StandardCharsets.UTF_8);
  }

  @Test
  void claimsSurviveRestart_fromTheLogAndFromASnapshot() throws Exception {
    Path dir = tmp.resolve("data");
    try (ServerHarness s = new ServerHarness(dir);
        RespClient c = new RespClient(s.port())) {
      assertThat(c.call("DEDUP.RESERVE", "exact", "24h")).isEqualTo("OK");
      assertThat(c.call("DEDUP.RESERVE", "filter", "24h", "FILTER", "0.001", "10000"))
          .isEqualTo("OK");
      assertThat(c.call("DEDUP.RESERVE", "recent", "24h", "RECENT", "100000")).isEqualTo("OK");
      for (String t : new String[] {"exact", "filter", "recent"}) {
        assertThat(status(c.call("DEDUP.CLAIM", t, "before-save", "o1"))).isEqualTo("new");
      }
      assertThat(c.call("SAVE")).isEqualTo("OK");
      for (String t : new String[] {"exact", "filter", "recent"}) {
        assertThat(status(c.call("DEDUP.CLAIM", t, "after-save", "o2"))).isEqualTo("new");
      }
      assertThat(c.call("DEDUP.CLAIM", "exact", "released", "o3")).isNotNull();
      assertThat(c.call("DEDUP.RELEASE", "exact", "released", "o3")).isEqualTo(1L);
    }
    try (ServerHarness s = new ServerHarness(dir);
        RespClient c = new RespClient(s.port())) {
      Object r = c.call("DEDUP.CLAIM", "exact", "before-save", "o9");
      assertThat(status(r)).isEqualTo("duplicate");
      assertThat(owner(r)).isEqualTo("o1");
      assertThat(status(c.call("DEDUP.CLAIM", "exact", "after-save", "o2"))).isEqualTo("retry");
      assertThat(status(c.call("DEDUP.CLAIM", "exact", "released", "o4"))).isEqualTo("new");
      assertThat(status(c.call("DEDUP.CLAIM", "filter", "before-save", "o9")))
          .isEqualTo("duplicate");
      assertThat(status(c.call("DEDUP.CLAIM", "filter", "after-save", "o9")))
          .isEqualTo("duplicate");
      assertThat(status(c.call("DEDUP.CLAIM", "recent", "before-save", "o1"))).isEqualTo("retry");
      assertThat(status(c.call("DEDUP.CLAIM", "recent", "after-save", "o9")))
          .isEqualTo("duplicate");
      assertThat(status(c.call("DEDUP.CLAIM", "recent", "fresh", "o9"))).isEqualTo("new");
    }
  }

  @Test
  void manyClaimsInOneBatch_thenANewTableUnderTheKeyStartsEmpty() throws Exception {
    Path dir = tmp.resolve("data");
    try (ServerHarness s = new ServerHarness(dir);
        RespClient c = new RespClient(s.port())) {
      c.call("DEDUP.RESERVE", "t", "1h");
      String[] words = new String[3 + 2 * 5000];
      words[0] = "DEDUP.MCLAIM";
      words[1] = "t";
      words[2] = "ITEMS";
      for (int i = 0; i < 5000; i++) {
        words[3 + 2 * i] = "id-" + i;
        words[4 + 2 * i] = "owner-" + (i % 7);
      }
      assertThat((List<?>) c.call(words)).hasSize(5000);
      assertThat(((List<?>) c.call("DEDUP.MCLAIM", "t", "DUPLICATES", "ITEMS", "id-42", "x")))
          .hasSize(1);
      assertThat(c.call("DEL", "t")).isEqualTo(1L);
      c.call("DEDUP.RESERVE", "t", "1h");
      assertThat(status(c.call("DEDUP.CLAIM", "t", "id-42", "x"))).isEqualTo("new");
    }
    try (ServerHarness s = new ServerHarness(dir);
        RespClient c = new RespClient(s.port())) {
      assertThat(status(c.call("DEDUP.CLAIM", "t", "id-43", "x"))).isEqualTo("new");
      assertThat(status(c.call("DEDUP.CLAIM", "t", "id-42", "y"))).isEqualTo("duplicate");
    }
  }

  @Test
  void droppedSlicesStayDroppedAfterRestart() throws Exception {
    Path dir = tmp.resolve("data");
    try (ServerHarness s = new ServerHarness(dir);
        RespClient c = new RespClient(s.port())) {
      c.call("DEDUP.RESERVE", "t", "1s", "SLICES", "1");
      assertThat(status(c.call("DEDUP.CLAIM", "t", "a", "o1"))).isEqualTo("new");
      // The window is a second and a slice is a second: gone within three.
      Thread.sleep(3000);
      assertThat(status(c.call("DEDUP.CLAIM", "t", "b", "o1"))).isEqualTo("new");
      assertThat(c.call("DEDUP.EXISTS", "t", "a")).isEqualTo(0L);
    }
    try (ServerHarness s = new ServerHarness(dir);
        RespClient c = new RespClient(s.port())) {
      assertThat(c.call("DEDUP.EXISTS", "t", "a")).isEqualTo(0L);
      assertThat(status(c.call("DEDUP.CLAIM", "t", "a", "o2"))).isEqualTo("new");
    }
  }
}
