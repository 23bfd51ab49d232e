package io.idem.server.commands.cluster;

import static io.idem.server.dispatch.CommandSpec.Flag.FAST;
import static io.idem.server.dispatch.CommandSpec.Flag.LOADING;
import static io.idem.server.dispatch.CommandSpec.Flag.NO_MULTI;
import static io.idem.server.dispatch.CommandSpec.Flag.READONLY;
import static io.idem.server.dispatch.CommandSpec.Flag.STALE;
import static io.idem.server.dispatch.CommandSpec.command;
import static io.idem.server.dispatch.Documented.doc;

import io.idem.server.dispatch.CommandSpec;
import io.idem.server.dispatch.Container;
import io.idem.server.dispatch.Container.Sub;
import java.util.List;
import java.util.Set;

/** CLUSTER and the commands cluster clients send around it (docs/cluster.md). */
public final class ClusterCommands {

  private ClusterCommands() {}

  static final Container CLUSTER =
      new Container(
          "cluster",
          null,
          List.of(
              Sub.of(
                  "info",
                  2,
                  Set.of(LOADING, STALE),
                  "",
                  "Returns the state of the cluster.",
                  "O(1)",
                  ClusterHandlers::info),
              Sub.of(
                  "myid",
                  2,
                  Set.of(LOADING, STALE),
                  "",
                  "Returns this node's id.",
                  "O(1)",
                  ClusterHandlers::myId),
              Sub.of(
                  "keyslot",
                  3,
                  Set.of(LOADING, STALE),
                  "key",
                  "Returns the hash slot of a key.",
                  "O(N) where N is the number of bytes in the key",
                  ClusterHandlers::keySlot),
              Sub.of(
                  "slots",
                  2,
                  Set.of(LOADING, STALE),
                  "",
                  "Returns the slot ranges and the nodes that serve them.",
                  "O(N) where N is the number of nodes",
                  ClusterHandlers::slots),
              Sub.of(
                  "shards",
                  2,
                  Set.of(LOADING, STALE),
                  "",
                  "Returns the shards of the cluster: their slots and nodes.",
                  "O(N) where N is the number of nodes",
                  ClusterHandlers::shards),
              Sub.of(
                  "nodes",
                  2,
                  Set.of(LOADING, STALE),
                  "",
                  "Returns the cluster's nodes, one line each, as Redis Cluster's nodes.conf.",
                  "O(N) where N is the number of nodes",
                  ClusterHandlers::nodes)));

  /** The family's registration list. */
  public static List<CommandSpec> specs() {
    return List.of(
        command("cluster", -2, CLUSTER).build(),
        command("readonly", 1, ClusterHandlers::ok).flags(LOADING, STALE, FAST).build(),
        command("readwrite", 1, ClusterHandlers::ok).flags(LOADING, STALE, FAST).build(),
        command("asking", 1, ClusterHandlers::ok).flags(FAST).build(),
        command("waitlog", 3, doc("key timeout", ClusterHandlers::waitLog))
            .flags(READONLY, NO_MULTI)
            .key()
            .build());
  }
}
