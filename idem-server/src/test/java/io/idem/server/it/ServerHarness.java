package io.idem.server.it;

import io.idem.server.dispatch.Config;
import io.idem.server.net.IdemServer;
import io.idem.server.store.StoreFaults;
import java.nio.file.Path;

/** An in-process server on a free loopback port with its data in a temporary directory. */
final class ServerHarness implements AutoCloseable {

  final IdemServer server;

  ServerHarness(Path dir, String... settings) throws IdemServer.StartException {
    this(dir, StoreFaults.NONE, settings);
  }

  /** A server whose store fails where {@code faults} says. */
  ServerHarness(Path dir, StoreFaults faults, String... settings) throws IdemServer.StartException {
    Config config = Config.defaults();
    config.set("port", "0");
    config.set("dir", dir.toString());
    for (int i = 0; i < settings.length; i += 2) {
      config.set(settings[i], settings[i + 1]);
    }
    server = IdemServer.start(config, faults);
  }

  int port() {
    return server.port();
  }

  @Override
  public void close() {
    server.close();
  }
}
