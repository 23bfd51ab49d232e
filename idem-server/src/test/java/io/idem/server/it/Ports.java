package io.idem.server.it;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports for servers a test names before it starts them (a cluster's members) and starts
 * again on the same port after a kill. A port the kernel hands out for listening (port 0) is one of
 * the ephemeral range it also takes the local ports of outgoing connections from, so another
 * process's connection (a Kafka client's) could take it before the server binds it. These come from
 * below that range.
 */
final class Ports {

  private Ports() {}

  /** A port below the ephemeral range that no one listens on now. */
  static int free() throws IOException {
    int low = 32768; // Linux's default
    try (var in = Files.newInputStream(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
      // Read to the end: a /proc file says it is empty, and Files.readString believed it here.
      String range = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
      int parsed = Integer.parseInt(range.strip().split("\\s+")[0]);
      if (parsed >= 4096 && parsed <= 65535) {
        low = parsed;
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: keep the default
    }
    int from = Math.min(10_000, low / 2);
    for (int tries = 0; tries < 1000; tries++) {
      int port = ThreadLocalRandom.current().nextInt(from, low);
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return port;
      } catch (IOException taken) {
        // try another
      }
    }
    throw new IOException("no free port below " + low);
  }
}
