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

  /**
   * A server with its HTTP port (metrics-port) on: 0 there means off, so a free port is found here;
   * another process may take it before the server binds, hence the retries.
   */
  static ServerHarness withHttpPort(Path dir, String... settings) throws Exception {
    IdemServer.StartException last = null;
    for (int attempt = 0; attempt < 5; attempt++) {
      int port;
      try (java.net.ServerSocket s =
          new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
        port = s.getLocalPort();
      }
      String[] all = java.util.Arrays.copyOf(settings, settings.length + 2);
      all[settings.length] = "metrics-port";
      all[settings.length + 1] = Integer.toString(port);
      try {
        return new ServerHarness(dir, all);
      } catch (IdemServer.StartException e) {
        last = e;
      }
    }
    throw last;
  }

  int port() {
    return server.port();
  }

  /** The base address of its HTTP port. */
  String http() {
    return "http://127.0.0.1:" + server.metricsPort();
  }

  @Override
  public void close() {
    server.close();
  }
}
