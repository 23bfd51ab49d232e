package io.idem.server.net;

import io.idem.server.dispatch.Config;
import io.idem.server.store.StoreFaults;

/**
 * Starts a server from {@code name value} argument pairs (the settings of {@link Config}) and
 * prints {@code ready <port>} on standard output once it listens. For tests and scripts that need a
 * server process; users run {@code idem serve}. {@code -Didem.fault=STEP:ACTION} injects a store
 * fault ({@link StoreFaults#fromSystemProperty}).
 */
public final class ServerMain {

  private ServerMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length % 2 != 0) {
      System.err.println("usage: ServerMain [name value]...");
      System.exit(2);
    }
    Config config = Config.defaults();
    try {
      for (int i = 0; i < args.length; i += 2) {
        config.set(args[i], args[i + 1]);
      }
    } catch (IllegalArgumentException e) {
      System.err.println("idem: " + e.getMessage());
      System.exit(2);
      return;
    }
    IdemServer server;
    try {
      server = IdemServer.start(config, StoreFaults.fromSystemProperty());
    } catch (IdemServer.StartException e) {
      System.err.println("idem: " + e.getMessage());
      System.exit(1);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "idem-sigterm"));
    System.out.println("ready " + server.port());
    System.out.flush();
    server.awaitStop();
  }
}
