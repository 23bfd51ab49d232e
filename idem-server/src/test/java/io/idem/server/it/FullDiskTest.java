package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real full disk: the data directory is a small tmpfs (mounting one needs root; elsewhere the
 * test is skipped). Full at start, the server says so and exits; filled while it runs, writes get
 * MISCONF, reads go on, and once the disk has room a restart has every acknowledged write.
 */
class FullDiskTest {

  @TempDir Path tmp;
  private Path mount;

  private static int run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    return p.waitFor(30, TimeUnit.SECONDS) ? p.exitValue() : -1;
  }

  @BeforeEach
  void mountSmallDisk() throws Exception {
    mount = tmp.resolve("disk");
    Files.createDirectories(mount);
    assumeTrue(
        run("mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", mount.toString()) == 0,
        "mounting a tmpfs needs root");
  }

  @AfterEach
  void unmount() throws Exception {
    if (mount != null) {
      run("umount", "-l", mount.toString());
    }
  }

  private void resize(String size) throws Exception {
    assertThat(run("mount", "-o", "remount,size=" + size, mount.toString())).isZero();
  }

  /** Fills the disk with a file, leaving about {@code leftKb} free. */
  private void fill(int leftKb) throws Exception {
    run(
        "dd",
        "if=/dev/zero",
        "of=" + mount.resolve("filler"),
        "bs=1k",
        "count=" + (24 * 1024 - leftKb));
  }

  @Test
  void fullAtStart_aClearMessageAndExitOne() throws Exception {
    fill(0);
    // The data directory is the tmpfs itself, its log file beside it on the real disk.
    assertThatThrownBy(() -> ServerProcess.start(mount)).isInstanceOf(IOException.class);
    String log = Files.readString(tmp.resolve("disk.log"), StandardCharsets.UTF_8);
    assertThat(log).contains("cannot open the data directory").contains("No space left on device");
  }

  @Test
  void filledWhileRunning_writesRefused_readsServed_restartLosesNothing() throws Exception {
    List<String> acked = new ArrayList<>();
    try (ServerProcess server = ServerProcess.start(mount)) {
      try (RespClient c = new RespClient(server.port())) {
        assertThat(c.call("BF.RESERVE", "bf", "0.001", "5000000")).isEqualTo("OK");
        for (int batch = 0; batch < 100_000; batch++) {
          List<String> w = new ArrayList<>(List.of("BF.MADD", "bf"));
          for (int i = 0; i < 500; i++) {
            w.add("item-" + batch + "-" + i);
          }
          c.call(w.toArray(String[]::new)); // an EOF once the disk is full: never acknowledged
          acked.addAll(w.subList(2, w.size()));
        }
        throw new AssertionError("the disk never filled up");
      } catch (java.io.EOFException expected) {
        // The write the disk refused: its reply is dropped, its connection closed.
      }
      assertThat(acked).isNotEmpty();
      try (RespClient c = new RespClient(server.port())) {
        Object refused = c.call("BF.ADD", "bf", "one-more");
        assertThat(refused).isInstanceOf(RespClient.Err.class);
        assertThat(((RespClient.Err) refused).text())
            .startsWith("MISCONF")
            .contains("No space left on device");
        String info = new String((byte[]) c.call("INFO", "persistence"), StandardCharsets.US_ASCII);
        assertThat(info).contains("journal_status:err");
        assertThat(c.call("BF.EXISTS", "bf", acked.getLast())).as("reads go on").isEqualTo(1L);
      }
      server.kill();
    }
    resize("256m");
    try (ServerProcess server = ServerProcess.start(mount);
        RespClient c = new RespClient(server.port())) {
      for (int from = 0; from < acked.size(); from += 1000) {
        List<String> w = new ArrayList<>(List.of("BF.MEXISTS", "bf"));
        w.addAll(acked.subList(from, Math.min(acked.size(), from + 1000)));
        List<Object> answers = new ArrayList<>((List<?>) c.call(w.toArray(String[]::new)));
        assertThat(answers).as("acknowledged adds after the restart").containsOnly(1L);
      }
      assertThat(c.call("BF.ADD", "bf", "one-more")).isIn(0L, 1L);
    }
  }
}
