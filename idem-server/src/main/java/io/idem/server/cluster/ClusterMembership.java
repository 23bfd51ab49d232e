package io.idem.server.cluster;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which nodes of the cluster are live, from Kafka's group membership: each node that has caught up
 * with its partitions joins one consumer group, and the group coordinator drops a member that stops
 * heart-beating for {@code cluster-node-timeout}. The group assigns no partition (each node tails
 * its own, configured ones); its assignment carries the members' names to every member, so all live
 * nodes learn the same list at each rebalance. The broker detects the failure: Idem adds no gossip
 * of its own.
 */
public final class ClusterMembership implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ClusterMembership.class);

  /** A member's client id: this and the node's name, which describing the group shows. */
  static final String CLIENT_PREFIX = "idem-member-";

  /** The consumer setting that hands this object to the assignor Kafka instantiates. */
  static final String SELF = "idem.membership";

  private final String name;
  private final Consumer<Set<String>> onChange;
  private final Consumer<String> onError;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Thread poller;
  private volatile boolean closing;

  /**
   * Joins the group {@code idem-members-<topic>} as {@code name} and starts polling it.
   *
   * @param onChange receives the live nodes' names after each rebalance, on the polling thread
   * @param onError receives why the membership stopped (a session timeout the brokers refuse, say):
   *     the node's view of the live nodes no longer changes then
   */
  public ClusterMembership(
      String bootstrap,
      String topic,
      String name,
      long nodeTimeoutMillis,
      Consumer<Set<String>> onChange,
      Consumer<String> onError) {
    this.name = name;
    this.onChange = onChange;
    this.onError = onError;
    Map<String, Object> config = new HashMap<>();
    config.put("bootstrap.servers", bootstrap);
    config.put("group.id", "idem-members-" + topic);
    config.put("group.protocol", "classic"); // the one whose assignment a client computes
    config.put("partition.assignment.strategy", Assignor.class.getName());
    config.put("session.timeout.ms", Long.toString(nodeTimeoutMillis));
    // Kafka wants the heartbeat well inside the session: a fifth of it, as its own defaults.
    config.put("heartbeat.interval.ms", Long.toString(Math.max(1, nodeTimeoutMillis / 5)));
    config.put("enable.auto.commit", "false");
    config.put("client.id", CLIENT_PREFIX + name);
    config.put("key.deserializer", ByteArrayDeserializer.class.getName());
    config.put("value.deserializer", ByteArrayDeserializer.class.getName());
    config.put(SELF, this);
    consumer = new KafkaConsumer<>(config);
    try {
      consumer.subscribe(List.of(topic));
    } catch (RuntimeException e) {
      consumer.close(Duration.ZERO);
      throw e;
    }
    poller = Thread.ofPlatform().name("idem-membership").daemon().start(this::poll);
  }

  /**
   * The names of the nodes in the group now, but {@code self} (a previous run of this node may
   * still be there until its session times out); none if the group cannot be described.
   */
  static Set<String> currentMembers(Admin admin, String topic, String self) {
    Set<String> names = new TreeSet<>();
    String group = "idem-members-" + topic;
    try {
      ConsumerGroupDescription d =
          admin.describeConsumerGroups(List.of(group)).all().get(10, TimeUnit.SECONDS).get(group);
      for (MemberDescription m : d.members()) {
        if (m.clientId().startsWith(CLIENT_PREFIX)) {
          names.add(m.clientId().substring(CLIENT_PREFIX.length()));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      log.warn("cannot describe the group {}: no node counts as live yet", group, e);
    }
    names.remove(self);
    return names;
  }

  private void poll() {
    try {
      while (!closing) {
        consumer.poll(Duration.ofMillis(200)); // assigned nothing: this only keeps the membership
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException | Error e) {
      log.error(
          "membership stopped (is cluster-node-timeout within the brokers'"
              + " group.min.session.timeout.ms and group.max.session.timeout.ms?): this node's"
              + " view of the live nodes no longer changes",
          e);
      onError.accept(String.valueOf(e.getMessage()));
    }
  }

  private void assigned(ByteBuffer userData) {
    Set<String> names = new TreeSet<>();
    try {
      ByteBuffer b = userData.duplicate();
      int count = b.getInt();
      for (int i = 0; i < count; i++) {
        byte[] n = new byte[Math.min(b.getShort() & 0xFFFF, b.remaining())];
        b.get(n);
        names.add(new String(n, StandardCharsets.UTF_8));
      }
    } catch (RuntimeException e) { // a member of another version, or not Idem: keep the last view
      log.warn("an assignment this node cannot read; the live nodes stay as they were", e);
      return;
    }
    log.info("live nodes: {}", names);
    onChange.accept(names);
  }

  @Override
  public void close() {
    closing = true;
    consumer.wakeup();
    try {
      poller.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    consumer.close(Duration.ofSeconds(5)); // leaves the group at once: the others see it go
  }

  /**
   * The group's assignor: each member subscribes with its node's name; the leader hands every
   * member the list of all names and no partition. Public for Kafka, which makes it by reflection.
   */
  public static final class Assignor implements ConsumerPartitionAssignor, Configurable {

    private ClusterMembership owner;

    @Override
    public void configure(Map<String, ?> configs) {
      owner = (ClusterMembership) configs.get(SELF);
    }

    @Override
    public ByteBuffer subscriptionUserData(Set<String> topics) {
      return ByteBuffer.wrap(owner.name.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public GroupAssignment assign(Cluster metadata, GroupSubscription group) {
      Map<String, Subscription> members = group.groupSubscription();
      Set<String> names = new TreeSet<>();
      for (Subscription s : members.values()) {
        if (s.userData() != null) {
          ByteBuffer b = s.userData().duplicate();
          byte[] n = new byte[Math.min(b.remaining(), 0xFFFF)];
          b.get(n);
          names.add(new String(n, StandardCharsets.UTF_8));
        }
      }
      List<byte[]> encoded = new ArrayList<>();
      int size = 4;
      for (String n : names) {
        byte[] e = n.getBytes(StandardCharsets.UTF_8);
        encoded.add(e);
        size += 2 + e.length;
      }
      ByteBuffer all = ByteBuffer.allocate(size).putInt(encoded.size());
      for (byte[] e : encoded) {
        all.putShort((short) e.length).put(e);
      }
      all.flip();
      Map<String, Assignment> out = new HashMap<>();
      for (String member : members.keySet()) {
        out.put(member, new Assignment(List.of(), all.duplicate()));
      }
      return new GroupAssignment(out);
    }

    @Override
    public void onAssignment(Assignment assignment, ConsumerGroupMetadata metadata) {
      owner.assigned(assignment.userData());
    }

    @Override
    public String name() {
      return "idem-members";
    }
  }
}
