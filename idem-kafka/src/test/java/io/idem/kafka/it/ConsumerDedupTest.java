package io.idem.kafka.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.client.Dedup;
import io.idem.client.IdemClient;
import io.idem.kafka.ConsumerDedup;
import io.idem.server.cluster.KafkaBroker;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The consumer helper against a real broker and a real Idem server (the distribution jar, in its
 * own JVM): a new message is processed, a producer's duplicate is skipped with its holder, the same
 * record delivered again is a retry, and a failed record is released and delivered again.
 */
class ConsumerDedupTest {

  @TempDir static Path dir;
  private static KafkaBroker broker;
  private static Process server;
  private static IdemClient idem;

  @BeforeAll
  static void start() throws Exception {
    broker = KafkaBroker.start(dir.resolve("kafka"));
    server =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-cp",
                System.getProperty("idem.jar"),
                "io.idem.server.net.ServerMain",
                "port",
                "0",
                "dir",
                dir.resolve("idem").toString())
            .redirectError(dir.resolve("idem.log").toFile())
            .start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
    String ready = out.readLine();
    if (ready == null || !ready.startsWith("ready ")) {
      throw new IOException("the Idem server did not start: " + ready);
    }
    idem = IdemClient.create("redis://127.0.0.1:" + ready.substring(6).trim());
  }

  @AfterAll
  static void stop() throws Exception {
    if (idem != null) {
      idem.close();
    }
    if (server != null) {
      server.destroyForcibly().waitFor();
    }
    if (broker != null) {
      broker.close();
    }
  }

  private static void produce(String topic, String... keys) throws Exception {
    broker.createTopic(topic, 1);
    try (KafkaProducer<String, String> p =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", broker.bootstrapServers()),
            new StringSerializer(),
            new StringSerializer())) {
      for (String k : keys) {
        p.send(new ProducerRecord<>(topic, k, "order " + k)).get();
      }
    }
  }

  private static KafkaConsumer<String, String> consumer(String topic) {
    KafkaConsumer<String, String> c =
        new KafkaConsumer<>(
            Map.of(
                "bootstrap.servers",
                broker.bootstrapServers(),
                "group.id",
                topic + "-workers",
                "enable.auto.commit",
                "false",
                "auto.offset.reset",
                "earliest"),
            new StringDeserializer(),
            new StringDeserializer());
    c.assign(List.of(new TopicPartition(topic, 0)));
    return c;
  }

  private static ConsumerRecords<String, String> pollAll(
      KafkaConsumer<String, String> c, int expected) {
    List<ConsumerRecord<String, String>> got = new ArrayList<>();
    long deadline = System.nanoTime() + 30_000_000_000L;
    Map<TopicPartition, List<ConsumerRecord<String, String>>> byPartition =
        new java.util.HashMap<>();
    while (got.size() < expected && System.nanoTime() < deadline) {
      for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
        got.add(r);
        byPartition
            .computeIfAbsent(new TopicPartition(r.topic(), r.partition()), k -> new ArrayList<>())
            .add(r);
      }
    }
    assertThat(got).hasSize(expected);
    return new ConsumerRecords<>(byPartition, Map.of());
  }

  /** Records what the handler was given. */
  private static final class Seen implements ConsumerDedup.Handler<String, String> {
    final List<String> events = new ArrayList<>();
    String failOn = null;

    @Override
    public void onNew(ConsumerRecord<String, String> r) {
      if (r.key().equals(failOn)) {
        failOn = null;
        throw new IllegalStateException("the warehouse is down");
      }
      events.add("new " + r.key() + "@" + r.offset());
    }

    @Override
    public void onRetry(ConsumerRecord<String, String> r) {
      events.add("retry " + r.key() + "@" + r.offset());
    }

    @Override
    public void onDuplicate(ConsumerRecord<String, String> r, String holder) {
      events.add("duplicate " + r.key() + "@" + r.offset() + " held by " + holder);
    }
  }

  private static ConsumerDedup<String, String> dedup(String table) {
    Dedup d = idem.dedup(table);
    d.reserveExact(Duration.ofHours(1));
    return new ConsumerDedup<>(d, r -> r.key().getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void newDuplicateAndRetry() throws Exception {
    produce("orders", "a", "b", "a", "c");
    ConsumerDedup<String, String> dedup = dedup("orders-seen");
    Seen seen = new Seen();
    try (KafkaConsumer<String, String> c = consumer("orders")) {
      ConsumerRecords<String, String> records = pollAll(c, 4);
      // A crash after claiming c and before the commit: c's claim is its own record's.
      ConsumerRecord<String, String> c3 = records.records(new TopicPartition("orders", 0)).get(3);
      idem.dedup("orders-seen")
          .claimAll(
              List.of("c".getBytes(StandardCharsets.UTF_8)), List.of(ConsumerDedup.owner(c3)));
      dedup.process(c, records, seen);
      assertThat(c.committed(java.util.Set.of(new TopicPartition("orders", 0))))
          .extractingByKey(new TopicPartition("orders", 0))
          .satisfies(o -> assertThat(o.offset()).isEqualTo(4));
    }
    assertThat(seen.events)
        .containsExactly(
            "new a@0",
            "new b@1",
            "duplicate a@2 held by " + Integer.toHexString("orders".hashCode()) + "/0:0",
            "retry c@3");
  }

  @Test
  void aFailedRecord_isReleasedAndDeliveredAgain() throws Exception {
    produce("payments", "x", "y", "z");
    ConsumerDedup<String, String> dedup = dedup("payments-seen");
    Seen seen = new Seen();
    seen.failOn = "y";
    try (KafkaConsumer<String, String> c = consumer("payments")) {
      ConsumerRecords<String, String> first = pollAll(c, 3);
      assertThatThrownBy(() -> dedup.process(c, first, seen))
          .isInstanceOf(ConsumerDedup.DedupProcessingException.class)
          .hasMessageContaining("payments-0@1 failed");
      ConsumerRecords<String, String> again = pollAll(c, 2); // y and z, sought back to
      dedup.process(c, again, seen);
    }
    // y's claim was released, so y is new again (not a retry); z was claimed by the first poll
    // and not processed: the same record again is a retry.
    assertThat(seen.events).containsExactly("new x@0", "new y@1", "retry z@2");
  }
}
