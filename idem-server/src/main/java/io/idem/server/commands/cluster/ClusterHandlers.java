package io.idem.server.commands.cluster;

import io.idem.server.cluster.ClusterTopology;
import io.idem.server.cluster.Slots;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Parse;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;

/**
 * CLUSTER's subcommands and READONLY, READWRITE and ASKING, as Redis Cluster answers them, from the
 * configured topology: what cluster clients read to route by themselves.
 */
final class ClusterHandlers {

  /** Redis's text for a cluster command on a server that is not a cluster node. */
  static final String DISABLED = "ERR This instance has cluster support disabled";

  private ClusterHandlers() {}

  private static ClusterTopology topology(Call call) {
    ClusterTopology t = call.server().cluster();
    if (t == null) {
      throw new CommandException(DISABLED);
    }
    return t;
  }

  /**
   * CLUSTER INFO: Redis's fields. The state is fail while some range has no live node to serve it,
   * and its slots count as failed.
   */
  static Reply info(Call call) {
    ClusterTopology t = topology(call);
    int failed = 0;
    for (int i = 0; i < t.nodes().size(); i++) {
      if (!t.isLive(t.acting(i))) {
        int[] r = t.slotRange(i);
        failed += r[1] - r[0] + 1;
      }
    }
    String text =
        "cluster_state:"
            + (failed == 0 ? "ok" : "fail")
            + "\r\n"
            + "cluster_slots_assigned:16384\r\n"
            + "cluster_slots_ok:"
            + (Slots.COUNT - failed)
            + "\r\n"
            + "cluster_slots_pfail:0\r\n"
            + "cluster_slots_fail:"
            + failed
            + "\r\n"
            + "cluster_known_nodes:"
            + t.nodes().size()
            + "\r\n"
            + "cluster_size:"
            + t.nodes().size()
            + "\r\n"
            + "cluster_current_epoch:1\r\n"
            + "cluster_my_epoch:1\r\n"
            + "cluster_stats_messages_sent:0\r\n"
            + "cluster_stats_messages_received:0\r\n"
            + "total_cluster_links_buffer_limit_exceeded:0\r\n";
    return new Reply.Verbatim("txt", text); // a bulk string under RESP2
  }

  /** CLUSTER MYID: this node's 40-hex id. */
  static Reply myId(Call call) {
    return Reply.bulk(topology(call).self().id());
  }

  /** CLUSTER KEYSLOT key. */
  static Reply keySlot(Call call) {
    topology(call);
    return Reply.integer(Slots.of(call.arg(2)));
  }

  /**
   * CLUSTER SLOTS: one entry a range, its acting primary's address, then its live replicas'. A dead
   * node is left out, so clients move to the first live replica by themselves.
   */
  static Reply slots(Call call) {
    ClusterTopology t = topology(call);
    List<Reply> out = new ArrayList<>();
    for (int i = 0; i < t.nodes().size(); i++) {
      int[] r = t.slotRange(i);
      List<Reply> entry = new ArrayList<>(List.of(Reply.integer(r[0]), Reply.integer(r[1])));
      for (int j : t.liveServers(i)) {
        ClusterTopology.Node s = t.nodes().get(j);
        entry.add(Reply.array(Reply.bulk(s.host()), Reply.integer(s.port()), Reply.bulk(s.id())));
      }
      out.add(Reply.array(entry));
    }
    return Reply.array(out);
  }

