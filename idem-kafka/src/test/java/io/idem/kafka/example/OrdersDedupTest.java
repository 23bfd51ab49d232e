package io.idem.kafka.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** docs/kafka.md's example does what the page says. */
class OrdersDedupTest {

  @TempDir Path state;

  @Test
  void eachOrderOnce_andEachCustomersCounts() {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "orders-dedup");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    p.put(StreamsConfig.STATE_DIR_CONFIG, state.toString());
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    try (TopologyTestDriver d = new TopologyTestDriver(OrdersDedup.topology().build(), p)) {
      TestInputTopic<String, String> in =
          d.createInputTopic("orders", Serdes.String().serializer(), Serdes.String().serializer());
      Instant t = Instant.parse("2026-11-01T10:00:00Z");
      in.pipeInput("order-1", "ann", t);
      in.pipeInput("order-1", "ann", t.plusSeconds(5)); // delivered twice
      in.pipeInput("order-2", "ann", t.plusSeconds(60));
      in.pipeInput("order-3", "bo", t.plusSeconds(90));
      assertThat(
              d.createOutputTopic(
                      "orders-unique",
                      Serdes.String().deserializer(),
                      Serdes.String().deserializer())
                  .readKeyValuesToList())
          .extracting(kv -> kv.key)
          .containsExactly("order-1", "order-2", "order-3");
      assertThat(
              d.createOutputTopic(
                      "orders-per-customer",
                      Serdes.String().deserializer(),
                      Serdes.String().deserializer())
                  .readKeyValuesToMap())
          .containsEntry("ann", "hour=2 day=2 week=2")
          .containsEntry("bo", "hour=1 day=1 week=1");
    }
  }
}
