package io.idem.client;

import io.idem.server.dispatch.Config;
import io.idem.server.net.IdemServer;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real server started in-process for each test, on a free port, and a client connected to it;
 * public for the tests of the client's other packages.
 */
public abstract class WithServer {

  @TempDir protected Path dir;
  protected IdemServer server;
  protected IdemClient client;

  @BeforeEach
  protected void startServer() throws Exception {
    Config config = Config.defaults();
    config.set("port", "0");
    config.set("dir", dir.resolve("data").toString());
    server = IdemServer.start(config);
    client = IdemClient.create("redis://127.0.0.1:" + server.port());
  }

  @AfterEach
  protected void stopServer() {
    client.close();
    server.close();
  }
}
