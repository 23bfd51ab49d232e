package io.idem.server.cluster;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * One KRaft node (broker and controller in one) inside the test's JVM, from Kafka's own test kit:
 * what the cluster tests write to. Internal topics take one replica, which is all one broker has;
 * without that, consumer groups and transactions never become ready.
 */
public final class KafkaBroker implements AutoCloseable {

  private final KafkaClusterTestKit kit;

  private KafkaBroker(KafkaClusterTestKit kit) {
    this.kit = kit;
  }

  /** Formats a log directory under {@code dir} and starts the node; returns once it serves. */
  public static KafkaBroker start(Path dir) throws Exception {
    TestKitNodes nodes =
        new TestKitNodes.Builder()
            .setCombined(true)
            .setNumBrokerNodes(1)
            .setNumControllerNodes(1)
            .setBaseDirectory(dir)
            .build();
    KafkaClusterTestKit kit =
        new KafkaClusterTestKit.Builder(nodes)
            .setConfigProp("offsets.topic.replication.factor", "1")
            .setConfigProp("transaction.state.log.replication.factor", "1")
            .setConfigProp("transaction.state.log.min.isr", "1")
            .setConfigProp("group.initial.rebalance.delay.ms", "0")
            .setConfigProp(
                "group.min.session.timeout.ms", "500") // failover tests time out nodes in 2 s
            .build();
    try {
      kit.format();
      kit.startup();
      kit.waitForReadyBrokers();
    } catch (Exception | Error e) {
      kit.close();
      throw e;
    }
    return new KafkaBroker(kit);
  }

  public String bootstrapServers() {
    return kit.bootstrapServers();
  }

  /** Creates a topic of {@code partitions} partitions, one replica each. */
  public void createTopic(String name, int partitions) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers()))) {
      admin
          .createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
  }

  @Override
  public void close() throws Exception {
    kit.close();
  }
}
