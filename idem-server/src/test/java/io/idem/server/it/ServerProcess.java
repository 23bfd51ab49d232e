package io.idem.server.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** An Idem server in its own JVM, started from the test classpath, that a test can kill -9. */
final class ServerProcess implements AutoCloseable {

  private final Process process;
  private final int port;

  private ServerProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts a server on a free port with its data in {@code dir}; waits until it listens. */
  static ServerProcess start(Path dir, String... settings) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx512m");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("io.idem.server.net.ServerMain");
    cmd.addAll(List.of("port", "0", "dir", dir.toString()));
    cmd.addAll(List.of(settings));
    Process p =
        new ProcessBuilder(cmd)
            .redirectError(dir.resolveSibling(dir.getFileName() + ".log").toFile())
            .start();
    BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII));
    String line = r.readLine();
    if (line == null || !line.startsWith("ready ")) {
      p.destroyForcibly();
      throw new IOException("server did not start: " + line);
    }
    return new ServerProcess(p, Integer.parseInt(line.substring(6).trim()));
  }

  int port() {
    return port;
  }

  /** SIGKILL: no shutdown hook, no flush, no close. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** SIGTERM, then wait for a graceful exit. */
  int terminate() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      return -1;
    }
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
