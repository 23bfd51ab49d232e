package io.idem.server.cluster;

import io.idem.server.dispatch.Command;
import io.idem.server.engine.Engine;
import io.idem.server.engine.Journal;
import io.idem.server.reply.Reply;
import java.nio.ByteBuffer;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
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
 */
public final class ClusterLog implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ClusterLog.class);

  private final ClusterTopology topology;
  private final String topic;
  private final Engine engine;
  private final Journal journal;
  private final Function<Command, Reply> applier;
  private final Supplier<@Nullable String> journalFailure;
  private final KafkaProducer<byte[], byte[]> producer;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Map<Long, CompletableFuture<Reply>> pending = new ConcurrentHashMap<>();
  private final AtomicLong requests = new AtomicLong();
  private final Thread tailer;
  private final String bootstrap;
  private final Options options;

  /**
   * How a node uses the log.
   *
   * @param bootstrap Kafka's bootstrap servers
   * @param topic the topic of the cluster's log
   * @param nodeTimeoutMillis how long a node may be silent before the others count it as failed
   * @param writeTimeoutMillis how long a write may wait for Kafka to take it; its client hears of a
   *     failure by then, and of a record not applied a little later
   */
  public record Options(
      String bootstrap, String topic, long nodeTimeoutMillis, long writeTimeoutMillis) {}

  /** Each served partition's end offset at start: membership waits until the tailer is there. */
  private Map<TopicPartition, Long> catchUpTo;

  private volatile ClusterMembership membership;

  /** Asks the brokers where partitions end, for WAITLOG. */
  private final Admin admin;

  /** The next offset to apply, by partition: what WAITLOG waits on. */
  private final long[] nextOffset;

  /** WAITLOG's waiters, by partition: the offset each waits for, and its reply. */
  private final List<java.util.PriorityQueue<Waiter>> waiters;

  private record Waiter(long offset, CompletableFuture<Long> done) {}

  private final AtomicLong applied = new AtomicLong();
  private volatile boolean closing;

  /**
   * Connects to the brokers, makes sure the topic has the cluster's partitions (creating it if it
   * is missing), and starts tailing this node's partitions from the stored offsets.
   *
   * @param applier runs one command of a record on this node, as a client's would be run
   * @param journalFailure why the journal cannot be written, or null while it can: the tailer stops
   *     at the first record it meets after a failure, rather than skip it
   * @throws IllegalStateException if the topic exists with another partition count, or the brokers
   *     cannot be reached
   */
  public ClusterLog(
      ClusterTopology topology,
      Options options,
      Engine engine,
      Journal journal,
      Function<Command, Reply> applier,
      Supplier<@Nullable String> journalFailure) {
    this.journalFailure = journalFailure;
    this.topology = topology;
    this.options = options;
    this.bootstrap = options.bootstrap();
    this.topic = options.topic();
    this.engine = engine;
    this.journal = journal;
    this.applier = applier;
    ensureTopic(bootstrap);
    nextOffset = new long[topology.partitions()];
    waiters = new ArrayList<>(topology.partitions());
    for (int p = 0; p < topology.partitions(); p++) {
      waiters.add(
          new java.util.PriorityQueue<>(java.util.Comparator.comparingLong(Waiter::offset)));
    }
    admin = Admin.create(Map.of("bootstrap.servers", bootstrap));
    // linger.ms 0: a write waits for nothing before it is sent (a linger showed in the latency of
    // one write at a time: docs/benchmarks/cluster.md); under load, records batch up on their own
    // while earlier requests are in flight.
    producer =
        new KafkaProducer<>(
            Map.of(
                "bootstrap.servers",
                bootstrap,
                "enable.idempotence",
                "true",
                "acks",
                "all",
                "linger.ms",
                "0",
                "max.block.ms",
                Long.toString(options.writeTimeoutMillis() / 2),
                "request.timeout.ms",
                Long.toString(options.writeTimeoutMillis() / 2),
                "delivery.timeout.ms",
                Long.toString(options.writeTimeoutMillis()),
                "client.id",
                "idem-" + topology.self().name(),
                "key.serializer",
                ByteArraySerializer.class.getName(),
                "value.serializer",
                ByteArraySerializer.class.getName()));
    consumer =
        new KafkaConsumer<>(
            Map.of(
                "bootstrap.servers",
                bootstrap,
                "enable.auto.commit",
                "false",
                "auto.offset.reset",
                "earliest",
                "client.id",
                "idem-tailer-" + topology.self().name(),
                "key.deserializer",
                ByteArrayDeserializer.class.getName(),
                "value.deserializer",
                ByteArrayDeserializer.class.getName()));
    List<TopicPartition> mine = new ArrayList<>();
    for (int p = 0; p < topology.partitions(); p++) {
      if (topology.servesPartition(p)) {
        mine.add(new TopicPartition(topic, p)); // as the primary or as a replica: the same records
      }
    }
    consumer.assign(mine);
    Map<TopicPartition, Long> starts = consumer.beginningOffsets(mine, Duration.ofSeconds(30));
    for (TopicPartition tp : mine) {
      byte[] stored = journal.meta(offsetName(tp.partition()));
      long next = stored == null ? 0 : ByteBuffer.wrap(stored).getLong();
      long start = starts.getOrDefault(tp, 0L);
      if (next < start) {
        // Retention deleted records this node never applied: serving would hide the hole.
        close(producer, consumer, admin);
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
      consumer.seek(tp, next);
      nextOffset[tp.partition()] = next;
    }
    catchUpTo = new HashMap<>(consumer.endOffsets(mine, Duration.ofSeconds(30)));
    tailer = Thread.ofPlatform().name("idem-tailer").daemon().start(this::tail);
    sender = Thread.ofPlatform().name("idem-producer").daemon().start(this::send);
  }

  private void ensureTopic(String bootstrap) {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      Set<String> names = admin.listTopics().names().get(30, TimeUnit.SECONDS);
      if (!names.contains(topic)) {
        admin
            .createTopics(
                List.of(new NewTopic(topic, Optional.of(topology.partitions()), Optional.empty())))
            .all()
            .get(30, TimeUnit.SECONDS);
        return;
      }
      TopicDescription d =
          admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
      if (d.partitions().size() != topology.partitions()) {
        throw new IllegalStateException(
            "topic "
                + topic
                + " has "
                + d.partitions().size()
                + " partitions, and cluster-partitions says "
                + topology.partitions());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reaching Kafka at " + bootstrap, e);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException(
          "cannot reach Kafka at " + bootstrap + " for topic " + topic + ": " + e.getMessage(), e);
    }
  }

  String offsetName(int partition) {
    return "offset/" + topic + "/" + partition;
  }

  /** Writes waiting for their record to be applied, at most: more are answered TRYAGAIN. */
  static final int MAX_PENDING = 100_000;

  private record Outgoing(long request, ProducerRecord<byte[], byte[]> record) {}

  /**
   * Records on their way to the producer: {@link KafkaProducer#send} blocks while it has no
   * metadata or its buffer is full, and an event loop must never block.
   */
  private final BlockingQueue<Outgoing> outgoing = new ArrayBlockingQueue<>(10_000);

  private final Thread sender;

  /**
   * Produces the write to its slot's partition. The future completes with the reply applying its
   * record computes; or with an error reply if Kafka did not take it, if too many writes already
   * wait (TRYAGAIN, which cluster clients retry), or if it was not applied in time.
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

  private CompletableFuture<Reply> submit(List<Command> commands, boolean transaction, int slot) {
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    if (pending.size() >= MAX_PENDING) {
      reply.complete(TRY_AGAIN);
      return reply;
    }
    long request = requests.incrementAndGet();
    pending.put(request, reply);
    // Kafka answers within the write timeout; a record it took waits as long again to be applied.
    long timeout = 2 * options.writeTimeoutMillis();
    reply
        .completeOnTimeout(
            Reply.err("the write was not applied within " + timeout + " ms; it may still be"),
            timeout,
            TimeUnit.MILLISECONDS)
        .whenComplete((r, e) -> pending.remove(request));
    List<List<byte[]>> lists = new ArrayList<>(commands.size());
    for (Command command : commands) {
      List<byte[]> args = new ArrayList<>(command.size());
      for (int i = 0; i < command.size(); i++) {
        args.add(command.arg(i));
      }
      lists.add(args);
    }
    byte[] value =
        (transaction
                ? CommandRecord.transaction(topology.me(), request, lists)
                : new CommandRecord(topology.me(), request, lists.get(0)))
            .encode();
    int partition = Slots.partition(slot, topology.partitions());
    Command first = commands.get(0);
    byte[] kafkaKey = first.size() > 1 ? first.arg(1) : null;
    if (!outgoing.offer(
        new Outgoing(request, new ProducerRecord<>(topic, partition, kafkaKey, value)))) {
      reply.complete(TRY_AGAIN);
    }
    return reply;
  }

  private static final Reply TRY_AGAIN =
      Reply.error("TRYAGAIN too many writes are waiting for the cluster's log; retry");

  private void send() {
    try {
      while (!closing) {
        Outgoing o = outgoing.poll(100, TimeUnit.MILLISECONDS);
        if (o == null) {
          continue;
        }
        try {
          producer.send(
              o.record(),
              (meta, e) -> {
                if (e != null) {
                  fail(o.request(), e);
                }
              });
        } catch (RuntimeException e) {
          fail(o.request(), e); // no metadata or no buffer within max.block.ms, or closed
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void fail(long request, Exception e) {
    CompletableFuture<Reply> f = pending.remove(request);
    if (f != null) {
      f.complete(Reply.err("the write was not applied: Kafka did not take it: " + e.getMessage()));
    }
  }

  private void tail() {
    try {
      while (!closing) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          String failure = journalFailure.get();
          if (failure != null) {
            stopApplying(failure);
            return;
          }
          apply(r);
        }
        if (catchUpTo != null) {
          joinWhenCaughtUp();
        }
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException | Error e) {
      log.error("the tailer stopped: this node applies no more records until it restarts", e);
    }
  }

  /**
   * Joins the membership once every served partition is applied up to where it ended when the node
   * started: until then clients are not sent here, and a restarted node's reads are not stale by
   * the whole time it was down.
   */
  private void joinWhenCaughtUp() {
    catchUpTo.entrySet().removeIf(e -> consumer.position(e.getKey()) >= e.getValue());
    if (catchUpTo.isEmpty()) {
      catchUpTo = null;
      log.info("caught up with partitions {}: joining the live nodes", consumer.assignment());
      membership =
          new ClusterMembership(
              bootstrap,
              topic,
              topology.self().name(),
              options.nodeTimeoutMillis(),
              names -> topology.setLive(names));
    }
  }

  /** Whether this node has applied its partitions up to where they ended when it started. */
  public boolean caughtUp() {
    return membership != null;
  }

  /**
   * The journal failed, and does not recover before a restart: applying on would change only
   * memory, and skipping would leave a gap. The tailer stops, the node leaves the live nodes so
   * clients go to its peers, and the writes it took that are not applied are answered with the
   * failure. Restarted, it resumes after the last record its store holds.
   */
  private void stopApplying(String failure) {
    log.error(
        "the journal failed ({}): this node stops applying records until it restarts", failure);
    ClusterMembership m = membership;
    if (m != null) {
      membership = null;
      m.close();
    }
    failAll("MISCONF Idem cannot write its log, so this node applies no more writes: " + failure);
  }

  private void failAll(String why) {
    for (Long request : List.copyOf(pending.keySet())) {
      CompletableFuture<Reply> f = pending.remove(request);
      if (f != null) {
        f.complete(Reply.error(why));
      }
    }
  }

  private static final Command MULTI = new Command(new byte[][] {"MULTI".getBytes()});
  private static final Command EXEC = new Command(new byte[][] {"EXEC".getBytes()});
  private static final Command DISCARD = new Command(new byte[][] {"DISCARD".getBytes()});

  /** Runs a record's command, or its transaction as MULTI, the commands and EXEC. */
  private Reply run(CommandRecord rec) {
    if (!rec.transaction()) {
      return applier.apply(new Command(rec.args().toArray(byte[][]::new)));
    }
    boolean done = false;
    try {
      applier.apply(MULTI);
      for (List<byte[]> c : rec.commands()) {
        applier.apply(new Command(c.toArray(byte[][]::new)));
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

  /**
   * WAITLOG: completes once this node has applied the slot's partition up to where it ended when
   * asked, so a read after it sees every write acknowledged before; with the records waited for, or
   * exceptionally after {@code timeoutMillis}.
   */
  public CompletableFuture<Long> waitApplied(int slot, long timeoutMillis) {
    int partition = Slots.partition(slot, topology.partitions());
    long from;
    synchronized (waiters) {
      from = nextOffset[partition];
    }
    CompletableFuture<Long> done = new CompletableFuture<>();
    admin
        .listOffsets(
            Map.of(
                new TopicPartition(topic, partition),
                org.apache.kafka.clients.admin.OffsetSpec.latest()))
        .all()
        .whenComplete(
            (offsets, e) -> {
              if (e != null) {
                done.completeExceptionally(e);
                return;
              }
              long end = offsets.values().iterator().next().offset();
              synchronized (waiters) {
                if (nextOffset[partition] < end) {
                  waiters.get(partition).add(new Waiter(end, done));
                  return;
                }
              }
              done.complete(end);
            });
    done.orTimeout(timeoutMillis, TimeUnit.MILLISECONDS)
        .whenComplete(
            (end, e) -> {
              if (e != null) {
                synchronized (waiters) {
                  waiters.get(partition).removeIf(w -> w.done() == done);
                }
              }
            });
    return done.thenApply(end -> Math.max(0, end - from));
  }

  private void advanced(int partition, long next) {
    List<Waiter> ready = new ArrayList<>();
    synchronized (waiters) {
      nextOffset[partition] = next;
      java.util.PriorityQueue<Waiter> q = waiters.get(partition);
      while (!q.isEmpty() && q.peek().offset() <= next) {
        ready.add(q.poll());
      }
    }
    for (Waiter w : ready) {
      w.done().complete(w.offset()); // the completions run outside the lock
    }
  }

  /** Records this node has applied (or skipped as unreadable) since it started. */
  public long applied() {
    return applied.get();
  }

  /** Applies one record and stores the offset after it, in one journal command. */
  private void apply(ConsumerRecord<byte[], byte[]> r) {
    CommandRecord rec = null;
    try {
      rec = CommandRecord.decode(r.value() == null ? new byte[0] : r.value());
    } catch (CommandRecord.BadRecordException e) {
      log.warn(
          "skipped record {} of {}-{}: {}", r.offset(), r.topic(), r.partition(), e.getMessage());
    }
    Reply reply = null;
    journal.beginCommand();
    try {
      if (rec != null) {
        CommandRecord applying = rec;
        reply = engine.at(r.timestamp(), () -> run(applying));
      }
      journal.putMeta(
          offsetName(r.partition()), ByteBuffer.allocate(8).putLong(r.offset() + 1).array());
    } finally {
      journal.endCommand();
    }
    applied.incrementAndGet();
    advanced(r.partition(), r.offset() + 1);
    if (rec != null && rec.origin() == topology.me()) {
      CompletableFuture<Reply> f = pending.remove(rec.request());
      if (f != null) {
        f.complete(reply);
      }
    }
  }

  private static void close(AutoCloseable... clients) {
    for (AutoCloseable c : clients) {
      try {
        c.close();
      } catch (Exception e) {
        log.debug("closing a Kafka client after a failed start", e);
      }
    }
  }

  @Override
  public void close() {
    closing = true;
    consumer.wakeup();
    try {
      tailer.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      sender.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    ClusterMembership m = membership;
    if (m != null) {
      m.close(); // leaves the group: the others stop sending clients here at once
    }
    producer.close(Duration.ofSeconds(5));
    consumer.close(Duration.ofSeconds(5));
    admin.close(Duration.ofSeconds(5));
    failAll("ERR the node stopped before the write was applied");
  }
}
