package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.server.cluster.CommandProducer;
import io.idem.server.cluster.CommandRecord;
import io.idem.server.cluster.KafkaBroker;
import io.idem.server.cluster.Slots;
import io.idem.server.store.StoreFaults;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.RocksDBException;

/**
 * A cluster node with a Kafka log, against a real broker: its writes go through the log and are
 * answered with what applying them computed, records from a producer that is not Idem apply too, an
 * unreadable record changes nothing, and after a restart nothing is applied twice.
 */
class ClusterLogTest {

  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static int freePort() throws IOException {
    return Ports.free();
  }

  private ServerHarness node(KafkaBroker broker, int port, String... more) throws Exception {
    return new ServerHarness(
        dir.resolve("node"), LoneNode.settings(port, broker.bootstrapServers(), "idem", 4, more));
  }

  private static Map<String, Object> producerConfig(KafkaBroker broker) {
    return Map.of(
        "bootstrap.servers", broker.bootstrapServers(),
        "enable.idempotence", "true",
        "acks", "all",
        "key.serializer", ByteArraySerializer.class.getName(),
        "value.serializer", ByteArraySerializer.class.getName());
  }

  /**
   * A producer that is not Idem, to the replicated topic, whose records wait up to 200 ms to go in
   * one batch: a replica then has many records to apply at once.
   */
  private static CommandProducer batchedProducer(KafkaBroker broker) {
    Map<String, Object> batched = new HashMap<>(producerConfig(broker));
    batched.put("linger.ms", "200");
    batched.put("batch.size", Integer.toString(1 << 20));
    return new CommandProducer(new KafkaProducer<>(batched), "replicated", 4);
  }

  private static String render(Object reply) {
    return RespClient.text(reply);
  }

  /** DEDUP.CLAIM's reply as "answer owner". */
  private static String claim(Object reply) {
    List<?> r = (List<?>) reply;
    return r.get(0) + " " + new String((byte[]) r.get(1), StandardCharsets.UTF_8);
  }