  /**
   * CLUSTER SHARDS (Redis 7): a shard a range, with its acting primary, then every other node that
   * serves it, live or failed.
   */
  static Reply shards(Call call) {
    ClusterTopology t = topology(call);
    List<Reply> out = new ArrayList<>();
    for (int i = 0; i < t.nodes().size(); i++) {
      int[] r = t.slotRange(i);
      List<Reply> nodes = new ArrayList<>();
      int acting = t.acting(i);
      List<Integer> order = new ArrayList<>(List.of(acting));
      for (int k = 0; k < t.replicas(); k++) {
        int j = (i + k) % t.nodes().size();
        if (j != acting) {
          order.add(j);
        }
      }
      for (int j : order) {
        ClusterTopology.Node n = t.nodes().get(j);
        boolean primary = j == acting;
        nodes.add(
            Reply.map(
                List.of(
                    Reply.bulk("id"), Reply.bulk(n.id()),
                    Reply.bulk("port"), Reply.integer(n.port()),
                    Reply.bulk("ip"), Reply.bulk(n.host()),
                    Reply.bulk("endpoint"), Reply.bulk(n.host()),
                    Reply.bulk("role"), Reply.bulk(primary ? "master" : "replica"),
                    Reply.bulk("replication-offset"), Reply.integer(0),
                    Reply.bulk("health"), Reply.bulk(t.isLive(j) ? "online" : "failed"))));
      }
      out.add(
          Reply.map(
              List.of(
                  Reply.bulk("slots"),
                  Reply.array(Reply.integer(r[0]), Reply.integer(r[1])),
                  Reply.bulk("nodes"),
                  Reply.array(nodes))));
    }
    return Reply.array(out);
  }

  /**
   * CLUSTER NODES: Redis's line a node (id, address, flags, master, times, epoch, link, slots). A
   * node is a primary of the ranges it acts for; a failed node has the flag fail and no slots. The
   * format has no way to say a node is a primary of one range and a replica of another, so replicas
   * show in CLUSTER SLOTS and SHARDS only.
   */
  static Reply nodes(Call call) {
    ClusterTopology t = topology(call);
    StringBuilder b = new StringBuilder();
    for (int j = 0; j < t.nodes().size(); j++) {
      ClusterTopology.Node n = t.nodes().get(j);
      b.append(n.id())
          .append(' ')
          .append(n.address())
          .append('@')
          .append(n.port() + 10000 > 65535 ? 0 : n.port() + 10000)
          .append(j == t.me() ? " myself,master" : " master")
          .append(t.isLive(j) ? "" : ",fail")
          .append(" - 0 0 1 ")
          .append(t.isLive(j) ? "connected" : "disconnected");
      for (int i = 0; i < t.nodes().size(); i++) {
        if (t.acting(i) == j) {
          int[] r = t.slotRange(i);
          b.append(' ').append(r[0]).append('-').append(r[1]);
        }
      }
      b.append('\n');
    }
    String text = b.toString();
    return new Reply.Verbatim("txt", text); // a bulk string under RESP2
  }

  /**
   * WAITLOG key timeout: waits until this node has applied the key's partition up to where the log
   * ended when asked, so the reads that follow see every write acknowledged before, whichever node
   * took it. Replies the records waited for; 0 at once where a write is applied before it is
   * acknowledged (alone, or a cluster without a log). A timeout of 0 waits as long as it takes.
   */
  static Reply waitLog(Call call) {
    long timeout = Parse.longArg(call.arg(2), "ERR timeout is not an integer or out of range");
    if (timeout < 0) {
      throw CommandException.err("timeout is negative");
    }
    var clusterLog = call.server().clusterLog();
    if (clusterLog == null) {
      return Reply.ZERO;
    }
    var waited =
        clusterLog.waitApplied(Slots.of(call.arg(1)), timeout == 0 ? Long.MAX_VALUE : timeout);
    return new Reply.Deferred(
        waited.handle(
            (n, e) ->
                e == null
                    ? Reply.integer(n)
                    : Reply.err(
                        e instanceof java.util.concurrent.TimeoutException
                                || e.getCause() instanceof java.util.concurrent.TimeoutException
                            ? "WAITLOG timed out before this node applied the log up to its end"
                            : "WAITLOG failed: "
                                + (e.getCause() == null ? e : e.getCause()).getMessage())));
  }

  /** READONLY, READWRITE, ASKING: OK in a cluster, where each node serves its own slots. */
  static Reply ok(Call call) {
    topology(call);
    return Reply.OK;
  }
}
