package io.idem.kafka.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A {@link DedupBenchApp} in its own JVM: its stdout lines, each with the time it came, and its
 * stderr appended to a log file.
 */
final class AppProcess {

  /** A line of the app's stdout: an event name, then its fields, separated by spaces. */
  record Line(String text, long atMillis) {
    boolean is(String event) {
      return text.equals(event) || text.startsWith(event + " ");
    }

    String field(int i) {
      return text.split(" ")[i];
    }

    long longField(int i) {
      return Long.parseLong(field(i));
    }
  }

  private final Process process;
  private final long startedMillis;
  private final List<Line> lines = new ArrayList<>(); // guarded by itself
  private final Thread reader;

  private AppProcess(Process process, long startedMillis) {
    this.process = process;
    this.startedMillis = startedMillis;
    reader = new Thread(this::read, "app-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  static AppProcess start(List<String> command, Path log) throws IOException {
    long now = System.currentTimeMillis();
    Process p =
        new ProcessBuilder(command)
            .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    return new AppProcess(p, now);
  }

  private void read() {
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String text; (text = in.readLine()) != null; ) {
        Line line = new Line(text, System.currentTimeMillis());
        synchronized (lines) {
          lines.add(line);
        }
      }
    } catch (IOException e) {
      // the process is gone
    }
  }

  /** The wall-clock time just before the process was started. */
  long startedMillis() {
    return startedMillis;
  }

  List<Line> lines() {
    synchronized (lines) {
      return List.copyOf(lines);
    }
  }

  long count(String event) {
    return lines().stream().filter(l -> l.is(event)).count();
  }

  /** The first line that passes {@code test}, or null if the app ended or the time ran out. */
  Line await(Predicate<Line> test, long seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    int seen = 0;
    while (true) {
      boolean ended = !process.isAlive();
      if (ended) {
        reader.join(5000); // for the lines it wrote before it ended
      }
      List<Line> now = lines();
      for (; seen < now.size(); seen++) {
        if (test.test(now.get(seen))) {
          return now.get(seen);
        }
      }
      if (ended || System.nanoTime() > deadline) {
        return null;
      }
      Thread.sleep(50);
    }
  }

  /** Writes the app's Flight Recorder recording {@code name} to {@code file}, through jcmd. */
  void dumpRecording(String name, Path file) throws IOException, InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process p =
        new ProcessBuilder(
                jcmd.toString(),
                Long.toString(process.pid()),
                "JFR.dump",
                "name=" + name,
                "filename=" + file)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IOException("jcmd " + process.pid() + " JFR.dump did not write " + file);
    }
  }

  /** SIGKILL: the crash the benchmark restores from. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(60, TimeUnit.SECONDS);
  }

  /** SIGTERM, so that the app closes its streams; SIGKILL if it has not ended within a minute. */
  void terminate() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      kill();
    }
  }
}