  /** Waits until the command's reply is the expected one (a record applies a little later). */
  private static void eventually(RespClient c, Object expected, String... command)
      throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    Object got = null;
    while (System.nanoTime() < deadline) {
      got = c.call(command);
      if (expected.equals(got)) {
        return;
      }
      Thread.sleep(50);
    }
    assertThat(got).isEqualTo(expected);
  }

  @Test
  void writesGoThroughTheLog_outsideRecordsApply_andARestartAppliesNothingTwice() throws Exception {
    try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"))) {
      int port = freePort();
      Map<String, Object> producerConfig = producerConfig(broker);
      try (ServerHarness node = node(broker, port);
          RespClient c = new RespClient(port)) {
        assertThat(c.call("BF.ADD", "seen", "a")).isEqualTo(1L);
        assertThat(c.call("BF.ADD", "seen", "a")).isEqualTo(0L); // computed by the application
        assertThat(c.call("BF.EXISTS", "seen", "a")).isEqualTo(1L); // read your write
        assertThat(c.call("DEDUP.RESERVE", "d", "60")).isEqualTo("OK");
        assertThat(claim(c.call("DEDUP.CLAIM", "d", "id-1", "w1"))).isEqualTo("new w1");

        // The log holds the writes, as version-1 command records from node 0.
        List<String> names = new ArrayList<>();
        int partition = Slots.partition(Slots.of(b("seen")), 4);
        try (KafkaConsumer<byte[], byte[]> consumer =
            new KafkaConsumer<>(
                Map.of(
                    "bootstrap.servers", broker.bootstrapServers(),
                    "key.deserializer", ByteArrayDeserializer.class.getName(),
                    "value.deserializer", ByteArrayDeserializer.class.getName(),
                    "auto.offset.reset", "earliest"))) {
          consumer.assign(List.of(new TopicPartition("idem", partition)));
          long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
          while (names.size() < 2 && System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
              CommandRecord rec = CommandRecord.decode(r.value());
              assertThat(rec.origin()).isEqualTo(0);
              names.add(new String(rec.args().get(0), StandardCharsets.UTF_8));
            }
          }
        }
        assertThat(names).containsExactly("BF.ADD", "BF.ADD");

        // A producer that is not Idem writes a command, and some garbage, to the key's partition.
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig)) {
          int p = Slots.partition(Slots.of(b("loaded")), 4);
          producer.send(new ProducerRecord<>("idem", p, b("loaded"), b("not a record"))).get();
          byte[] value = CommandRecord.outside(List.of(b("BF.ADD"), b("loaded"), b("x"))).encode();
          producer.send(new ProducerRecord<>("idem", p, b("loaded"), value)).get();
        }
        eventually(c, 1L, "BF.EXISTS", "loaded", "x");
        // Records that are not keyed data commands of their partition are skipped, alike on every
        // node: none can leave the applier in MULTI, stop the node, flush it, or land a key in a
        // partition that does not hold its slot.
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig)) {
          int p = Slots.partition(Slots.of(b("loaded")), 4);
          int elsewhere = (p + 1) % 4;
          for (List<byte[]> hostile :
              List.of(
                  List.of(b("MULTI")),
                  List.of(b("SHUTDOWN"), b("NOSAVE")),
                  List.of(b("FLUSHALL")),
                  List.of(b("CHECKPOINT"), b("x")),
                  List.of(b("WAITLOG"), b("loaded"), b("0")))) {
            producer.send(
                new ProducerRecord<>("idem", p, null, CommandRecord.outside(hostile).encode()));
          }
          byte[] misrouted =
              CommandRecord.outside(List.of(b("BF.ADD"), b("loaded"), b("z"))).encode();
          producer.send(new ProducerRecord<>("idem", elsewhere, null, misrouted));
          byte[] after = CommandRecord.outside(List.of(b("BF.ADD"), b("loaded"), b("w"))).encode();
          producer.send(new ProducerRecord<>("idem", p, null, after)).get();
        }
        eventually(c, 1L, "BF.EXISTS", "loaded", "w"); // applied, not queued in a MULTI
        assertThat(c.call("BF.EXISTS", "loaded", "z")).isEqualTo(0L);
        assertThat(c.call("BF.EXISTS", "loaded", "x")).isEqualTo(1L); // not flushed
        assertThat(render(c.call("FLUSHALL"))).contains("FLUSHALL is not supported");
        assertThat(c.call("MULTI")).isEqualTo("OK");
        assertThat(render(c.call("CHECKPOINT"))).contains("not allowed inside a transaction");
        assertThat(c.call("BF.ADD", "{u}:x", "a")).isEqualTo("QUEUED");
        assertThat(c.call("PING")).isEqualTo("QUEUED");
        assertThat(render(c.call("EXEC"))).contains("EXECABORT"); // CHECKPOINT was refused
        assertThat(c.call("MULTI")).isEqualTo("OK");
        assertThat(c.call("BF.ADD", "{u}:x", "a")).isEqualTo("QUEUED");
        assertThat(c.call("PING")).isEqualTo("QUEUED");
        assertThat(render(c.call("EXEC"))).contains("only commands with keys");
        assertThat(c.call("EXISTS", "{u}:x")).isEqualTo(0L);
        // The same through the producer helper: a command, and a transaction at an old time.
        try (CommandProducer idem =
            new CommandProducer(new KafkaProducer<>(producerConfig), "idem", 4)) {
          idem.send("BF.ADD", "loaded", "y").get();
          idem.sendTransaction(
                  List.of(
                      List.of("BF.ADD", "{job}:seen", "e-1"),
                      List.of("COUNTER.INCRBY", "{job}:n", "*", "e", "5")))
              .get();
          long anHourAgo = System.currentTimeMillis() - 3_600_000;
          idem.send("COUNTER.INCRBY", "{job}:n", "*", "e", "7"); // now, beside the one an hour ago
          KafkaProducer<byte[], byte[]> raw = new KafkaProducer<>(producerConfig);
          try (raw) {
            raw.send(
                    idem.record(
                        anHourAgo,
                        List.of(
                            List.of(b("COUNTER.INCRBY"), b("{job}:n"), b("*"), b("e"), b("1")))))
                .get();
          }
          assertThatThrownBy(
                  () ->
                      idem.sendTransaction(
                          List.of(List.of("BF.ADD", "x", "1"), List.of("BF.ADD", "y", "1"))))
              .hasMessageContaining("one slot");
        }
        eventually(c, 1L, "BF.EXISTS", "loaded", "y");
        eventually(c, 1L, "BF.EXISTS", "{job}:seen", "e-1");
        // "*" is each record's time: 5 and 7 in the last minute, the old 1 only in the last 2 h.
        String since = Long.toString(System.currentTimeMillis());
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        String counts = "";
        while (!counts.equals("[[12, 13]]") && System.nanoTime() < deadline) {
          counts = render(c.call("COUNTER.QUERY", "{job}:n", since, "1m", "2h", "NAMES", "e"));
          Thread.sleep(50);
        }
        assertThat(counts).isEqualTo("[[12, 13]]");

        // A transaction is one record, applied as one and answered as EXEC.
        assertThat(c.call("MULTI")).isEqualTo("OK");
        assertThat(c.call("BF.ADD", "{u}:seen", "a")).isEqualTo("QUEUED");
        assertThat(c.call("BF.EXISTS", "{u}:seen", "a")).isEqualTo("QUEUED");
        assertThat(c.call("COUNTER.INCRBY", "{u}:clicks", "*", "home", "1")).isEqualTo("QUEUED");
        assertThat(render(c.call("EXEC"))).isEqualTo("[1, 1, 2]");
        int p = Slots.partition(Slots.of(b("{u}")), 4);
        try (KafkaConsumer<byte[], byte[]> consumer =
            new KafkaConsumer<>(
                Map.of(
                    "bootstrap.servers", broker.bootstrapServers(),
                    "key.deserializer", ByteArrayDeserializer.class.getName(),
                    "value.deserializer", ByteArrayDeserializer.class.getName(),
                    "auto.offset.reset", "earliest"))) {
          consumer.assign(List.of(new TopicPartition("idem", p)));
          List<CommandRecord> records = new ArrayList<>();
          long txDeadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
          while (records.isEmpty() && System.nanoTime() < txDeadline) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
              CommandRecord rec = CommandRecord.decode(r.value());
              if (rec.transaction() && rec.origin() == 0) { // the node's, not the helper's
                records.add(rec);
              }
            }
          }
          assertThat(records).hasSize(1);
          assertThat(records.get(0).commands()).hasSize(3);
        }
        assertThat(c.call("MULTI")).isEqualTo("OK");
        assertThat(c.call("BF.ADD", "x", "a")).isEqualTo("QUEUED");
        assertThat(c.call("BF.ADD", "y", "a")).isEqualTo("QUEUED");
        assertThat(render(c.call("EXEC"))).contains("EXECABORT").contains("CROSSSLOT");
        assertThat(c.call("EXISTS", "x")).isEqualTo(0L); // nothing ran
        assertThat(c.call("EXISTS", "y")).isEqualTo(0L);
        assertThat(render(c.call("WATCH", "x"))).contains("WATCH is not supported");
      }

      // Restarted on the same data: it resumes after the last record applied.
      try (ServerHarness node = node(broker, port);
          RespClient c = new RespClient(port)) {
        assertThat(c.call("BF.CARD", "seen")).isEqualTo(1L);
        assertThat(c.call("BF.CARD", "loaded")).isEqualTo(3L); // x, w and y
        assertThat(claim(c.call("DEDUP.CLAIM", "d", "id-1", "w2"))).isEqualTo("duplicate w1");
        assertThat(c.call("BF.ADD", "seen", "b")).isEqualTo(1L);
        assertThat(c.call("BF.CARD", "seen")).isEqualTo(2L);
      }
    }
  }

  private ServerHarness replica(KafkaBroker broker, String name, int[] ports) throws Exception {
    return replica(broker, name, ports, dir.resolve("replica-" + name));
  }

  private ServerHarness replica(
      KafkaBroker broker, String name, int[] ports, Path data, String... more) throws Exception {
    return replica(broker, name, ports, data, StoreFaults.NONE, more);
  }

  private ServerHarness replica(
      KafkaBroker broker, String name, int[] ports, Path data, StoreFaults faults, String... more)
      throws Exception {
    int port = ports[name.equals("a") ? 0 : 1];
    List<String> settings =
        new ArrayList<>(
            List.of(
                "port",
                Integer.toString(port),
                "cluster-enabled",
                "yes",
                "cluster-node",
                name,
                "cluster-nodes",
                "a=127.0.0.1:" + ports[0] + " b=127.0.0.1:" + ports[1],
                "cluster-partitions",
                "4",
                "cluster-replicas",
                "2",
                "cluster-log",
                broker.bootstrapServers(),
                "cluster-topic",
                "replicated"));
    settings.addAll(List.of(more));
    return new ServerHarness(data, faults, settings.toArray(String[]::new));
  }

  /** A field of INFO cluster. */
  private static String infoField(RespClient c, String field) throws IOException {
    for (String line : render(c.call("INFO", "cluster")).split("\r\n")) {
      if (line.startsWith(field + ":")) {
        return line.substring(field.length() + 1);
      }
    }
    return "";
  }

  @Test
  void aReplicaWhoseJournalFails_stopsApplyingAndLeaves_andCatchesUpWhenRestarted()
      throws Exception {
    try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"))) {
      int[] ports = {freePort(), freePort()};
      AtomicBoolean diskFull = new AtomicBoolean();
      StoreFaults faults =
          step -> {
            if (step == StoreFaults.Step.COMMIT_WRITE && diskFull.get()) {
              throw new RocksDBException("No space left on device");
            }
          };
      try (ServerHarness a = replica(broker, "a", ports);
          RespClient ca = new RespClient(ports[0])) {
        try (ServerHarness b =
                replica(broker, "b", ports, dir.resolve("replica-b"), faults, new String[0]);
            RespClient cb = new RespClient(ports[1])) {
          awaitInfo(ca, "cluster_live_nodes", "a,b");
          awaitInfo(cb, "cluster_live_nodes", "a,b");
          for (int i = 0; i < 20; i++) {
            assertThat(ca.call("BF.ADD", "k-" + i, "x")).isEqualTo(1L);
          }
          eventually(cb, 1L, "BF.EXISTS", "k-19", "x");
          diskFull.set(true);
          for (int i = 20; i < 60; i++) {
            assertThat(ca.call("BF.ADD", "k-" + (i % 20), "x-" + i)).isEqualTo(1L);
          }
          // b fails to write the first of those, stops at the next, and leaves the live nodes.
          awaitInfo(ca, "cluster_live_nodes", "a");
          // b counts itself as failed: it sends its clients to a, and says why.
          assertThat(render(cb.call("BF.ADD", "k-0", "y")))
              .contains("MOVED")
              .contains(":" + ports[0]);
          assertThat(infoField(cb, "cluster_log_status")).startsWith("stopped: MISCONF");
          long applied = Long.parseLong(infoField(cb, "cluster_log_applied"));
          Thread.sleep(300);
          assertThat(infoField(cb, "cluster_log_applied")).isEqualTo(Long.toString(applied));
          assertThat(applied).isLessThan(60); // stopped, not skipping on
        }
        try (ServerHarness b = replica(broker, "b", ports);
            RespClient cb = new RespClient(ports[1])) {
          for (int i = 20; i < 60; i++) {
            eventually(cb, 1L, "BF.EXISTS", "k-" + (i % 20), "x-" + i);
          }
          for (int i = 0; i < 20; i++) {
            assertThat(cb.call("BF.CARD", "k-" + i)).isEqualTo(ca.call("BF.CARD", "k-" + i));
          }
          awaitInfo(ca, "cluster_live_nodes", "a,b");
        }
      }
    }
  }

  @Test
  void withKafkaGone_aWriteGetsAnErrorInTime_andReadsGoOn() throws Exception {
    int port = freePort();
    ServerHarness node;
    try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"))) {
      node = node(broker, port, "cluster-write-timeout", "2000");
      try (RespClient c = new RespClient(port)) {
        assertThat(c.call("BF.ADD", "seen", "a")).isEqualTo(1L);
        // A write too large for a record is refused before it is copied, and said not applied
        // (finding 11: Kafka refused it, and the reply called its outcome unknown).
        String big = "x".repeat(2 << 20);
        assertThat(render(c.call("BF.ADD", "seen", big)))
            .contains("over the cluster log's limit")
            .contains("it was not applied");
        assertThat(c.call("BF.EXISTS", "seen", big)).isEqualTo(0L);
        // The test broker's topic has one replica: INFO warns (finding 13).
        assertThat(infoField(c, "cluster_log_durability"))
            .startsWith("warn: topic idem has replication factor 1 and min.insync.replicas 1");
        // A node alone may not change what filters the log's records make (finding 13).
        assertThat(render(c.call("CONFIG", "SET", "bf-layout", "blocked")))
            .contains("every node of a cluster with a log must make the same filters");
      }
    }
    try (node;
        RespClient c = new RespClient(port)) {
      Object r = c.call("BF.ADD", "seen", "b"); // the broker is gone: within 2 × 2 s, an error
      assertThat(render(r)).contains("the write's outcome is unknown");
      // INFO says so, and WAITLOG fails with Kafka's reason, not as a wait that ran out.
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!infoField(c, "cluster_log_status").startsWith("unreachable")
          && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(infoField(c, "cluster_log_status"))
          .startsWith("unreachable: no answer from Kafka");
      assertThat(render(c.call("WAITLOG", "seen", "20000")))
          .startsWith("Err[text=ERR WAITLOG failed: ");
      assertThat(c.call("PING")).isEqualTo("PONG");
      assertThat(c.call("BF.EXISTS", "seen", "a")).isEqualTo(1L);
      assertThat(c.call("BF.EXISTS", "seen", "b")).isEqualTo(0L);
    }
  }

  @Test
  void aNodeWhoseRecordsRetentionDeleted_refusesToStart() throws Exception {
    try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"))) {
      int port = freePort();
      try (ServerHarness node = node(broker, port);
          RespClient c = new RespClient(port)) {
        for (int i = 0; i < 20; i++) {
          assertThat(c.call("BF.ADD", "{r}", "x-" + i)).isEqualTo(1L);
        }
      }
      // Retention (here deleteRecords) removes the log's first records: a node with no state
      // cannot rebuild that partition from the log any more.
      int p = Slots.partition(Slots.of(b("{r}")), 4);
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
        admin
            .deleteRecords(Map.of(new TopicPartition("idem", p), RecordsToDelete.beforeOffset(5)))
            .all()
            .get();
      }
      assertThatThrownBy(
              () ->
                  new ServerHarness(
                      dir.resolve("empty"),
                      "port",
                      Integer.toString(port),
                      "cluster-enabled",
                      "yes",
                      "cluster-node",
                      "a",
                      "cluster-nodes",
                      "a=127.0.0.1:" + port,
                      "cluster-partitions",
                      "4",
                      "cluster-log",
                      broker.bootstrapServers()))
          .hasMessageContaining("partition " + p + ": this node's state ends at offset 0")
          .hasMessageContaining("the log now starts at 5");
      // The node that applied them all starts: its state goes past the deleted records.
      try (ServerHarness node = node(broker, port);
          RespClient c = new RespClient(port)) {
        assertThat(c.call("BF.CARD", "{r}")).isEqualTo(20L);
      }
      // The topic made again (or another topic named): the node's offsets are past its end, and
      // it refuses to start rather than apply new records over a state they never led to.
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
        admin.deleteTopics(List.of("idem")).all().get();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (admin.listTopics().names().get().contains("idem") && System.nanoTime() < deadline) {
          Thread.sleep(100);
        }
      }
      assertThatThrownBy(() -> node(broker, port))
          .hasMessageContaining("past the log's end at 0")
          .hasMessageContaining("is cluster-topic another topic");
    }
  }

  /** Waits until a field of INFO cluster has the value. */
  private static void awaitInfo(RespClient c, String field, String value) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    String got = infoField(c, field);
    while (!got.equals(value) && System.nanoTime() < deadline) {
      Thread.sleep(50);
      got = infoField(c, field);
    }
    assertThat(got).as(field).isEqualTo(value);
  }

  @Test
  void aNodeStartedFromAPeersCheckpoint_appliesOnlyTheRecordsAfterIt_andConverges()
      throws Exception {
    try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"))) {
      int[] ports = {freePort(), freePort()};
      try (ServerHarness a = replica(broker, "a", ports);
          RespClient ca = new RespClient(ports[0])) {
        Path checkpoint;
        try (ServerHarness b = replica(broker, "b", ports);
            RespClient cb = new RespClient(ports[1])) {
          for (int i = 0; i < 200; i++) {
            assertThat(ca.call("BF.ADD", "k-" + (i % 40), "x-" + i)).isEqualTo(1L);
          }
          for (int i = 0; i < 40; i++) {
            eventually(cb, 5L, "BF.CARD", "k-" + i);
          }
          assertThat(render(cb.call("CHECKPOINT", "../up"))).contains("a checkpoint's name is");
          checkpoint = Path.of(render(cb.call("CHECKPOINT", "before-join")));
          assertThat(checkpoint).isDirectory().startsWith(dir.resolve("replica-b"));
          assertThat(render(cb.call("CHECKPOINT", "before-join"))).contains("exists");
          for (int i = 200; i < 300; i++) {
            assertThat(ca.call("BF.ADD", "k-" + (i % 40), "x-" + i)).isEqualTo(1L);
          }
        }
        // A new node b, on another disk, filled from the old b's checkpoint: it reads the log
        // from the checkpoint's offsets, not from the start.
        try (ServerHarness b =
                replica(
                    broker,
                    "b",
                    ports,
                    dir.resolve("new-b"),
                    "load-checkpoint",
                    checkpoint.toString());
            RespClient cb = new RespClient(ports[1])) {
          for (int i = 0; i < 300; i++) {
            eventually(cb, 1L, "BF.EXISTS", "k-" + (i % 40), "x-" + i);
          }
          long applied = Long.parseLong(infoField(cb, "cluster_log_applied"));
          assertThat(applied).isBetween(100L, 299L); // the 100 after the checkpoint, and no more
          // than the ones the checkpoint may have missed; from the start it would be 300
          for (int i = 0; i < 40; i++) {
            assertThat(cb.call("BF.CARD", "k-" + i)).isEqualTo(ca.call("BF.CARD", "k-" + i));
          }
          assertThat(cb.call("DBSIZE")).isEqualTo(ca.call("DBSIZE"));
        }
        // Restarted with the same settings, the filled directory is used, not the checkpoint.
        // (It may send clients to a until it has caught up.)
        try (ServerHarness b =
            replica(
                broker,
                "b",
                ports,
                dir.resolve("new-b"),
                "load-checkpoint",
                checkpoint.toString())) {
          try (RespClient cb = new RespClient(ports[1])) {
            awaitInfo(cb, "cluster_log_caught_up", "1");
            assertThat(cb.call("BF.CARD", "k-0")).isEqualTo(ca.call("BF.CARD", "k-0"));
            assertThat(infoField(cb, "cluster_log_applied")).isEqualTo("0");
          }
        }
      }
    }
  }

  /**
   * A connection's commands run in its order (finding 2): a read pipelined after a write sees it,
   * whatever partition it went to; a read pipelined after WAITLOG sees every write the log held
   * when WAITLOG was asked. Both read local state at once before, ahead of the write or WAITLOG.
   */
  @Test
  void pipelinedCommands_runInTheConnectionsOrder_readsSeeTheWritesBeforeThem() throws Exception {
    try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"))) {
      int[] ports = {freePort(), freePort()};
      try (ServerHarness a = replica(broker, "a", ports);
          ServerHarness b = replica(broker, "b", ports);
          RespClient ca = new RespClient(ports[0]);
          RespClient cb = new RespClient(ports[1])) {
        awaitInfo(ca, "cluster_live_nodes", "a,b");
        awaitInfo(cb, "cluster_log_caught_up", "1");
        for (int i = 0; i < 200; i++) {
          ca.send("BF.ADD", "p-" + i, "x");
          ca.send("BF.EXISTS", "p-" + i, "x");
          ca.send("COUNTER.INCRBY", "{c}" + (i % 7), "*", "n", "1");
          ca.send("COUNTER.QUERY", "{c}" + (i % 7), "*", "1h", "NAMES", "n");
        }
        ca.flush();
        for (int i = 0; i < 200; i++) {
          assertThat(ca.read()).as("BF.ADD p-%d", i).isEqualTo(1L);
          assertThat(ca.read()).as("BF.EXISTS p-%d after its add", i).isEqualTo(1L);
          assertThat(ca.read()).isEqualTo(2L);
          assertThat(render(ca.read()))
              .as("COUNTER.QUERY after increment %d", i)
              .isEqualTo("[[" + (i / 7 + 1) + "]]");
        }
        // The same through the cluster clients that pipeline: Lettuce async with its flushes
        // held, JedisCluster's pipeline, redis-py's cluster pipeline. Each read follows its add.
        io.lettuce.core.cluster.RedisClusterClient lettuce =
            io.lettuce.core.cluster.RedisClusterClient.create(
                io.lettuce.core.RedisURI.create("redis://127.0.0.1:" + ports[0]));
        try (var conn = lettuce.connect()) {
          // Lettuce itself may reorder commands to a node whose connection it is still opening
          // (redis/lettuce#1951): open each node's connection first, by host and port, the key
          // its slot routing uses (a connection opened by node id is another one).
          for (var node : conn.getPartitions()) {
            conn.getConnection(node.getUri().getHost(), node.getUri().getPort()).sync().ping();
          }
          conn.setAutoFlushCommands(false);
          List<io.lettuce.core.RedisFuture<Long>> adds = new ArrayList<>();
          List<io.lettuce.core.RedisFuture<Long>> counts = new ArrayList<>();
          for (int i = 0; i < 200; i++) {
            adds.add(conn.async().pfadd("lettuce-" + i, "x"));
            counts.add(conn.async().pfcount("lettuce-" + i));
          }
          conn.flushCommands();
          for (int i = 0; i < 200; i++) {
            assertThat(adds.get(i).get(20, java.util.concurrent.TimeUnit.SECONDS))
                .as("Lettuce PFADD lettuce-%d", i)
                .isEqualTo(1L);
            assertThat(counts.get(i).get(20, java.util.concurrent.TimeUnit.SECONDS))
                .as("Lettuce PFCOUNT lettuce-%d after its PFADD", i)
                .isEqualTo(1L);
          }
        } finally {
          lettuce.shutdown(0, 2, java.util.concurrent.TimeUnit.SECONDS);
        }
        try (var jedis =
                new redis.clients.jedis.JedisCluster(
                    new redis.clients.jedis.HostAndPort("127.0.0.1", ports[0]));
            var pipeline = jedis.pipelined()) {
          List<redis.clients.jedis.Response<Long>> counts = new ArrayList<>();
          for (int i = 0; i < 200; i++) {
            pipeline.pfadd("jedis-" + i, "x");
            counts.add(pipeline.pfcount("jedis-" + i));
          }
          pipeline.sync();
          for (int i = 0; i < 200; i++) {
            assertThat(counts.get(i).get()).as("JedisCluster PFCOUNT jedis-%d", i).isEqualTo(1L);
          }
        }
        String script =
            "import redis\n"
                + "r = redis.RedisCluster(host='127.0.0.1', port="
                + ports[0]
                + ")\n"
                + "p = r.pipeline()\n"
                + "for i in range(200):\n"
                + "    p.execute_command('BF.ADD', 'py-%d' % i, 'x')\n"
                + "    p.execute_command('BF.EXISTS', 'py-%d' % i, 'x')\n"
                + "print(sorted(set(p.execute())))\n";
        Process py = new ProcessBuilder("/usr/bin/python3", "-").redirectErrorStream(true).start();
        try (var in = py.getOutputStream()) {
          in.write(script.getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(py.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(py.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(out).as("redis-py's cluster pipeline: every reply 1").isEqualTo("[1]\n");
        // Writes b has yet to apply: 3000 records from a producer that is not Idem, one batch.
        try (CommandProducer idem = batchedProducer(broker)) {
          for (int i = 0; i < 3000; i++) {
            idem.send("COUNTER.INCRBY", "{w}", "*", "n", "1");
          }
        }
        cb.send("WAITLOG", "{w}", "20000");
        cb.send("COUNTER.QUERY", "{w}", "*", "1h", "NAMES", "n");
        cb.flush();
        assertThat(cb.read()).isInstanceOf(Long.class);
        assertThat(render(cb.read())).as("read pipelined after WAITLOG").isEqualTo("[[3000]]");
      }
    }
  }

  /** A blocked reserve on its own connection, in a thread: its reply, or the error it met. */
  private static java.util.concurrent.CompletableFuture<Object> blockedReserve(
      int port, String key, String block) {
    return inBackground(port, "QUEUE.RESERVE", key, "LEASE", "1h", "BLOCK", block);
  }

  /** A command's reply, called on a connection of its own in a thread of its own. */
  private static java.util.concurrent.CompletableFuture<Object> inBackground(
      int port, String... command) {
    java.util.concurrent.CompletableFuture<Object> out =
        new java.util.concurrent.CompletableFuture<>();
    Thread.ofPlatform()
        .start(
            () -> {
              try (RespClient c = new RespClient(port)) {
                out.complete(c.call(command));
              } catch (Throwable t) {
                out.completeExceptionally(t);
              }
            });
    return out;
  }

  /** The id and token of the one job a reserve leased. */
  private static String[] leasedOne(Object reply) {
    List<?> jobs = (List<?>) reply;
    assertThat(jobs).hasSize(1);
    List<?> f = (List<?>) jobs.get(0);
    return new String[] {RespClient.text(f.get(0)), Long.toString((Long) f.get(2))};
  }

  /**
   * QUEUE.RESERVE ... BLOCK on nodes with a log: a reserve waits on its node and takes a job added
   * through another node, under a lease every replica holds alike; its timeout answers nil; twenty
   * waiters on two nodes take twenty jobs, each once; a waiter whose client went away leaves the
   * job to others.
   */
  @Test
  void blockedReserves_waitOnTheirNode_andTakeEachJobOnce() throws Exception {
    try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"))) {
      int[] ports = {freePort(), freePort()};
      try (ServerHarness a = replica(broker, "a", ports);
          ServerHarness b = replica(broker, "b", ports);
          RespClient ca = new RespClient(ports[0]);
          RespClient cb = new RespClient(ports[1])) {
        awaitInfo(ca, "cluster_live_nodes", "a,b");
        var first = blockedReserve(ports[0], "q", "20s");
        Thread.sleep(300);
        assertThat(first).isNotDone();
        assertThat(cb.call("QUEUE.ADD", "q", "job", "ID", "j1")).isInstanceOf(List.class);
        String[] j1 = leasedOne(first.get(20, java.util.concurrent.TimeUnit.SECONDS));
        assertThat(j1[0]).isEqualTo("j1");
        // The lease is the log's: node b holds it under the same token, and takes its ack.
        assertThat(cb.call("QUEUE.ACK", "q", "j1", j1[1])).isEqualTo(1L);
        eventually(ca, 0L, "QUEUE.ACK", "q", "j1", j1[1]);

        assertThat(ca.call("QUEUE.RESERVE", "empty", "BLOCK", "300ms")).isNull();

        List<java.util.concurrent.CompletableFuture<Object>> waiters = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
          waiters.add(blockedReserve(ports[i % 2], "many", "30s"));
        }
        Thread.sleep(500);
        List<String> madd = new ArrayList<>(List.of("QUEUE.MADD", "many"));
        for (int i = 0; i < 20; i++) {
          madd.addAll(List.of("JOB", "p", "ID", "m" + i));
        }
        assertThat((List<?>) ca.call(madd.toArray(String[]::new))).hasSize(20);
        java.util.Set<String> taken = new java.util.HashSet<>();
        for (var w : waiters) {
          String id = leasedOne(w.get(30, java.util.concurrent.TimeUnit.SECONDS))[0];
          assertThat(taken.add(id)).as("%s taken twice", id).isTrue();
        }
        assertThat(taken).hasSize(20);

        // A waiter whose client goes away: the job it may have taken is given back.
        try (RespClient gone = new RespClient(ports[0])) {
          gone.send("QUEUE.RESERVE", "left", "LEASE", "1h", "BLOCK", "30s");
          gone.flush();
          Thread.sleep(300);
        }
        Thread.sleep(200);
        assertThat(cb.call("QUEUE.ADD", "left", "job", "ID", "l1")).isInstanceOf(List.class);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        Object got = List.of();
        while (((List<?>) got).isEmpty() && System.nanoTime() < deadline) {
          got = cb.call("QUEUE.RESERVE", "left", "LEASE", "1h");
          Thread.sleep(50);
        }
        assertThat(leasedOne(got)[0]).isEqualTo("l1");
      }
    }
  }

  /**
   * IDEMKEY.BEGIN ... WAIT on nodes with a log: a begin waits on its node for a key held through
   * another node, and answers done with the first caller's result, started when the lease runs out
   * (under a token the log gave once), in_progress at its timeout; of ten waiters on two nodes for
   * an abandoned key one takes it over and the nine others get its result; a waiter whose client
   * went away leaves the key to the next retry.
   */
  @Test
  void waitingBegins_waitOnTheirNode_andOneCallerTakesEachKey() throws Exception {
    try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"))) {
      int[] ports = {freePort(), freePort()};
      try (ServerHarness a = replica(broker, "a", ports);
          ServerHarness b = replica(broker, "b", ports);
          RespClient ca = new RespClient(ports[0]);
          RespClient cb = new RespClient(ports[1])) {
        awaitInfo(ca, "cluster_live_nodes", "a,b");
        assertThat(ca.call("IDEMKEY.RESERVE", "ik", "1d")).isEqualTo("OK");
        long t1 = begun(ca.call("IDEMKEY.BEGIN", "ik", "k1", "LEASE", "1h"));
        var w1 = inBackground(ports[1], "IDEMKEY.BEGIN", "ik", "k1", "WAIT", "20s");
        Thread.sleep(300);
        assertThat(w1).isNotDone();
        assertThat(ca.call("IDEMKEY.COMPLETE", "ik", "k1", Long.toString(t1), "r1")).isEqualTo(1L);
        assertThat(render(w1.get(20, java.util.concurrent.TimeUnit.SECONDS)))
            .isEqualTo("[done, r1]");

        // A lease that runs out: the waiter takes the key over, under a new token the log holds.
        long t2 = begun(ca.call("IDEMKEY.BEGIN", "ik", "k2", "LEASE", "500ms"));
        Object over =
            inBackground(ports[1], "IDEMKEY.BEGIN", "ik", "k2", "LEASE", "1h", "WAIT", "20s")
                .get(20, java.util.concurrent.TimeUnit.SECONDS);
        long t2b = begun(over);
        assertThat(t2b).isNotEqualTo(t2);
        eventually(ca, 0L, "IDEMKEY.COMPLETE", "ik", "k2", Long.toString(t2), "late");
        assertThat(ca.call("IDEMKEY.COMPLETE", "ik", "k2", Long.toString(t2b), "r2")).isEqualTo(1L);

        begun(ca.call("IDEMKEY.BEGIN", "ik", "k3", "LEASE", "1h"));
        Object timedOut = cb.call("IDEMKEY.BEGIN", "ik", "k3", "WAIT", "300ms");
        assertThat(RespClient.text(((List<?>) timedOut).get(0))).isEqualTo("in_progress");
        assertThat((Long) ((List<?>) timedOut).get(1)).isPositive();

        // Ten waiters on two nodes, the holder abandons: one takes over, the others wait on.
        long t4 = begun(ca.call("IDEMKEY.BEGIN", "ik", "k4", "LEASE", "1h"));
        List<java.util.concurrent.CompletableFuture<Object>> waiters = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
          waiters.add(
              inBackground(
                  ports[i % 2], "IDEMKEY.BEGIN", "ik", "k4", "LEASE", "1h", "WAIT", "30s"));
        }
        Thread.sleep(500);
        assertThat(cb.call("IDEMKEY.ABANDON", "ik", "k4", Long.toString(t4))).isEqualTo(1L);
        java.util.concurrent.CompletableFuture<Object> winner =
            java.util.concurrent.CompletableFuture.anyOf(
                waiters.toArray(java.util.concurrent.CompletableFuture[]::new));
        long t4b = begun(winner.get(20, java.util.concurrent.TimeUnit.SECONDS));
        Thread.sleep(300);
        assertThat(waiters.stream().filter(java.util.concurrent.CompletableFuture::isDone))
            .as("one waiter took the key over")
            .hasSize(1);
        assertThat(cb.call("IDEMKEY.COMPLETE", "ik", "k4", Long.toString(t4b), "r4")).isEqualTo(1L);
        for (var w : waiters) {
          Object r = w.get(20, java.util.concurrent.TimeUnit.SECONDS);
          if (!RespClient.text(((List<?>) r).get(0)).equals("started")) {
            assertThat(render(r)).isEqualTo("[done, r4]");
          }
        }

        // A waiter whose client goes away: a key its record took over is abandoned again.
        long t5 = begun(ca.call("IDEMKEY.BEGIN", "ik", "k5", "LEASE", "1h"));
        try (RespClient gone = new RespClient(ports[0])) {
          gone.send("IDEMKEY.BEGIN", "ik", "k5", "LEASE", "1h", "WAIT", "30s");
          gone.flush();
          Thread.sleep(300);
        }
        Thread.sleep(200);
        assertThat(cb.call("IDEMKEY.ABANDON", "ik", "k5", Long.toString(t5))).isEqualTo(1L);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        Object got = cb.call("IDEMKEY.BEGIN", "ik", "k5", "LEASE", "1h");
        while (!RespClient.text(((List<?>) got).get(0)).equals("started")
            && System.nanoTime() < deadline) {
          Thread.sleep(50);
          got = cb.call("IDEMKEY.BEGIN", "ik", "k5", "LEASE", "1h");
        }
        begun(got);

        // A client gone before its first record came back: the key that record took is
        // abandoned through the log, not held for the hour of its lease.
        try (RespClient gone = new RespClient(ports[0])) {
          gone.send("IDEMKEY.BEGIN", "ik", "k6", "LEASE", "1h", "WAIT", "30s");
          gone.flush();
        }
        Thread.sleep(300); // its record is in the log before the retry's
        deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        got = cb.call("IDEMKEY.BEGIN", "ik", "k6", "LEASE", "1h");
        while (!RespClient.text(((List<?>) got).get(0)).equals("started")
            && System.nanoTime() < deadline) {
          Thread.sleep(50);
          got = cb.call("IDEMKEY.BEGIN", "ik", "k6", "LEASE", "1h");
        }
        begun(got);
      }
    }
  }

  /**
   * Records carry their producer's time, and producers' clocks differ: a record from a node whose
   * clock is behind is applied at its partition's last time instead, so a key's time never goes
   * back (a grouped queue restored from its snapshot and journal diverged from the log when it did:
   * a job made ready by an unlogged settle was leased by an earlier-stamped reserve). A node
   * restarted from its store keeps the times it stored with the offsets.
   */
  @Test
  void recordsFromASlowClock_areAppliedNoEarlierThanTheirPartitionsLastTime() throws Exception {
    try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"))) {
      int[] ports = {freePort(), freePort()};
      ServerHarness b = null;
      try (ServerHarness a = replica(broker, "a", ports)) {
        b = replica(broker, "b", ports, dir.resolve("replica-b"), "test-clock-offset", "-600000");
        try (RespClient ca = new RespClient(ports[0]);
            RespClient cb = new RespClient(ports[1])) {
          awaitInfo(ca, "cluster_live_nodes", "a,b");
          ca.call("QUEUE.ADD", "{q}", "first", "ID", "a1");
          long dueA = due(ca, "a1");
          cb.call("QUEUE.ADD", "{q}", "second", "ID", "b1");
          long dueB = due(cb, "b1");
          // Node b's clock is ten minutes behind: its record's own time would be.
          assertThat(dueB).isGreaterThanOrEqualTo(dueA);
          awaitJob(ca, "b1");
          assertThat(due(ca, "b1")).isEqualTo(dueB); // every node applies it at the same time
        }
        // Restarted from its store, b applies later records no earlier than what it stored.
        b.close();
        b = replica(broker, "b", ports, dir.resolve("replica-b"), "test-clock-offset", "-600000");
        try (RespClient ca = new RespClient(ports[0]);
            RespClient cb = new RespClient(ports[1])) {
          awaitInfo(ca, "cluster_live_nodes", "a,b");
          awaitInfo(cb, "cluster_log_caught_up", "1");
          long before = due(cb, "b1");
          cb.call("QUEUE.ADD", "{q}", "third", "ID", "b2");
          assertThat(due(cb, "b2")).isGreaterThanOrEqualTo(before);
          awaitJob(ca, "b2");
          assertThat(due(ca, "b2")).isEqualTo(due(cb, "b2"));
          // Each node shows its place in the log, partition by partition.
          assertThat(RespClient.text(cb.call("INFO", "cluster")))
              .containsPattern("cluster_log_offsets:0=\\d+,1=\\d+,2=\\d+,3=\\d+\r\n");
        }
      } finally {
        if (b != null) {
          b.close();
        }
      }
    }
  }

  /** Waits until the node has applied the record that added the job. */
  private static void awaitJob(RespClient c, String id) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (c.call("QUEUE.JOB", "{q}", id) == null) {
      assertThat(System.nanoTime()).as("job %s applied", id).isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  /** A job's due time, from QUEUE.JOB's flat map. */
  private static long due(RespClient c, String id) throws Exception {
    List<?> job = (List<?>) c.call("QUEUE.JOB", "{q}", id);
    for (int i = 0; i < job.size(); i += 2) {
      if (RespClient.text(job.get(i)).equals("due")) {
        return (Long) job.get(i + 1);
      }
    }
    throw new AssertionError("no due in " + RespClient.text(job));
  }

  /** The token of a begin that answered started. */
  private static long begun(Object reply) {
    List<?> r = (List<?>) reply;
    assertThat(RespClient.text(r.get(0))).as("%s", render(reply)).isEqualTo("started");
    return (Long) r.get(1);
  }

  @Test
  void twoReplicas_applyTheSameRecords_andAStoppedOneCatchesUp() throws Exception {
    try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"))) {
      int[] ports = {freePort(), freePort()};
      ServerHarness b = null;
      try (ServerHarness a = replica(broker, "a", ports);
          RespClient ca = new RespClient(ports[0])) {
        b = replica(broker, "b", ports);
        try (RespClient cb = new RespClient(ports[1])) {
          awaitInfo(ca, "cluster_live_nodes", "a,b");
          List<?> slots = (List<?>) ca.call("CLUSTER", "SLOTS");
          assertThat((List<?>) slots.get(0)).hasSize(4); // a range, its primary and its replica
          // Node a takes writes for every slot: it serves them all, as primary or replica.
          for (int i = 0; i < 50; i++) {
            assertThat(ca.call("BF.ADD", "k-" + i, "x")).isEqualTo(1L);
          }
          for (int i = 0; i < 50; i++) {
            eventually(cb, 1L, "BF.EXISTS", "k-" + i, "x");
          }
          assertThat(cb.call("BF.ADD", "k-0", "x")).isEqualTo(0L); // b's answer, from b's state
          assertThat(render(cb.call("WAITLOG", "w-0", "-1"))).contains("negative");
          // TOPK's coin flips come from the record, not from each node: the sketches stay equal.
          // Three buckets, three heavy items among many light ones: the counts the coin flips
          // leave differ from one seed to another (seen with a seed drawn on each node).
          assertThat(ca.call("TOPK.RESERVE", "{t}top", "5", "3", "1", "0.9")).isEqualTo("OK");
          for (int i = 0; i < 600; i++) {
            ca.call("TOPK.ADD", "{t}top", i % 2 == 0 ? "heavy-" + (i % 6) : "light-" + i);
          }
          String onA = render(ca.call("TOPK.LIST", "{t}top", "WITHCOUNT"));
          assertThat(onA).contains("heavy-");
          long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
          String onB = "";
          while (!onB.equals(onA) && System.nanoTime() < deadline) {
            onB = render(cb.call("TOPK.LIST", "{t}top", "WITHCOUNT"));
            Thread.sleep(50);
          }
          assertThat(onB).isEqualTo(onA);
        }
        b.close();
        b = null;
        // b left the group as it stopped: a reports itself as the primary of b's range too, and
        // b as failed.
        long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        String nodes = "";
        while (!nodes.contains("fail") && System.nanoTime() < until) {
          nodes = render(ca.call("CLUSTER", "NODES"));
          Thread.sleep(50);
        }
        assertThat(nodes).contains("master,fail - 0 0 1 disconnected\n");
        List<?> after = (List<?>) ca.call("CLUSTER", "SLOTS");
        for (Object range : after) {
          List<?> r = (List<?>) range;
          assertThat(r).hasSize(3); // the range and one live node: a
          assertThat(((List<?>) r.get(2)).get(1)).isEqualTo((long) ports[0]);
        }
        assertThat(render(ca.call("CLUSTER", "INFO"))).contains("cluster_state:ok");
        // With b stopped, a still takes every write; none is lost.
        for (int i = 50; i < 100; i++) {
          assertThat(ca.call("BF.ADD", "k-" + i, "x")).isEqualTo(1L);
        }
        for (int i = 0; i < 3000; i++) {
          ca.send("COUNTER.INCRBY", "{late}", "*", "n", "1");
        }
        ca.flush();
        for (int i = 0; i < 3000; i++) {
          assertThat(ca.read()).isEqualTo(2L); // counted at both default resolutions
        }
        b = replica(broker, "b", ports);
        try (RespClient cb = new RespClient(ports[1])) {
          // While b catches up it sends the clients of its slots to a: a read on b is never stale.
          String early = render(cb.call("COUNTER.QUERY", "{late}", "*", "1h", "NAMES", "n"));
          assertThat(early)
              .matches("Err\\[text=MOVED \\d+ 127\\.0\\.0\\.1:" + ports[0] + "]|\\[\\[3000]]");
          awaitInfo(cb, "cluster_log_caught_up", "1");
          awaitInfo(ca, "cluster_live_nodes", "a,b");
          // Caught up and live, b still lags the log by what it has not applied yet. 3000
          // increments from a producer that is not Idem, in one batch: a read after WAITLOG on b
          // sees them all (without WAITLOG this read falls short: checked).
          try (CommandProducer idem = batchedProducer(broker)) {
            for (int i = 0; i < 3000; i++) {
              idem.send("COUNTER.INCRBY", "{late}", "*", "n", "1");
            }
          } // close flushes: every record is in the log
          assertThat(cb.call("WAITLOG", "{late}", "20000")).isInstanceOf(Long.class);
          assertThat(render(cb.call("COUNTER.QUERY", "{late}", "*", "1h", "NAMES", "n")))
              .as("read after WAITLOG")
              .isEqualTo("[[6000]]");
          for (int i = 0; i < 100; i++) {
            eventually(cb, 1L, "BF.EXISTS", "k-" + i, "x");
          }
          assertThat(cb.call("DBSIZE")).isEqualTo(ca.call("DBSIZE"));
          for (int i = 0; i < 100; i += 7) {
            assertThat(cb.call("BF.CARD", "k-" + i)).isEqualTo(1L); // nothing applied twice
          }
        }
      } finally {
        if (b != null) {
          b.close();
        }
      }
    }
  }
}
