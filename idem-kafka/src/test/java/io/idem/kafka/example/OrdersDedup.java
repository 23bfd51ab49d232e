package io.idem.kafka.example;

import io.idem.kafka.IdemCounts;
import io.idem.kafka.IdemDedup;
import io.idem.kafka.WindowCounts;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Produced;

/**
 * docs/kafka.md's example: orders keyed by order id come in at least once; each order goes on to
 * {@code orders-unique} once, and each customer's order counts over the last hour, day and week go
 * to {@code orders-per-customer}. Run it against a broker with topics {@code orders}, {@code
 * orders-unique} and {@code orders-per-customer}: {@code java ... OrdersDedup localhost:9092}.
 */
public final class OrdersDedup {

  private OrdersDedup() {}

  /** The topology: dedup by order id, then counts by customer (the value, here). */
  static StreamsBuilder topology() {
    StreamsBuilder b = new StreamsBuilder();
    KStream<String, String> unique =
        b.stream("orders", Consumed.with(Serdes.String(), Serdes.String()))
            .processValues(
                IdemDedup.<String, String>byKey(Serdes.String().serializer())
                    .window(Duration.ofDays(7))
                    .storeName("orders-seen")
                    .build());
    unique.to("orders-unique", Produced.with(Serdes.String(), Serdes.String()));
    unique
        .selectKey((orderId, customer) -> customer)
        .repartition()
        .processValues(
            IdemCounts.<String, String>byKey(Serdes.String().serializer())
                .storeName("orders-per-customer")
                .build())
        .mapValues(OrdersDedup::describe)
        .to("orders-per-customer", Produced.with(Serdes.String(), Serdes.String()));
    return b;
  }

  static String describe(WindowCounts c) {
    return "hour="
        + c.count(Duration.ofHours(1))
        + " day="
        + c.count(Duration.ofDays(1))
        + " week="
        + c.count(Duration.ofDays(7));
  }

  public static void main(String[] args) {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "orders-dedup");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args.length > 0 ? args[0] : "localhost:9092");
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    KafkaStreams streams = new KafkaStreams(topology().build(), p);
    Runtime.getRuntime().addShutdownHook(new Thread(streams::close));
    streams.start();
  }
}
