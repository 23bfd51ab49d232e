package io.idem.server.it;

import java.util.ArrayList;
import java.util.List;

/** The settings of a cluster node alone in its cluster ("a"), applying every partition of a log. */
final class LoneNode {

  private LoneNode() {}

  /** Its settings on {@code port}, with the topic's partitions, and {@code more} after them. */
  static String[] settings(
      int port, String bootstrap, String topic, int partitions, String... more) {
    List<String> settings =
        new ArrayList<>(
            List.of(
                "port",
                Integer.toString(port),
                "cluster-enabled",
                "yes",
                "cluster-node",
                "a",
                "cluster-nodes",
                "a=127.0.0.1:" + port,
                "cluster-partitions",
                Integer.toString(partitions),
                "cluster-log",
                bootstrap,
                "cluster-topic",
                topic));
    settings.addAll(List.of(more));
    return settings.toArray(String[]::new);
  }
}
