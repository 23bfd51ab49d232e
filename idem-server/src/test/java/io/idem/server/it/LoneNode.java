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

  /** A key in each of the log's partitions, in partition order: what WAITLOG takes, one each. */
  static List<String> keyInEachPartition(int partitions) {
    List<String> out = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      for (int i = 0; ; i++) {
        String key = "w-" + i;
        byte[] bytes = key.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (io.idem.server.cluster.Slots.partition(
                io.idem.server.cluster.Slots.of(bytes), partitions)
            == p) {
          out.add(key);
          break;
        }
      }
    }
    return out;
  }
}
