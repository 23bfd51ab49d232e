package io.idem.server.cluster;

import io.idem.server.engine.Engine;
import io.idem.server.engine.Journal;
import io.idem.server.reply.Reply;
import io.idem.server.request.Command;
import io.idem.server.store.StoreFaults;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cluster node's log: Kafka is the source of truth for the node's partitions. A write becomes a
 * {@link CommandRecord} produced to its slot's partition (idempotent producer, acks=all); the
 * tailer applies the partitions' records in order, each at its record's timestamp, and stores the
 * next offset in the same journal command as the changes, so a restart resumes after the last
 * record applied, with nothing missing and nothing applied twice. The reply to the client that sent
 * the write is what applying its record computed.
 *
 * <p>Threads: the tailer owns the consumer and the membership (it joins once caught up and leaves
 * when it stops); the sender owns the producer's sends; event loops only queue records, register
 * replies and WAITLOG waiters.
 */
public final class ClusterLog implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ClusterLog.class);

  /** Writes waiting for their record to be applied, at most: more are answered TRYAGAIN. */
  static final int MAX_PENDING = 100_000;

  /**
   * The largest record a write may make: the producer's max.request.size, Kafka's default, less
   * room for the batch's own header. A larger write is refused before it is copied.
   */
  static final int MAX_RECORD_BYTES = 1_048_576 - 512;

  /** Bytes of records waiting for the producer thread, at most: more are answered TRYAGAIN. */
  static final long MAX_OUTGOING_BYTES = 64L << 20;

  /**
   * How a node uses the log.
   *
   * @param bootstrap Kafka's bootstrap servers
   * @param topic the topic of the cluster's log
   * @param nodeTimeoutMillis how long a node may be silent before the others count it as failed
   * @param writeTimeoutMillis how long a write may wait for Kafka to take it; a write not applied
   *     within twice this is answered with an error
   */
  public record Options(
      String bootstrap, String topic, long nodeTimeoutMillis, long writeTimeoutMillis) {}

  private final ClusterTopology topology;
  private final Options options;
  private final String topic;
  private final Engine engine;
  private final Journal journal;
  private final RecordApplier applier;
  private final StoreFaults faults;
  private final Supplier<@Nullable String> journalFailure;
  private final Admin admin;
  private final KafkaProducer<byte[], byte[]> producer;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Map<Long, CompletableFuture<Reply>> pending = new ConcurrentHashMap<>();
  private final AppliedOffsets offsets;

  /**
   * Each partition's latest applied time, Long.MIN_VALUE before the first record: a record an Idem
   * node produced is applied at its timestamp or this, whichever is later, so the nodes' differing
   * clocks never move a key's time back. Every node derives the same times from the same records,
   * and stores each beside its partition's offset. Touched by the tailer only.
   */
  private final long[] appliedTime;

  private final AtomicLong applied = new AtomicLong();

  /**
   * Request numbers: a random start for each process, so a record this node wrote before a restart,
   * applied again while it catches up, never answers a write of this run.
   */
  private final AtomicLong requests = new AtomicLong(new SecureRandom().nextLong() >>> 1);

  /** Records on their way to the producer: an event loop must never wait for Kafka. */
  private final BlockingQueue<Outgoing> outgoing = new ArrayBlockingQueue<>(10_000);

  /** The bytes of the records in {@link #outgoing}, bounded by {@link #MAX_OUTGOING_BYTES}. */
  private final AtomicLong outgoingBytes = new AtomicLong();

  private record Outgoing(long request, ProducerRecord<byte[], byte[]> record, long bytes) {}

  /** Each served partition's end offset at start: the tailer joins the live nodes there. */
  private @Nullable Map<TopicPartition, Long> catchUpTo;

  /** The live-node membership, owned by the tailer: null until it caught up, and after it stops. */
  private @Nullable ClusterMembership membership;

  private volatile boolean caughtUp;
  private volatile @Nullable String stopped;
  private volatile @Nullable String membershipError;
  private volatile boolean closing;
  private final Thread tailer;
  private final Thread sender;

  /**
   * Connects to the brokers, makes sure the topic has the cluster's partitions (creating it if it
   * is missing), and starts tailing this node's partitions from the stored offsets. Until it has
   * caught up, this node counts itself as not live, so it sends clients of its slots to a replica.
   *
   * @param applier runs a record's commands on this node, and tells which the log may carry
   * @param journalFailure why the journal cannot be written, or null while it can: the tailer stops
   *     rather than skip a record
   * @throws IllegalStateException if the topic exists with another partition count, the brokers
   *     cannot be reached, or the log no longer holds (or never held) this node's offsets
   */
  public ClusterLog(
      ClusterTopology topology,
      Options options,
      Engine engine,
      Journal journal,
      RecordApplier applier,
      Supplier<@Nullable String> journalFailure,
      StoreFaults faults) {
    this.topology = topology;
    this.options = options;
    this.topic = options.topic();
    this.engine = engine;
    this.journal = journal;
    this.applier = applier;
    this.faults = faults;
    this.journalFailure = journalFailure;
    this.offsets = new AppliedOffsets(topology.partitions());
    this.appliedTime = new long[topology.partitions()];
    java.util.Arrays.fill(appliedTime, Long.MIN_VALUE);
    Admin a = null;
    KafkaProducer<byte[], byte[]> p = null;
    KafkaConsumer<byte[], byte[]> c = null;
    try {
      a = Admin.create(Map.of("bootstrap.servers", options.bootstrap()));
      ensureTopic(a);
      p = newProducer(topology, options);
      c = newConsumer(topology, options);
      seekStoredOffsets(c);
    } catch (RuntimeException e) {
      closeQuietly(c, p, a);
      throw e;
    }
    admin = a;
    producer = p;
    consumer = c;
    // Until it has caught up this node is not live; the others are as the group says now.
    topology.setLive(ClusterMembership.currentMembers(a, topic, topology.self().name()));
    tailer = Thread.ofPlatform().name("idem-tailer").daemon().start(this::tail);
    sender = Thread.ofPlatform().name("idem-producer").daemon().start(this::send);
  }

  private static KafkaProducer<byte[], byte[]> newProducer(ClusterTopology t, Options o) {
    // linger.ms 0: a write waits for nothing before it is sent (a linger showed in the latency of
    // one write at a time: docs/benchmarks/cluster.md); under load, records batch up on their own
    // while earlier requests are in flight.
    Map<String, Object> config = new HashMap<>();
    config.put("bootstrap.servers", o.bootstrap());
    config.put("enable.idempotence", "true");
    config.put("acks", "all");
    config.put("linger.ms", "0");
    config.put("max.block.ms", Long.toString(o.writeTimeoutMillis() / 2));
    config.put("request.timeout.ms", Long.toString(o.writeTimeoutMillis() / 2));
    config.put("delivery.timeout.ms", Long.toString(o.writeTimeoutMillis()));
    config.put("client.id", "idem-" + t.self().name());
    config.put("key.serializer", ByteArraySerializer.class.getName());
    config.put("value.serializer", ByteArraySerializer.class.getName());
    return new KafkaProducer<>(config);
  }

  private static KafkaConsumer<byte[], byte[]> newConsumer(ClusterTopology t, Options o) {
    // auto.offset.reset none: a position the log no longer (or never) held is an error the tailer
    // stops on, never a silent jump that would skip records or apply them twice.
    Map<String, Object> config = new HashMap<>();
    config.put("bootstrap.servers", o.bootstrap());
    config.put("enable.auto.commit", "false");
    config.put("auto.offset.reset", "none");
    config.put("client.id", "idem-tailer-" + t.self().name());
    config.put("key.deserializer", ByteArrayDeserializer.class.getName());
    config.put("value.deserializer", ByteArrayDeserializer.class.getName());
    return new KafkaConsumer<>(config);
  }

  /** Assigns the served partitions and seeks each to its stored offset, checked against the log. */
  private void seekStoredOffsets(KafkaConsumer<byte[], byte[]> c) {
    List<TopicPartition> mine = new ArrayList<>();
    for (int p = 0; p < topology.partitions(); p++) {
      if (topology.servesPartition(p)) {
        mine.add(new TopicPartition(topic, p)); // as the primary or as a replica: the same records
      }
    }
    c.assign(mine);
    Map<TopicPartition, Long> starts = c.beginningOffsets(mine, Duration.ofSeconds(30));
    Map<TopicPartition, Long> ends = c.endOffsets(mine, Duration.ofSeconds(30));
    for (TopicPartition tp : mine) {
      byte[] stored = journal.meta(offsetName(tp.partition()));
      long next = stored == null ? 0 : ByteBuffer.wrap(stored).getLong();
      // Stores before the time was kept hold the offset alone: their time starts again.
      appliedTime[tp.partition()] =
          stored != null && stored.length >= 16
              ? ByteBuffer.wrap(stored).getLong(8)
              : Long.MIN_VALUE;
      long start = starts.getOrDefault(tp, 0L);
      long end = ends.getOrDefault(tp, 0L);
      if (next < start) {
        // Retention deleted records this node never applied: serving would hide the hole.
        throw new IllegalStateException(
            "partition "
                + tp.partition()
                + ": this node's state ends at offset "
                + next
                + " but the log now starts at "
                + start
                + " (retention passed it); start the node from a newer checkpoint"
                + " (docs/cluster.md, a node that joins)");
      }
      if (next > end) {
        throw new IllegalStateException(
            "partition "
                + tp.partition()
                + ": this node's state is at offset "
                + next
                + ", past the log's end at "
                + end
                + ": is cluster-topic another topic, or was the topic made again?");
      }
      c.seek(tp, next);
      offsets.advance(tp.partition(), next);
    }
    catchUpTo = new HashMap<>(ends);
  }

  /**
   * Makes the topic, or checks the one there. A topic another node has just made may not be known
   * to every broker yet (UnknownTopicOrPartition, a retriable error): asked again for up to 30 s.
   */
  private void ensureTopic(Admin a) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        ensureTopicOnce(a);
        return;
      } catch (IllegalStateException e) {
        boolean retriable =
            e.getCause() instanceof ExecutionException x
                && x.getCause() instanceof org.apache.kafka.common.errors.RetriableException;
        if (!retriable || System.nanoTime() > deadline) {
          throw e;
        }
        try {
          Thread.sleep(200);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  private void ensureTopicOnce(Admin a) {
    try {
      Set<String> names = a.listTopics().names().get(30, TimeUnit.SECONDS);
      if (!names.contains(topic)) {
        try {
          a.createTopics(
                  List.of(
                      new NewTopic(topic, Optional.of(topology.partitions()), Optional.empty())))
              .all()
              .get(30, TimeUnit.SECONDS);
          checkDurability(a);
          return;
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw e;
          } // another node made it first: check it as any existing topic
        }
      }
      TopicDescription d =
          a.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
      if (d.partitions().size() != topology.partitions()) {
        throw new IllegalStateException(
            "topic "
                + topic
                + " has "
                + d.partitions().size()
                + " partitions, and cluster-partitions says "
                + topology.partitions());
      }
      checkDurability(a);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reaching Kafka at " + options.bootstrap());
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "cannot reach Kafka at "
              + options.bootstrap()
              + " for topic "
              + topic
              + ": "
              + (e.getCause() == null ? e : e.getCause()).getMessage(),
          e);
    }
  }

  /**
   * Why the topic's settings do not keep an acknowledged write through a broker's loss, or null.
   */
  private volatile @Nullable String durabilityWarning;

  /**
   * Warns when the topic cannot keep an acknowledged write through the loss of one broker: that
   * takes a replication factor of at least 3 and min.insync.replicas of at least 2 (with acks=all,
   * which the producer sets). INFO cluster shows the warning too.
   */
  private void checkDurability(Admin a)
      throws InterruptedException, ExecutionException, TimeoutException {
    TopicDescription d =
        a.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
    int replicas = d.partitions().isEmpty() ? 0 : d.partitions().get(0).replicas().size();
    org.apache.kafka.common.config.ConfigResource resource =
        new org.apache.kafka.common.config.ConfigResource(
            org.apache.kafka.common.config.ConfigResource.Type.TOPIC, topic);
    var config = a.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
    var entry = config == null ? null : config.get("min.insync.replicas");
    int minIsr = entry == null || entry.value() == null ? 1 : Integer.parseInt(entry.value());
    if (replicas < 3 || minIsr < 2) {
      durabilityWarning =
          "topic "
              + topic
              + " has replication factor "
              + replicas
              + " and min.insync.replicas "
              + minIsr
              + ": an acknowledged write survives the loss of a broker only with at least 3 and 2"
              + " (docs/cluster.md)";
      log.warn(durabilityWarning);
    }
  }

  /** Why the topic does not keep acknowledged writes through a broker's loss, or null. */
  public @Nullable String durabilityWarning() {
    return durabilityWarning;
  }

  String offsetName(int partition) {
    return "offset/" + topic + "/" + partition;
  }

  // ---- writes, from the event loops

  /**
   * Produces the write to its slot's partition. The future completes with the reply applying its
   * record computes; or with an error reply if Kafka did not take it, if too many writes already
   * wait (TRYAGAIN, which cluster clients retry), if it was not applied in time, or if this node no
   * longer applies records.
   */
  public CompletableFuture<Reply> submit(Command command, int slot) {
    return submit(List.of(command), false, slot);
  }

  /**
   * As {@link #submit}, for a transaction's commands, all of whose keys are in {@code slot}: one
   * record, applied as one, answered with EXEC's reply.
   */
  public CompletableFuture<Reply> submitTransaction(List<Command> commands, int slot) {
    return submit(commands, true, slot);
  }

  private static final Reply TRY_AGAIN =
      Reply.error("TRYAGAIN too many writes are waiting for the cluster's log; retry");

  private CompletableFuture<Reply> submit(List<Command> commands, boolean transaction, int slot) {
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    String why = stopped;
    if (why != null) {
      reply.complete(Reply.error(why));
      return reply;
    }
    if (pending.size() >= MAX_PENDING) {
      reply.complete(TRY_AGAIN);
      return reply;
    }
    long size = CommandRecord.HEADER_BYTES;
    for (Command command : commands) {
      size += 4;
      for (int i = 0; i < command.size(); i++) {
        size += 4 + command.arg(i).length;
      }
    }
    if (size > MAX_RECORD_BYTES) {
      reply.complete(
          Reply.err(
              "the write is "
                  + size
                  + " bytes as a log record, over the cluster log's limit of "
                  + MAX_RECORD_BYTES
                  + "; it was not applied"));
      return reply;
    }
    if (outgoingBytes.addAndGet(size) > MAX_OUTGOING_BYTES) {
      outgoingBytes.addAndGet(-size);
      reply.complete(TRY_AGAIN);
      return reply;
    }
    List<List<byte[]>> lists = new ArrayList<>(commands.size());
    for (Command command : commands) {
      List<byte[]> args = new ArrayList<>(command.size());
      for (int i = 0; i < command.size(); i++) {
        args.add(command.arg(i));
      }
      lists.add(args);
    }
    long request = requests.incrementAndGet();
    byte[] value;
    try {
      value =
          (transaction
                  ? CommandRecord.transaction(topology.me(), request, lists)
                  : new CommandRecord(topology.me(), request, lists.get(0)))
              .encode();
    } catch (IllegalArgumentException e) { // too many arguments, or too many bytes, for a record
      outgoingBytes.addAndGet(-size);
      reply.complete(Reply.err("the write cannot be a log record: " + e.getMessage()));
      return reply;
    }
    pending.put(request, reply);
    long timeout = 2 * options.writeTimeoutMillis();
    reply
        .completeOnTimeout(
            Reply.err("the write was not applied within " + timeout + " ms; it may still be"),
            timeout,
            TimeUnit.MILLISECONDS)
        .whenComplete((r, e) -> pending.remove(request));
    int partition = Slots.partition(slot, topology.partitions());
    Command first = commands.get(0);
    byte[] kafkaKey = transaction || first.size() < 2 ? null : first.arg(1);
    if (!outgoing.offer(
        new Outgoing(
            request,
            // Stamped with this node's time, the time every node applies the record at: the
            // node that takes a write decides its time, as it decides everything else about it.
            new ProducerRecord<>(topic, partition, engine.now(), kafkaKey, value),
            size))) {
      outgoingBytes.addAndGet(-size);
      reply.complete(TRY_AGAIN);
    }
    return reply;
  }

  private void send() {
    try {
      while (!closing) {
        Outgoing o = outgoing.poll(100, TimeUnit.MILLISECONDS);
        if (o == null) {
          continue;
        }
        outgoingBytes.addAndGet(-o.bytes());
        if (!pending.containsKey(o.request())) {
          continue; // its client was answered already (timed out, gone): do not write it late
        }
        try {
          producer.send(
              o.record(),
              (meta, e) -> {
                if (e != null) {
                  unknownOutcome(o.request(), e);
                }
              });
        } catch (RuntimeException e) {
          unknownOutcome(o.request(), e); // no metadata or no buffer within max.block.ms, or closed
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Kafka did not confirm the record; it may have it all the same, and apply it. */
  private void unknownOutcome(long request, Exception e) {
    CompletableFuture<Reply> f = pending.remove(request);
    if (f != null && e instanceof org.apache.kafka.common.errors.RecordTooLargeException) {
      f.complete(
          Reply.err(
              "Kafka refused the record as too large ("
                  + e.getMessage()
                  + "); it was not applied"));
    } else if (f != null) {
      f.complete(
          Reply.err(
              "the write's outcome is unknown: Kafka did not confirm it ("
                  + e.getMessage()
                  + "); it may still be applied"));
    }
  }

  // ---- WAITLOG, from the event loops

  /**
   * WAITLOG: completes once this node has applied the slot's partition up to where it ended when
   * asked, so a read after it sees every write acknowledged before; with the records waited for, or
   * exceptionally after {@code timeoutMillis} or if the tailer stops.
   */
  public CompletableFuture<Long> waitApplied(int slot, long timeoutMillis) {
    int partition = Slots.partition(slot, topology.partitions());
    long from = offsets.next(partition);
    CompletableFuture<Long> done = new CompletableFuture<>();
    done.orTimeout(timeoutMillis, TimeUnit.MILLISECONDS)
        .whenComplete(
            (end, e) -> {
              if (e != null) {
                offsets.forget(partition, done);
              }
            });
    // Kafka's own timeout, shorter than the caller's: a broker that does not answer fails the
    // WAITLOG with its reason rather than running it out.
    int asked =
        (int)
            Math.max(
                1, Math.min(Math.min(timeoutMillis / 2, options.writeTimeoutMillis()), 60_000));
    admin
        .listOffsets(
            Map.of(new TopicPartition(topic, partition), OffsetSpec.latest()),
            new ListOffsetsOptions().timeoutMs(asked))
        .all()
        .whenComplete(
            (ends, e) -> {
              if (e != null) {
                done.completeExceptionally(e);
              } else {
                offsets.await(partition, ends.values().iterator().next().offset(), done);
              }
            });
    return done.thenApply(end -> Math.max(0, end - from));
  }

  // ---- the tailer

  private void tail() {
    String why = null;
    try {
      while (!closing) {
        why = failure();
        if (why != null) {
          break;
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          why = failure();
          if (why != null) {
            break;
          }
          apply(r);
        }
        if (why != null) {
          break;
        }
        if (catchUpTo != null) {
          joinWhenCaughtUp();
        }
        probeBrokers();
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException | Error e) {
      log.error("the tailer stopped", e);
      why = "ERR this node stopped applying the cluster's log: " + e;
    } finally {
      if (why != null) {
        stopApplying(why);
      }
      leave();
    }
  }

  private @Nullable String failure() {
    String f = journalFailure.get();
    return f == null
        ? null
        : "MISCONF Idem cannot write its log, so this node applies no more writes: " + f;
  }

  /**
   * Joins the membership once every served partition is applied up to where it ended when the node
   * started: until then clients are sent to a replica, and a restarted node's reads are not stale
   * by the whole time it was down.
   */
  private void joinWhenCaughtUp() {
    Map<TopicPartition, Long> target = catchUpTo;
    target.entrySet().removeIf(e -> consumer.position(e.getKey()) >= e.getValue());
    if (!target.isEmpty()) {
      return;
    }
    catchUpTo = null;
    log.info("caught up with partitions {}: joining the live nodes", consumer.assignment());
    try {
      membership =
          new ClusterMembership(
              options.bootstrap(),
              topic,
              topology.self().name(),
              options.nodeTimeoutMillis(),
              topology::setLive,
              error -> membershipError = error);
    } catch (RuntimeException e) {
      membershipError = e.getMessage();
      log.error(
          "this node cannot join the live nodes, so clients are not sent to it: {}",
          e.getMessage());
    }
    caughtUp = true;
  }

  /** Leaves the live nodes (on the tailer thread, which owns the membership). */
  private void leave() {
    ClusterMembership m = membership;
    membership = null;
    if (m != null) {
      m.close(); // the others see this node go at once, and send its clients elsewhere
    }
  }

  /**
   * The tailer cannot go on: a journal failure (which does not recover before a restart: applying
   * on would change only memory, and skipping would leave a gap), or an error. The node counts
   * itself as failed so it sends clients elsewhere, leaves the live nodes, and answers its waiting
   * writes and WAITLOGs with the reason. Restarted, it resumes after the last record its store
   * holds.
   */
  private void stopApplying(String why) {
    log.error("{}: this node stops applying records until it restarts", why);
    stopped = why;
    List<String> live = new ArrayList<>(topology.liveNames());
    live.remove(topology.self().name());
    topology.setLive(live);
    failPending(why);
    offsets.failAll(why);
  }

  private void failPending(String why) {
    for (Long request : List.copyOf(pending.keySet())) {
      CompletableFuture<Reply> f = pending.remove(request);
      if (f != null) {
        f.complete(Reply.error(why));
      }
    }
  }

  /** Whether this node has applied its partitions up to where they ended when it started. */
  public boolean caughtUp() {
    return caughtUp && stopped == null;
  }

  /** When the brokers last answered a probe (millis since the epoch); 0 before the first. */
  private volatile long brokersAnsweredAt = System.currentTimeMillis();

  private volatile @Nullable String brokersError;
  private volatile boolean probing;
  private long probedAt;

  /**
   * From the tailer, at most once a second: asks the brokers who they are, without waiting, so INFO
   * can say when Kafka stops answering (a poll that gets no records says nothing either way).
   */
  private void probeBrokers() {
    long now = System.currentTimeMillis();
    if (probing || now - probedAt < 1000) {
      return;
    }
    probing = true;
    probedAt = now;
    int timeout = (int) Math.min(5000, options.nodeTimeoutMillis());
    admin
        .describeCluster(new DescribeClusterOptions().timeoutMs(timeout))
        .nodes()
        .whenComplete(
            (nodes, e) -> {
              if (e == null) {
                brokersAnsweredAt = System.currentTimeMillis();
                brokersError = null;
              } else {
                brokersError = e.getMessage();
              }
              probing = false;
            });
  }

  /**
   * Whether the brokers answer: null while they do, else why not and since when. A node that cannot
   * reach Kafka times its writes out and serves reads from the state it has.
   */
  public @Nullable String brokersUnreachable() {
    String error = brokersError;
    long silent = System.currentTimeMillis() - brokersAnsweredAt;
    if (error == null && silent < Math.max(5000, 2 * options.nodeTimeoutMillis())) {
      return null;
    }
    return "no answer from Kafka for "
        + silent / 1000
        + " s"
        + (error == null ? "" : " (" + error + ")");
  }

  /** Why this node stopped applying records, or null while it applies them. */
  public @Nullable String stopped() {
    return stopped;
  }

  /** Why this node could not join or keep its membership of the live nodes, or null. */
  public @Nullable String membershipError() {
    return membershipError;
  }

  /**
   * The next offset this node will apply in each partition it serves, as {@code partition=offset}
   * pairs (INFO cluster's cluster_log_offsets): the position of this node's replicas in the log.
   */
  public String appliedOffsets() {
    StringBuilder b = new StringBuilder();
    for (int p = 0; p < topology.partitions(); p++) {
      if (topology.servesPartition(p)) {
        b.append(b.isEmpty() ? "" : ",").append(p).append('=').append(offsets.next(p));
      }
    }
    return b.toString();
  }

  /** Records this node has applied (or skipped) since it started. */
  public long applied() {
    return applied.get();
  }

  private static final Command MULTI = new Command(new byte[][] {"MULTI".getBytes()});
  private static final Command EXEC = new Command(new byte[][] {"EXEC".getBytes()});
  private static final Command DISCARD = new Command(new byte[][] {"DISCARD".getBytes()});

  /** Applies one record and stores the offset after it, in one journal command. */
  private void apply(ConsumerRecord<byte[], byte[]> r) {
    CommandRecord rec = null;
    try {
      rec = CommandRecord.decode(r.value() == null ? new byte[0] : r.value());
    } catch (CommandRecord.BadRecordException e) {
      log.warn(
          "skipped record {} of {}-{}: {}", r.offset(), r.topic(), r.partition(), e.getMessage());
    }
    List<Command> commands = rec == null ? List.of() : commandsOf(rec, r);
    Reply reply = null;
    // A node stamps its records with its clock, which may run behind another's: such a record
    // applies at its partition's last time. A record from outside carries the time its producer
    // meant (old events loaded late), and applies at it.
    boolean byNode = rec != null && rec.origin() != CommandRecord.OUTSIDE;
    long at = byNode ? Math.max(r.timestamp(), appliedTime[r.partition()]) : r.timestamp();
    long latest = Math.max(appliedTime[r.partition()], at);
    // The record's keys stay locked until its changes and offset are numbered, together, when the
    // transaction closes: the handlers' own writes nest inside it and unlock before that, and a
    // snapshot imaging a key in between would hold a change the log replays on top of it.
    try (Engine.Transaction locked = engine.transaction(applier.keysOf(commands))) {
      if (rec != null && commands.isEmpty()) {
        reply = Reply.err("the log carries only keyed data commands of the record's partition");
      } else if (rec != null) {
        boolean transaction = rec.transaction();
        reply = engine.at(at, () -> run(commands, transaction));
      }
      try {
        faults.at(StoreFaults.Step.APPLY_BEFORE_OFFSET);
      } catch (org.rocksdb.RocksDBException e) {
        throw new IllegalStateException(e);
      }
      journal.putMeta(
          offsetName(r.partition()),
          ByteBuffer.allocate(16).putLong(r.offset() + 1).putLong(latest).array());
    }
    appliedTime[r.partition()] = latest;
    applied.incrementAndGet();
    offsets.advance(r.partition(), r.offset() + 1);
    if (rec != null && rec.origin() == topology.me()) {
      CompletableFuture<Reply> f = pending.remove(rec.request());
      if (f != null) {
        f.complete(reply);
      }
    }
  }

  /**
   * The record's commands, or none if one of them may not be in the log (not a keyed data command,
   * or a key of another partition than the record's): every replica skips the same records.
   */
  private List<Command> commandsOf(CommandRecord rec, ConsumerRecord<byte[], byte[]> r) {
    List<Command> out = new ArrayList<>(rec.commands().size());
    for (List<byte[]> c : rec.commands()) {
      Command command = new Command(c.toArray(byte[][]::new));
      int slot = applier.logSlot(command);
      if (slot < 0 || Slots.partition(slot, topology.partitions()) != r.partition()) {
        log.warn(
            "skipped record {} of {}-{}: {} is not a keyed data command of this partition",
            r.offset(),
            r.topic(),
            r.partition(),
            new String(c.get(0), java.nio.charset.StandardCharsets.UTF_8));
        return List.of();
      }
      out.add(command);
    }
    return out;
  }

  /** Runs a record's command, or its transaction as MULTI, the commands and EXEC. */
  private Reply run(List<Command> commands, boolean transaction) {
    if (!transaction) {
      return applier.apply(commands.get(0));
    }
    boolean done = false;
    try {
      applier.apply(MULTI);
      for (Command c : commands) {
        applier.apply(c);
      }
      Reply exec = applier.apply(EXEC);
      done = true;
      return exec;
    } finally {
      if (!done) {
        applier.apply(DISCARD); // the applier's session must not stay in a transaction
      }
    }
  }

  // ---- closing

  private static void closeQuietly(@Nullable AutoCloseable... clients) {
    for (AutoCloseable c : clients) {
      if (c == null) {
        continue;
      }
      try {
        c.close();
      } catch (Exception e) {
        log.debug("closing a Kafka client", e);
      }
    }
  }

  @Override
  public void close() {
    closing = true;
    consumer.wakeup();
    boolean tailerStopped = join(tailer);
    join(sender);
    if (tailerStopped) {
      closeQuietly(consumer); // the consumer is the tailer's: closed only once it has stopped
    } else {
      log.warn("the tailer did not stop within 10 s; its Kafka consumer is left open");
    }
    closeQuietly(producer, admin);
    failPending("ERR the node stopped before the write was applied; it may still be");
    offsets.failAll("the node is stopping");
  }

  private static boolean join(Thread t) {
    try {
      t.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return !t.isAlive();
  }
}
