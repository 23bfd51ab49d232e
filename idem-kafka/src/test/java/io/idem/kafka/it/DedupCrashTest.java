package io.idem.kafka.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.cluster.KafkaBroker;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator under exactly_once_v2 on a real broker, its app killed with SIGKILL at random points
 * mid-stream, many times: the output holds each input id exactly once. A record whose first
 * processing was aborted by a kill is processed again and must find its own claim (a retry) and go
 * on; dropped as a duplicate, its id would be missing from the output. Fixed seed.
 */
class DedupCrashTest {

  private static final int RECORDS = 20_000;
  private static final int IDS = 12_000;
  private static final int KILLS = 6;

  @TempDir static Path dir;
  private static KafkaBroker broker;

  @BeforeAll
  static void start() throws Exception {
    broker = KafkaBroker.start(dir.resolve("kafka"));
    broker.createTopic("in", 2);
    broker.createTopic("out", 2);
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void killedAgainAndAgain_theOutputHoldsEachIdExactlyOnce() throws Exception {
    Random r = new Random(44);
    Set<String> ids = new TreeSet<>();
    Map<String, Object> config = Map.of("bootstrap.servers", broker.bootstrapServers());
    long t0 = System.currentTimeMillis() - 600_000; // within the topics' retention
    try (KafkaProducer<String, String> p =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < RECORDS; i++) {
        String id = "id" + r.nextInt(IDS);
        ids.add(id);
        p.send(new ProducerRecord<>("in", null, t0 + i, id, "v" + i));
      }
      p.flush();
    }

    Path state = dir.resolve("state");
    List<String> restores = new ArrayList<>();
    for (int kill = 0; kill < KILLS; kill++) {
      App app = App.start(state, 150, 300);
      assertThat(app.awaitLine("running", 120)).as("app %d running", kill).isTrue();
      Thread.sleep(200 + r.nextInt(1500));
      app.kill();
      restores.addAll(app.restores());
    }
    App last = App.start(state, 0, 300);
    assertThat(last.awaitLine("running", 120)).as("last app running").isTrue();
    Map<String, Integer> out = readOutput(ids.size());
    last.terminate();
    restores.addAll(last.restores());
    System.err.printf(
        "dedup crash test: %d ids, %d kills, output of %d ids; restores %s%n",
        ids.size(), KILLS, out.size(), restores);

    List<String> missing = new ArrayList<>();
    List<String> twice = new ArrayList<>();
    for (String id : ids) {
      int n = out.getOrDefault(id, 0);
      if (n == 0) {
        missing.add(id);
      } else if (n > 1) {
        twice.add(id);
      }
    }
    assertThat(missing).as("ids never forwarded (restores: %s)", restores).isEmpty();
    assertThat(twice).as("ids forwarded more than once").isEmpty();
    assertThat(out.keySet()).isEqualTo(ids);
    // A restart after a checkpoint restores from it, not from the changelog's start.
    assertThat(restores)
        .as("restores that start past the changelog's first record")
        .anyMatch(line -> line.startsWith("restoring ") && !line.contains(" from 0 to "));
  }

  /** The output's committed records by key, read until {@code expected} keys came and 3 s more. */
  private static Map<String, Integer> readOutput(int expected) {
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.bootstrapServers());
    p.put("isolation.level", "read_committed");
    p.put("group.id", "dedup-crash-check");
    p.put("auto.offset.reset", "earliest");
    Map<String, Integer> out = new HashMap<>();
    try (KafkaConsumer<String, String> c =
        new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      c.subscribe(List.of("out"));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      long quietUntil = Long.MAX_VALUE;
      while (System.nanoTime() < Math.min(deadline, quietUntil)) {
        for (ConsumerRecord<String, String> rec : c.poll(Duration.ofMillis(200))) {
          out.merge(rec.key(), 1, Integer::sum);
        }
        if (out.size() >= expected && quietUntil == Long.MAX_VALUE) {
          quietUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        }
      }
    }
    return out;
  }

  /** The app in its own JVM. */
  private static final class App {
    private final Process process;
    private final ConcurrentLinkedQueue<String> lines = new ConcurrentLinkedQueue<>();

    private App(Process process) {
      this.process = process;
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader in =
                    new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                  for (String line; (line = in.readLine()) != null; ) {
                    lines.add(line);
                  }
                } catch (IOException e) {
                  // the process is gone
                }
              });
      reader.setDaemon(true);
      reader.start();
    }

    static App start(Path state, long spendMicros, long checkpointMillis) throws IOException {
      List<String> cmd =
          List.of(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "-Xmx512m",
              "-cp",
              System.getProperty("java.class.path"),
              DedupApp.class.getName(),
              broker.bootstrapServers(),
              state.toString(),
              Long.toString(spendMicros),
              Long.toString(checkpointMillis));
      return new App(
          new ProcessBuilder(cmd)
              .redirectError(ProcessBuilder.Redirect.appendTo(dir.resolve("app.log").toFile()))
              .start());
    }

    boolean awaitLine(String line, long seconds) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      while (System.nanoTime() < deadline) {
        if (lines.contains(line)) {
          return true;
        }
        if (!process.isAlive()) {
          return false;
        }
        Thread.sleep(50);
      }
      return false;
    }

    List<String> restores() {
      return lines.stream().filter(l -> l.startsWith("restor")).toList();
    }

    void kill() throws InterruptedException {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }

    int terminate() throws InterruptedException {
      process.destroy();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return -1;
      }
      return process.exitValue();
    }
  }
}
