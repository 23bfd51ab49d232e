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
  private final BufferedReader stdout;

  private ServerProcess(Process process, int port, BufferedReader stdout) {
    this.process = process;
    this.port = port;
    this.stdout = stdout;
  }

  /** Starts a server on a free port with its data in {@code dir}; waits until it listens. */
  static ServerProcess start(Path dir, String... settings) throws IOException {
    return start(dir, List.of(), settings);
  }

  /**
   * As above, with more JVM options (a fault to inject: {@code -Didem.fault=STEP:ACTION}). The JVM
   * exits on an OutOfMemoryError, as the launcher makes it.
   */
  static ServerProcess start(Path dir, List<String> jvmOptions, String... settings)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx512m");
    cmd.add("-XX:+ExitOnOutOfMemoryError");
    cmd.addAll(jvmOptions);
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
    return new ServerProcess(p, Integer.parseInt(line.substring(6).trim()), r);
  }

  /** Waits for the server to print {@code line} on standard output; false if it exits first. */
  boolean awaitLine(String line) throws IOException {
    for (String got; (got = stdout.readLine()) != null; ) {
      if (got.equals(line)) {
        return true;
      }
    }
    return false;
  }

  /** Waits for the process to exit on its own; its exit code, or -1 after the timeout. */
  int awaitExit(long seconds) throws InterruptedException {
    return process.waitFor(seconds, TimeUnit.SECONDS) ? process.exitValue() : -1;
  }

  int port() {
    return port;
  }

  /** A line of the process's /proc status in kB (VmRSS: resident now, VmHWM: its peak). */
  long statusKb(String field) throws IOException {
    for (String line :
        java.nio.file.Files.readAllLines(
            Path.of("/proc", Long.toString(process.pid()), "status"))) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.substring(field.length() + 1).replace("kB", "").trim());
      }
    }
    throw new IOException("no " + field + " in the server's /proc status");
  }

  boolean alive() {
    return process.isAlive();
  }

  /** SIGKILL: no shutdown hook, no flush, no close. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** Sends a signal by name ({@code STOP}, {@code CONT}) with kill(1): Java has no SIGSTOP. */
  void signal(String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start();
    if (kill.waitFor() != 0) {
      throw new IOException("kill -" + name + " " + process.pid() + " failed");
    }
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
