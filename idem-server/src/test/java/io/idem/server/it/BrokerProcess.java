package io.idem.server.it;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A one-node Kafka (KRaft, broker and controller in one) in its own JVM, from the Kafka artifacts
 * on the test classpath, that a test can kill -9 and start again on the same ports and data: what
 * the in-process test kit cannot do. The same server settings as scripts/kafka.sh.
 */
final class BrokerProcess implements AutoCloseable {

  private final Path dir;
  private final int port;
  private Process process;

  private BrokerProcess(Path dir, int port) {
    this.dir = dir;
    this.port = port;
  }

  /** Formats {@code dir} and starts the broker on two free loopback ports. */
  static BrokerProcess start(Path dir) throws IOException, InterruptedException {
    int port = Ports.free(); // the same after a restart
    int controller = Ports.free();
    while (controller == port) {
      controller = Ports.free();
    }
    Files.createDirectories(dir);
    Files.writeString(
        dir.resolve("server.properties"),
        String.join(
            "\n",
            "process.roles=broker,controller",
            "node.id=1",
            "controller.quorum.voters=1@127.0.0.1:" + controller,
            "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controller,
            "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
            "controller.listener.names=CONTROLLER",
            "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "inter.broker.listener.name=PLAINTEXT",
            "log.dirs=" + dir.resolve("logs"),
            "offsets.topic.replication.factor=1",
            "transaction.state.log.replication.factor=1",
            "transaction.state.log.min.isr=1",
            "group.initial.rebalance.delay.ms=0",
            "group.min.session.timeout.ms=500",
            ""));
    Files.writeString(
        dir.resolve("logback.xml"),
        "<configuration><appender name=\"OUT\" class=\"ch.qos.logback.core.ConsoleAppender\">"
            + "<encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{20} - %msg%n</pattern>"
            + "</encoder></appender><root level=\"WARN\"><appender-ref ref=\"OUT\"/></root>"
            + "</configuration>\n");
    BrokerProcess broker = new BrokerProcess(dir, port);
    Process format =
        broker.java(
            "kafka.tools.StorageTool",
            "format",
            "-t",
            "aWRlbS1mYXVsdC1ydW4tMQ", // any base64 uuid: the cluster's id
            "-c",
            dir.resolve("server.properties").toString());
    if (!format.waitFor(120, TimeUnit.SECONDS) || format.exitValue() != 0) {
      format.destroyForcibly();
      throw new IOException("kafka: format failed, see " + dir.resolve("broker.log"));
    }
    broker.restart();
    return broker;
  }

  private Process java(String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx512m");
    cmd.add("-Dlogback.configurationFile=" + dir.resolve("logback.xml"));
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.addAll(List.of(args));
    return new ProcessBuilder(cmd)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("broker.log").toFile()))
        .start();
  }

  /** Starts the broker on its data (after {@link #kill}); returns once it takes connections. */
  void restart() throws IOException, InterruptedException {
    process = java("kafka.Kafka", dir.resolve("server.properties").toString());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline && process.isAlive()) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 500);
        return;
      } catch (IOException notYet) {
        Thread.sleep(200);
      }
    }
    process.destroyForcibly();
    throw new IOException("kafka: the broker did not start, see " + dir.resolve("broker.log"));
  }

  String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  /** SIGKILL: the broker's unflushed pages stay in the page cache, as after any process crash. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    if (process != null && process.isAlive()) {
      kill();
    }
  }
}
