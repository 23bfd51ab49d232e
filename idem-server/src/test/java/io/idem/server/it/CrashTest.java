package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a server process with SIGKILL at random moments while a client pipelines BF.ADD, CF.ADD,
 * DEDUP.MCLAIM, CMS.INCRBY and COUNTER.INCRBY, restarts it on the same data, and checks that every
 * acknowledged item is present, every acknowledged claim still held by its owner (claimed again by
 * another owner it is a duplicate naming the first, so no id is answered new twice), and every
 * counter (sketch and windowed) holds its acknowledged increments and none twice. Snapshots run
 * every second, so kills also land during and after snapshots and log truncation.
 *
 * <p>Cycles: {@code -Didem.crash.cycles=N} (default 4; scripts/crash-test.sh runs a hundred).
 */
class CrashTest {

  @TempDir Path tmp;

  private static final String[] SETTINGS = {"snapshot-interval", "1", "snapshot-log-bytes", "1mb"};

  @Test
  void everyAcknowledgedAddSurvivesKillNine() throws Exception {
    int cycles = Integer.getInteger("idem.crash.cycles", 4);
    Random random = new Random(20261122);
    Path dir = tmp.resolve("data");
    List<String> bloomAcked = new ArrayList<>();
    List<String> cuckooAcked = new ArrayList<>();
    Map<String, String> claims = new LinkedHashMap<>();
    Set<String> released = new LinkedHashSet<>();
    Counters counters = new Counters();
    Counters windowed = new Counters();
    for (int cycle = 0; cycle < cycles; cycle++) {
      try (ServerProcess server = ServerProcess.start(dir, SETTINGS)) {
        if (cycle == 0) {
          try (RespClient c = new RespClient(server.port())) {
            assertThat(c.call("BF.RESERVE", "bf", "0.001", "1000000")).isEqualTo("OK");
            assertThat(c.call("CF.RESERVE", "cf", "1000000")).isEqualTo("OK");
            assertThat(c.call("DEDUP.RESERVE", "dd", "24h")).isEqualTo("OK");
            // Wide, for a few items: no two share all their counters, so estimates are exact.
            assertThat(c.call("CMS.INITBYDIM", "cms", "100000", "5")).isEqualTo("OK");
            assertThat(c.call("COUNTER.RESERVE", "wc")).isEqualTo("OK");
          }
        } else {
          verify(server.port(), bloomAcked, cuckooAcked, claims, released, counters, windowed);
        }
        int before = bloomAcked.size() + cuckooAcked.size();
        long killAfterMillis = 300 + random.nextInt(2500); // some after the pause below
        AtomicBoolean killed = new AtomicBoolean();
        Thread killer =
            Thread.ofPlatform()
                .start(
                    () -> {
                      try {
                        Thread.sleep(killAfterMillis);
                        killed.set(true);
                        server.kill();
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                    });
        pipelineUntilKilled(
            server.port(),
            cycle,
            killed,
            bloomAcked,
            cuckooAcked,
            claims,
            released,
            counters,
            windowed);
        killer.join();
        assertThat(bloomAcked.size() + cuckooAcked.size())
            .as("cycle %d acknowledged something before the kill", cycle)
            .isGreaterThan(before);
      }
    }
    try (ServerProcess server = ServerProcess.start(dir, SETTINGS)) {
      verify(server.port(), bloomAcked, cuckooAcked, claims, released, counters, windowed);
      // SIGTERM: the JVM runs the shutdown hook (graceful stop), then exits with 128 + 15.
      assertThat(server.terminate()).isEqualTo(143);
    }
  }

  /**
   * CMS.INCRBY's or COUNTER.INCRBY's counters: increments acknowledged, and sent (some perhaps
   * applied, unanswered).
   */
  private static final class Counters {
    static final int ITEMS = 16;
    final long[] acked = new long[ITEMS];
    final long[] sent = new long[ITEMS];
  }

  /**
   * Pipelines batches of adds, claims and counter increments; records the items and claims whose
   * reply arrived. Each claim batch also claims ids acknowledged earlier, for another owner: they
   * must be duplicates. Every tenth batch releases a few of this cycle's claims (acknowledged
   * releases must stay released), and once a cycle the client pauses long enough for the server to
   * write its pending claims as rows, so kills also land during and after those writes.
   */
  private static void pipelineUntilKilled(
      int port,
      int cycle,
      AtomicBoolean killed,
      List<String> bloomAcked,
      List<String> cuckooAcked,
      Map<String, String> claims,
      Set<String> released,
      Counters counters,
      Counters windowed)
      throws IOException {
    int n = 0;
    int batches = 0;
    List<String> mine = new ArrayList<>();
    List<String> earlier = new ArrayList<>(claims.keySet());
    Random random = new Random(cycle);
    String owner = "owner-" + cycle;
    try (RespClient c = new RespClient(port)) {
      while (true) {
        List<String> batch = new ArrayList<>();
        for (int i = 0; i < 256; i++, n++) {
          String item = "c" + cycle + "-" + n;
          batch.add(item);
          c.send(n % 2 == 0 ? "BF.ADD" : "CF.ADD", n % 2 == 0 ? "bf" : "cf", item);
        }
        List<String> claim = new ArrayList<>(List.of("DEDUP.MCLAIM", "dd", "ITEMS"));
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
          ids.add("id-" + cycle + "-" + n + "-" + i);
        }
        for (int i = 0; i < 8 && !earlier.isEmpty(); i++) {
          ids.add(earlier.get(random.nextInt(earlier.size())));
        }
        for (String id : ids) {
          claim.add(id);
          claim.add(owner);
        }
        c.send(claim.toArray(String[]::new));
        List<String> incr = new ArrayList<>(List.of("CMS.INCRBY", "cms"));
        for (int j = 0; j < Counters.ITEMS; j++) {
          incr.add("k" + j);
          incr.add(Integer.toString(1 + j));
          counters.sent[j] += 1 + j;
        }
        c.send(incr.toArray(String[]::new));
        List<String> count = new ArrayList<>(List.of("COUNTER.INCRBY", "wc", "*"));
        for (int j = 0; j < Counters.ITEMS; j++) {
          count.add("w" + j);
          count.add(Integer.toString(1 + j));
          windowed.sent[j] += 1 + j;
        }
        c.send(count.toArray(String[]::new));
        List<String> releases = new ArrayList<>();
        if (++batches % 10 == 0) {
          for (int i = 0; i < 4 && !mine.isEmpty(); i++) {
            String id = mine.remove(random.nextInt(mine.size()));
            claims.remove(id); // unknown until acknowledged: checked no further
            releases.add(id);
            c.send("DEDUP.RELEASE", "dd", id, owner);
          }
        }
        c.flush();
        for (int i = 0; i < batch.size(); i++) {
          Object reply = c.read();
          String item = batch.get(i);
          boolean bloom = isBloom(item);
          assertThat(reply).as("reply to add %s", item).isIn(0L, 1L);
          (bloom ? bloomAcked : cuckooAcked).add(item);
        }
        List<?> answers = (List<?>) c.read();
        for (int i = 0; i < ids.size(); i++) {
          String id = ids.get(i);
          List<?> answer = (List<?>) answers.get(i);
          String first = claims.get(id);
          if (first == null) {
            assertThat(answer.getFirst()).as("claim of %s", id).isEqualTo("new");
            claims.put(id, owner);
            mine.add(id);
          } else {
            assertThat(answer.getFirst())
                .as("claim of %s, first by %s", id, first)
                .isEqualTo(first.equals(owner) ? "retry" : "duplicate");
            assertThat(new String((byte[]) answer.get(1), StandardCharsets.UTF_8)).isEqualTo(first);
          }
        }
        List<?> counts = (List<?>) c.read();
        for (int j = 0; j < Counters.ITEMS; j++) {
          counters.acked[j] += 1 + j;
          assertThat(counts.get(j)).as("count of k%d", j).isEqualTo(counters.acked[j]);
        }
        assertThat(c.read()).as("resolutions counting the event").isEqualTo(2L);
        for (int j = 0; j < Counters.ITEMS; j++) {
          windowed.acked[j] += 1 + j;
        }
        for (String id : releases) {
          assertThat(c.read()).as("release of %s", id).isEqualTo(1L);
          released.add(id);
        }
        if (batches == 20) {
          Thread.sleep(1200); // claims pause: the server writes the pending ones as rows
        }
      }
    } catch (IOException e) {
      if (!killed.get()) {
        throw e; // the server failed on its own
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  private static boolean isBloom(String item) {
    return Integer.parseInt(item.substring(item.indexOf('-') + 1)) % 2 == 0;
  }

  private static void verify(
      int port,
      List<String> bloomAcked,
      List<String> cuckooAcked,
      Map<String, String> claims,
      Set<String> released,
      Counters counters,
      Counters windowed)
      throws IOException {
    try (RespClient c = new RespClient(port)) {
      check(c, "BF.MEXISTS", "bf", bloomAcked);
      check(c, "CF.MEXISTS", "cf", cuckooAcked);
      // Every acknowledged increment is in, none twice: a count between the acknowledged and the
      // sent (an increment whose reply the kill cut off may or may not have been applied).
      List<String> query = new ArrayList<>(List.of("CMS.QUERY", "cms"));
      for (int j = 0; j < Counters.ITEMS; j++) {
        query.add("k" + j);
      }
      List<?> counts = (List<?>) c.call(query.toArray(String[]::new));
      for (int j = 0; j < Counters.ITEMS; j++) {
        long count = (Long) counts.get(j);
        assertThat(count)
            .as("count of k%d after restart", j)
            .isBetween(counters.acked[j], counters.sent[j]);
        counters.acked[j] = count;
        counters.sent[j] = count;
      }
      List<String> window = new ArrayList<>(List.of("COUNTER.QUERY", "wc", "*", "1d", "NAMES"));
      for (int j = 0; j < Counters.ITEMS; j++) {
        window.add("w" + j);
      }
      List<?> sums = (List<?>) c.call(window.toArray(String[]::new));
      for (int j = 0; j < Counters.ITEMS; j++) {
        long count = (Long) ((List<?>) sums.get(j)).getFirst();
        assertThat(count)
            .as("windowed count of w%d after restart", j)
            .isBetween(windowed.acked[j], windowed.sent[j]);
        windowed.acked[j] = count;
        windowed.sent[j] = count;
      }
      // Acknowledged releases stayed released: claimed now, they are new (and held from now on).
      for (String id : released) {
        Object answer = c.call("DEDUP.CLAIM", "dd", id, "verifier");
        assertThat(((List<?>) answer).getFirst()).as("claim of released %s", id).isEqualTo("new");
        claims.put(id, "verifier");
      }
      released.clear();
      // Claimed again by their first owner, acknowledged claims are retries: none is new.
      List<Map.Entry<String, String>> all = new ArrayList<>(claims.entrySet());
      for (int from = 0; from < all.size(); from += 1000) {
        List<Map.Entry<String, String>> chunk =
            all.subList(from, Math.min(all.size(), from + 1000));
        List<String> words = new ArrayList<>(List.of("DEDUP.MCLAIM", "dd", "ITEMS"));
        for (Map.Entry<String, String> e : chunk) {
          words.add(e.getKey());
          words.add(e.getValue());
        }
        List<?> answers = (List<?>) c.call(words.toArray(String[]::new));
        for (int i = 0; i < chunk.size(); i++) {
          assertThat(((List<?>) answers.get(i)).getFirst())
              .as("claim of %s by %s after restart", chunk.get(i).getKey(), chunk.get(i).getValue())
              .isEqualTo("retry");
        }
      }
    }
  }

  private static void check(RespClient c, String command, String key, List<String> items)
      throws IOException {
    for (int from = 0; from < items.size(); from += 1000) {
      List<String> chunk = items.subList(from, Math.min(items.size(), from + 1000));
      List<String> words = new ArrayList<>();
      words.add(command);
      words.add(key);
      words.addAll(chunk);
      Object reply = c.call(words.toArray(String[]::new));
      assertThat(reply).isInstanceOf(List.class);
      List<?> answers = (List<?>) reply;
      for (int i = 0; i < chunk.size(); i++) {
        assertThat(answers.get(i))
            .as("%s %s %s after restart", command, key, chunk.get(i))
            .isEqualTo(1L);
      }
    }
  }
}
