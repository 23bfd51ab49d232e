package io.idem.client;

import io.idem.server.dispatch.Config;
import io.idem.server.net.IdemServer;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** A real server started in-process for each test, on a free port, and a client connected to it. */
abstract class WithServer {

  @TempDir Path dir;
  IdemServer server;
  IdemClient client;

  @BeforeEach
  void startServer() throws Exception {
    Config config = Config.defaults();
    config.set("port", "0");
    config.set("dir", dir.resolve("data").toString());
    server = IdemServer.start(config);
    client = IdemClient.create("redis://127.0.0.1:" + server.port());
  }

  @AfterEach
  void stopServer() {
    client.close();
    server.close();
  }
}
