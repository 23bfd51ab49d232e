package io.idem.kafka;

import io.idem.client.Dedup;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Exactly-once effects for a plain {@link Consumer} with an Idem server's dedup table: each polled
 * record's id is claimed for the record's own {@code topic/partition:offset}, so that
 *
 * <ul>
 *   <li>a new id is processed ({@link Handler#onNew});
 *   <li>the same record delivered again (after a rebalance, or a crash before the commit) finds its
 *       own claim and is processed again ({@link Handler#onRetry}: by default as new), since its
 *       first processing may not have finished;
 *   <li>another record of the id (a producer's retry, a replayed upstream) is a duplicate and is
 *       skipped ({@link Handler#onDuplicate}), with the owner that holds it.
 * </ul>
 *
 * <p>A poll's records are claimed in one DEDUP.MCLAIM. When processing a record throws, its claim
 * is released (so another record of the id is new again), the consumer is sought back to it so it
 * is delivered again, nothing after it is processed, and the exception is thrown; what was done
 * before it is committed. Use {@code enable.auto.commit=false}: this commits.
 *
 * <pre>{@code
 * ConsumerDedup<String, Order> dedup =
 *     new ConsumerDedup<>(idem.dedup("orders-seen"), r -> r.key().getBytes(UTF_8));
 * while (running) {
 *   dedup.process(consumer, consumer.poll(Duration.ofSeconds(1)), r -> ship(r.value()));
 * }
 * }</pre>
 */
public final class ConsumerDedup<K, V> {

  /** What to do with a record, by what its claim found. */
  public interface Handler<K, V> {
    void onNew(ConsumerRecord<K, V> record) throws Exception;

    /**
     * The record was claimed by itself before and may not have been processed: by default, as new.
     */
    default void onRetry(ConsumerRecord<K, V> record) throws Exception {
      onNew(record);
    }

    /** Another record holds the id: by default, nothing. */
    default void onDuplicate(ConsumerRecord<K, V> record, String holder) throws Exception {}
  }

  private final Dedup table;
  private final Function<ConsumerRecord<K, V>, byte[]> id;

  /**
   * @param table an exact (or recent) dedup table, reserved with the window duplicates arrive in
   * @param id a record's id: its key's bytes, a header, a field of its value (at most 1,024 bytes)
   */
  public ConsumerDedup(Dedup table, Function<ConsumerRecord<K, V>, byte[]> id) {
    this.table = Objects.requireNonNull(table, "table");
    this.id = Objects.requireNonNull(id, "id");
  }

  /** The owner a record claims its id for: its place in its topic. */
  public static String owner(ConsumerRecord<?, ?> record) {
    return Integer.toHexString(record.topic().hashCode())
        + "/"
        + record.partition()
        + ":"
        + record.offset();
  }

  /** Processes new records and retries with {@code work}, skipping duplicates, then commits. */
  public void process(
      Consumer<K, V> consumer,
      ConsumerRecords<K, V> records,
      java.util.function.Consumer<ConsumerRecord<K, V>> work) {
    process(consumer, records, (Handler<K, V>) work::accept);
  }

  /**
   * Claims every record of the poll, hands each to the handler by its outcome, in order, and
   * commits the offsets after the last one handled.
   *
   * @throws DedupProcessingException if the handler threw: the record is released and sought back
   *     to, the records before it committed
   */
  public void process(
      Consumer<K, V> consumer, ConsumerRecords<K, V> records, Handler<K, V> handler) {
    if (records.isEmpty()) {
      return;
    }
    List<ConsumerRecord<K, V>> all = new ArrayList<>(records.count());
    List<byte[]> ids = new ArrayList<>(records.count());
    List<String> owners = new ArrayList<>(records.count());
    for (ConsumerRecord<K, V> r : records) {
      all.add(r);
      ids.add(id.apply(r));
      owners.add(owner(r));
    }
    List<Dedup.Claim> claims = table.claimAll(ids, owners);
    Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
    for (int i = 0; i < all.size(); i++) {
      ConsumerRecord<K, V> r = all.get(i);
      Dedup.Claim c = claims.get(i);
      try {
        switch (c.status()) {
          case NEW -> handler.onNew(r);
          case RETRY -> handler.onRetry(r);
          case DUPLICATE -> handler.onDuplicate(r, c.owner() == null ? "" : c.owner());
        }
      } catch (Exception e) {
        if (c.status() != Dedup.Status.DUPLICATE) {
          table.release(ids.get(i), owners.get(i));
        }
        // This record and the rest of its partition come again; other partitions' later records
        // too, from where they stand.
        commitAndRewind(consumer, all, i, done);
        throw new DedupProcessingException(r, e);
      }
      done.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
    }
    consumer.commitSync(done);
  }

  private static <K, V> void commitAndRewind(
      Consumer<K, V> consumer,
      List<ConsumerRecord<K, V>> all,
      int failed,
      Map<TopicPartition, OffsetAndMetadata> done) {
    if (!done.isEmpty()) {
      consumer.commitSync(done);
    }
    Map<TopicPartition, Long> rewind = new HashMap<>();
    for (int j = failed; j < all.size(); j++) {
      ConsumerRecord<K, V> r = all.get(j);
      rewind.putIfAbsent(new TopicPartition(r.topic(), r.partition()), r.offset());
    }
    rewind.forEach(consumer::seek);
  }

  /** A record's handler threw; the record will be delivered again. */
  public static final class DedupProcessingException extends RuntimeException {
    private final transient ConsumerRecord<?, ?> record;

    DedupProcessingException(ConsumerRecord<?, ?> record, Exception cause) {
      super(
          "processing "
              + record.topic()
              + "-"
              + record.partition()
              + "@"
              + record.offset()
              + " failed; it will be delivered again",
          cause);
      this.record = record;
    }

    public ConsumerRecord<?, ?> record() {
      return record;
    }
  }
}
