package io.idem.server.cluster;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * Which node serves which slots: every node of a cluster is configured with the same list of nodes
 * and the same number of partitions, and works the same answer out. Partitions are split among the
 * nodes in order and in contiguous runs, so each node serves one range of slots, as a Redis Cluster
 * primary usually does. The topology is configuration, not negotiated: there is no gossip and no
 * election to get wrong (docs/cluster.md). What changes at run time is which nodes are live ({@link
 * #setLive}, from Kafka's group membership): a range's acting primary, the node clients are sent
 * to, is the first live node among those that serve it.
 */
public final class ClusterTopology {

  /**
   * One node. {@code id} is the 40 hex digits Redis Cluster clients expect: the SHA-1 of the
   * configured name, so it is the same on every node and across restarts.
   */
  public record Node(String name, String id, String host, int port) {
    public String address() {
      return host + ":" + port;
    }
  }

  private final List<Node> nodes;
  private final int partitions;
  private final int replicas;
  private final int me;

  /** Whether this node serves each slot, as the primary or as a replica. */
  private final boolean[] mineBySlot = new boolean[Slots.COUNT];

  /** The range (its configured primary's index) of each slot, worked out once for routing. */
  private final short[] nodeBySlot = new short[Slots.COUNT];

  /** Which nodes are live; all of them until membership says otherwise. Replaced whole. */
  private volatile boolean[] live;

  /** One node a partition: as {@link #ClusterTopology(List, int, int, int)} with one replica. */
  public ClusterTopology(List<Node> nodes, int partitions, int me) {
    this(nodes, partitions, 1, me);
  }

  /**
   * @param nodes every node, in the configured order (at most 16384)
   * @param partitions the topic's partitions, at least one a node, at most 16384
   * @param replicas the nodes that serve each partition, 1 to the nodes: its primary and the nodes
   *     after it in order, wrapping around
   * @param me this node's index in {@code nodes}
   */
  public ClusterTopology(List<Node> nodes, int partitions, int replicas, int me) {
    nodes = List.copyOf(nodes);
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("cluster-nodes names no node");
    }
    if (partitions < nodes.size() || partitions > Slots.COUNT) {
      throw new IllegalArgumentException(
          "cluster-partitions ("
              + partitions
              + ") must be at least the nodes ("
              + nodes.size()
              + ") and at most 16384");
    }
    if (me < 0 || me >= nodes.size()) {
      throw new IllegalArgumentException("this node is not in cluster-nodes");
    }
    if (replicas < 1 || replicas > nodes.size()) {
      throw new IllegalArgumentException(
          "cluster-replicas (" + replicas + ") must be from 1 to the nodes (" + nodes.size() + ")");
    }
    this.nodes = nodes;
    this.partitions = partitions;
    this.replicas = replicas;
    this.me = me;
    this.live = new boolean[nodes.size()];
    Arrays.fill(live, true);
    for (int i = 0; i < nodes.size(); i++) {
      int[] range = slotRange(i);
      boolean mine = serves(i, me);
      for (int slot = range[0]; slot <= range[1]; slot++) {
        nodeBySlot[slot] = (short) i;
        mineBySlot[slot] = mine;
      }
    }
  }

  /** Whether node {@code j} serves the slots whose primary is node {@code i}. */
  private boolean serves(int i, int j) {
    return Math.floorMod(j - i, nodes.size()) < replicas;
  }

  /** The nodes that serve each partition. */
  public int replicas() {
    return replicas;
  }

  /** The nodes that serve node {@code i}'s slots: it first, then its replicas in order. */
  public List<Node> servers(int i) {
    List<Node> out = new ArrayList<>(replicas);
    for (int k = 0; k < replicas; k++) {
      out.add(nodes.get((i + k) % nodes.size()));
    }
    return out;
  }

  /**
   * The indexes of the nodes that serve node {@code i}'s slots as clients should see them now: the
   * acting primary first, then the other live servers in order (a failed replica is left out, as
   * Redis leaves it out of CLUSTER SLOTS).
   */
  public List<Integer> liveServers(int i) {
    boolean[] l = live; // one view for the whole answer
    int a = acting(i, l);
    List<Integer> out = new ArrayList<>(replicas);
    out.add(a);
    for (int k = 0; k < replicas; k++) {
      int j = (i + k) % nodes.size();
      if (j != a && l[j]) {
        out.add(j);
      }
    }
    return out;
  }

  /** Whether this node serves the partition, as its primary or as a replica. */
  public boolean servesPartition(int partition) {
    return mineBySlot[Slots.firstSlot(partition, partitions)];
  }

  public List<Node> nodes() {
    return nodes;
  }

  public int partitions() {
    return partitions;
  }

  /** This node's index in {@link #nodes}. */
  public int me() {
    return me;
  }

  /**
   * The topology from the settings' text: {@code nodes} is {@code name=host:port} words separated
   * by spaces, {@code self} the name of this node among them.
   *
   * @throws IllegalArgumentException with the setting's name when something is wrong
   */
  public static ClusterTopology parse(String nodes, String self, int partitions) {
    return parse(nodes, self, partitions, 1);
  }

  /** As {@link #parse(String, String, int)}, with {@code replicas} nodes serving each slot. */
  public static ClusterTopology parse(String nodes, String self, int partitions, int replicas) {
    List<Node> list = new ArrayList<>();
    Set<String> names = new HashSet<>();
    Set<String> addresses = new HashSet<>();
    int me = -1;
    for (String word : nodes.trim().split("\\s+")) {
      if (word.isEmpty()) {
        continue;
      }
      int eq = word.indexOf('=');
      int colon = word.lastIndexOf(':');
      if (eq <= 0 || colon < eq + 2 || colon == word.length() - 1) {
        throw new IllegalArgumentException("cluster-nodes: '" + word + "' is not name=host:port");
      }
      String name = word.substring(0, eq);
      String host = word.substring(eq + 1, colon);
      int port;
      try {
        port = Integer.parseInt(word.substring(colon + 1));
      } catch (NumberFormatException e) {
        port = -1;
      }
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("cluster-nodes: '" + word + "' has no valid port");
      }
      if (!names.add(name) || !addresses.add(host + ":" + port)) {
        throw new IllegalArgumentException("cluster-nodes: '" + word + "' is named twice");
      }
      if (name.equals(self)) {
        me = list.size();
      }
      list.add(new Node(name, idOf(name), host, port));
    }
    if (self.isEmpty()) {
      throw new IllegalArgumentException("cluster-node must name this node");
    }
    if (!list.isEmpty() && me < 0) {
      throw new IllegalArgumentException("cluster-node '" + self + "' is not among cluster-nodes");
    }
    return new ClusterTopology(list, partitions, replicas, me);
  }

  static String idOf(String name) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-1").digest(name.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-1", e);
    }
  }

  public Node self() {
    return nodes.get(me);
  }

  /** The first partition node {@code i} serves; it serves up to the next node's first. */
  public int firstPartition(int i) {
    return (int) ((long) i * partitions / nodes.size());
  }

  /** The slot's acting primary: the node MOVED sends a client to. */
  public Node nodeOfSlot(int slot) {
    return nodes.get(acting(nodeBySlot[slot]));
  }

  /** Whether the slot's acting primary is live: false when no server of its range is. */
  public boolean actingIsLive(int slot) {
    boolean[] l = live;
    return l[acting(nodeBySlot[slot], l)];
  }

  /**
   * The acting primary of node {@code i}'s range: the first live node among its servers, or its
   * configured primary when none is live (the range is down, and clients may as well wait there).
   */
  public int acting(int i) {
    return acting(i, live);
  }

  private int acting(int i, boolean[] l) {
    for (int k = 0; k < replicas; k++) {
      int j = (i + k) % nodes.size();
      if (l[j]) {
        return j;
      }
    }
    return i;
  }

  /** Whether node {@code j} is live, as membership last said. */
  public boolean isLive(int j) {
    return live[j];
  }

  /** Whether some range has no live server: CLUSTER INFO's cluster_state then says fail. */
  public boolean anyRangeDown() {
    boolean[] l = live;
    for (int i = 0; i < nodes.size(); i++) {
      if (!l[acting(i, l)]) {
        return true;
      }
    }
    return false;
  }

  /**
   * Takes the names of the live nodes; names not in the configuration are ignored (a node of
   * another configuration sharing the group, which the log will have warned of).
   *
   * @return whether the view changed
   */
  public boolean setLive(Collection<String> names) {
    boolean[] next = new boolean[nodes.size()];
    for (int j = 0; j < nodes.size(); j++) {
      next[j] = names.contains(nodes.get(j).name());
    }
    boolean changed = !Arrays.equals(next, live);
    live = next;
    return changed;
  }

  /** The live nodes' names, in configured order. */
  public List<String> liveNames() {
    boolean[] l = live;
    List<String> out = new ArrayList<>();
    for (int j = 0; j < nodes.size(); j++) {
      if (l[j]) {
        out.add(nodes.get(j).name());
      }
    }
    return out;
  }

  /** The index of the node named {@code name}, or -1. */
  public int indexOf(String name) {
    for (int j = 0; j < nodes.size(); j++) {
      if (nodes.get(j).name().equals(name)) {
        return j;
      }
    }
    return -1;
  }

  /** Whether this node serves the slot, as its primary or as a replica. */
  public boolean servesSlot(int slot) {
    return mineBySlot[slot];
  }

  /** Node i's slots: {first, last}, both included. */
  public int[] slotRange(int i) {
    int first = Slots.firstSlot(firstPartition(i), partitions);
    int end = Slots.firstSlot(firstPartition(i + 1), partitions);
    return new int[] {first, end - 1};
  }
}
