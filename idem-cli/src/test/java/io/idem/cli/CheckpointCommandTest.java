package io.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.dispatch.Config;
import io.idem.server.net.IdemServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code idem checkpoint} against a real server: the directory it prints, and its failures. */
class CheckpointCommandTest {

  @TempDir Path tmp;

  @Test
  void checkpoint_printsTheDirectory_whichAServerStartsFrom() throws Exception {
    Config config = Config.defaults();
    config.set("port", "0");
    config.set("dir", tmp.resolve("data").toString());
    Path made;
    try (IdemServer server = IdemServer.start(config)) {
      String port = Integer.toString(server.port());

      Run run = Run.main("", "checkpoint", "--port", port, "nightly");

      assertThat(run.err()).isEmpty();
      assertThat(run.exitCode()).isZero();
      made = Path.of(run.outText().trim());
      assertThat(made).isEqualTo(tmp.resolve("data/checkpoints/nightly").toAbsolutePath());
      assertThat(made.resolve("CURRENT")).isRegularFile();

      Run again = Run.main("", "checkpoint", "--port", port, "nightly");
      assertThat(again.exitCode()).isEqualTo(1);
      assertThat(again.err()).isEqualTo("idem checkpoint: ERR the checkpoint nightly exists\n");
    }
    Config fromIt = Config.defaults();
    fromIt.set("port", "0");
    fromIt.set("dir", tmp.resolve("new").toString());
    fromIt.set("load-checkpoint", made.toString());
    IdemServer.start(fromIt).close();
    assertThat(tmp.resolve("new/CURRENT")).isRegularFile();
  }

  @Test
  void checkpoint_noServer_exits1() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Run run = Run.main("", "checkpoint", "--port", Integer.toString(port));
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .startsWith("idem checkpoint: cannot reach the server at 127.0.0.1:" + port);
  }
}
