package io.idem.client.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.dispatch.Config;
import io.idem.server.net.IdemServer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The guide's example worker runs as written against a real server. */
class ExampleWorkerTest {

  @TempDir Path dir;

  @Test
  void theExampleWorker_sendsEveryEmailOnce() throws Exception {
    Config config = Config.defaults();
    config.set("port", "0");
    config.set("dir", dir.resolve("data").toString());
    try (IdemServer server = IdemServer.start(config)) {
      String uri = "redis://127.0.0.1:" + server.port();
      assertThat(ExampleWorker.run(uri, 200)).isEqualTo(200);
      assertThat(ExampleWorker.run(uri, 200)).as("unique for a day: none queued again").isZero();
    }
  }
}
