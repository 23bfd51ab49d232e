package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DEBUG DIGEST-VALUE covers what values keep in the store, not only their snapshots: a counter's
 * buckets, an exact dedup table's owners, however much of them the background has written as rows.
 */
class RowsDigestTest {

  private static final String NONE = "[" + "0".repeat(40) + "]";

  @TempDir Path dir;

  private static String digest(RespClient c, String key) throws IOException {
    return RespClient.text(c.call("DEBUG", "DIGEST-VALUE", key));
  }

  /** DEDUP.INFO's figure of that name. */
  private static long info(RespClient c, String key, String name) throws IOException {
    List<?> info = (List<?>) c.call("DEDUP.INFO", key);
    for (int i = 0; i < info.size(); i += 2) {
      if (RespClient.text(info.get(i)).equals(name)) {
        return (Long) info.get(i + 1);
      }
    }
    throw new AssertionError("no " + name + " in " + RespClient.text(info));
  }

  @Test
  void countersWithOtherCounts_digestApart_theSameCounts_alike() throws Exception {
    try (ServerHarness one = new ServerHarness(dir.resolve("one"));
        ServerHarness two = new ServerHarness(dir.resolve("two"));
        RespClient a = new RespClient(one.port());
        RespClient b = new RespClient(two.port())) {
      long t = System.currentTimeMillis() - 120_000; // inside the default retentions
      for (RespClient c : List.of(a, b)) {
        c.call("COUNTER.INCRBY", "clicks", Long.toString(t), "home", "2", "cart", "1");
        c.call("DISTINCT.ADD", "users", Long.toString(t), "home", "alice");
      }
      assertThat(digest(a, "clicks")).isEqualTo(digest(b, "clicks")).isNotEqualTo(NONE);
      assertThat(digest(a, "users")).isEqualTo(digest(b, "users")).isNotEqualTo(NONE);
      b.call("COUNTER.INCRBY", "clicks", Long.toString(t - 600_000), "home", "1");
      b.call("DISTINCT.ADD", "users", Long.toString(t), "home", "bob");
      assertThat(digest(a, "clicks")).isNotEqualTo(digest(b, "clicks"));
      assertThat(digest(a, "users")).isNotEqualTo(digest(b, "users"));
      a.call("COUNTER.INCRBY", "clicks", Long.toString(t - 600_000), "home", "1");
      a.call("DISTINCT.ADD", "users", Long.toString(t), "home", "bob");
      assertThat(digest(a, "clicks")).isEqualTo(digest(b, "clicks"));
      assertThat(digest(a, "users")).isEqualTo(digest(b, "users"));
    }
  }

  /**
   * One server writes its claims as rows (and a release after them), the other still holds them
   * pending: one digest. An owner that differs, with the same ids, digests apart.
   */
  @Test
  void exactDedup_writtenOrPending_digestAlike_andOwnersCount() throws Exception {
    try (ServerHarness one = new ServerHarness(dir.resolve("one"));
        ServerHarness two = new ServerHarness(dir.resolve("two"));
        RespClient a = new RespClient(one.port());
        RespClient b = new RespClient(two.port())) {
      for (RespClient c : List.of(a, b)) {
        assertThat(c.call("DEDUP.RESERVE", "d", "1d", "EXACT", "CAPACITY", "1000")).isEqualTo("OK");
      }
      String[] claims = new String[3 + 400];
      claims[0] = "DEDUP.MCLAIM";
      claims[1] = "d";
      claims[2] = "ITEMS";
      for (int i = 0; i < 200; i++) {
        claims[3 + 2 * i] = "id-" + i;
        claims[4 + 2 * i] = "partition-3:" + (1000 + i);
      }
      a.call(claims);
      long pendingMemory = info(a, "d", "Memory bytes");
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (info(a, "d", "Memory bytes") >= pendingMemory) {
        assertThat(System.nanoTime()).as("the claims written as rows").isLessThan(deadline);
        Thread.sleep(100); // the background writes them once claims pause for a second
      }
      assertThat(a.call("DEDUP.RELEASE", "d", "id-7", "partition-3:1007")).isEqualTo(1L);
      b.call(claims);
      assertThat(b.call("DEDUP.RELEASE", "d", "id-7", "partition-3:1007")).isEqualTo(1L);
      assertThat(info(b, "d", "Memory bytes")).as("b's claims still pending").isGreaterThan(0);
      assertThat(digest(a, "d")).isEqualTo(digest(b, "d"));

      // The same ids, one claimed by another owner: the slices' filters alike, the digests not.
      assertThat(RespClient.text(a.call("DEDUP.CLAIM", "d", "id-7", "partition-4:1")))
          .contains("new");
      assertThat(RespClient.text(b.call("DEDUP.CLAIM", "d", "id-7", "partition-4:2")))
          .contains("new");
      assertThat(digest(a, "d")).isNotEqualTo(digest(b, "d"));
    }
  }
}
