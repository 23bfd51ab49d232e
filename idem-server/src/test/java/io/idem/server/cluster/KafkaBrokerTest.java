package io.idem.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker the cluster tests run on: records produced as an Idem node will produce them
 * (idempotent, acks=all, one partition a slot range) come back from each partition in order.
 */
class KafkaBrokerTest {

  @TempDir Path dir;

  @Test
  void recordsProducedToASlotsPartition_areReadBackInOrder() throws Exception {
    int partitions = 6;
    try (KafkaBroker broker = KafkaBroker.start(dir)) {
      broker.createTopic("idem", partitions);
      Map<String, Object> p =
          Map.of(
              "bootstrap.servers", broker.bootstrapServers(),
              "enable.idempotence", "true",
              "acks", "all",
              "key.serializer", ByteArraySerializer.class.getName(),
              "value.serializer", ByteArraySerializer.class.getName());
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
        for (int i = 0; i < 600; i++) {
          byte[] key = ("key-" + i).getBytes();
          int partition = Slots.partition(Slots.of(key), partitions);
          sent.add(
              producer.send(
                  new ProducerRecord<>("idem", partition, key, Integer.toString(i).getBytes())));
        }
        producer.flush();
      }
      int[] perPartition = new int[partitions];
      for (Future<RecordMetadata> f : sent) {
        perPartition[f.get().partition()]++;
      }
      Map<String, Object> c =
          Map.of(
              "bootstrap.servers", broker.bootstrapServers(),
              "key.deserializer", ByteArrayDeserializer.class.getName(),
              "value.deserializer", ByteArrayDeserializer.class.getName(),
              "auto.offset.reset", "earliest",
              "enable.auto.commit", "false");
      for (int part = 0; part < partitions; part++) {
        assertThat(perPartition[part]).as("partition %d", part).isPositive();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c)) {
          TopicPartition tp = new TopicPartition("idem", part);
          consumer.assign(List.of(tp));
          List<Integer> values = new ArrayList<>();
          long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
          while (values.size() < perPartition[part] && System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
              assertThat(Slots.partition(Slots.of(r.key()), partitions)).isEqualTo(part);
              values.add(Integer.parseInt(new String(r.value())));
            }
          }
          assertThat(values).hasSize(perPartition[part]).isSorted();
        }
      }
    }
  }
}
