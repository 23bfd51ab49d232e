package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a server process with SIGKILL at random moments while a client pipelines BF.ADD and CF.ADD,
 * restarts it on the same data, and checks that every acknowledged item is present. Snapshots run
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
    for (int cycle = 0; cycle < cycles; cycle++) {
      try (ServerProcess server = ServerProcess.start(dir, SETTINGS)) {
        if (cycle == 0) {
          try (RespClient c = new RespClient(server.port())) {
            assertThat(c.call("BF.RESERVE", "bf", "0.001", "1000000")).isEqualTo("OK");
            assertThat(c.call("CF.RESERVE", "cf", "1000000")).isEqualTo("OK");
          }
        } else {
          verify(server.port(), bloomAcked, cuckooAcked);
        }
        int before = bloomAcked.size() + cuckooAcked.size();
        long killAfterMillis = 300 + random.nextInt(1200);
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
        pipelineUntilKilled(server.port(), cycle, killed, bloomAcked, cuckooAcked);
        killer.join();
        assertThat(bloomAcked.size() + cuckooAcked.size())
            .as("cycle %d acknowledged something before the kill", cycle)
            .isGreaterThan(before);
      }
    }
    try (ServerProcess server = ServerProcess.start(dir, SETTINGS)) {
      verify(server.port(), bloomAcked, cuckooAcked);
      // SIGTERM: the JVM runs the shutdown hook (graceful stop), then exits with 128 + 15.
      assertThat(server.terminate()).isEqualTo(143);
    }
  }

  /** Pipelines batches of adds; records the items whose reply arrived. */
  private static void pipelineUntilKilled(
      int port, int cycle, AtomicBoolean killed, List<String> bloomAcked, List<String> cuckooAcked)
      throws IOException {
    int n = 0;
    try (RespClient c = new RespClient(port)) {
      while (true) {
        List<String> batch = new ArrayList<>();
        for (int i = 0; i < 256; i++, n++) {
          String item = "c" + cycle + "-" + n;
          batch.add(item);
          c.send(n % 2 == 0 ? "BF.ADD" : "CF.ADD", n % 2 == 0 ? "bf" : "cf", item);
        }
        c.flush();
        for (int i = 0; i < batch.size(); i++) {
          Object reply = c.read();
          String item = batch.get(i);
          boolean bloom = isBloom(item);
          assertThat(reply).as("reply to add %s", item).isIn(0L, 1L);
          (bloom ? bloomAcked : cuckooAcked).add(item);
        }
      }
    } catch (IOException e) {
      if (!killed.get()) {
        throw e; // the server failed on its own
      }
    }
  }

  private static boolean isBloom(String item) {
    return Integer.parseInt(item.substring(item.indexOf('-') + 1)) % 2 == 0;
  }

  private static void verify(int port, List<String> bloomAcked, List<String> cuckooAcked)
      throws IOException {
    try (RespClient c = new RespClient(port)) {
      check(c, "BF.MEXISTS", "bf", bloomAcked);
      check(c, "CF.MEXISTS", "cf", cuckooAcked);
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
