package io.idem.kafka;

import io.idem.core.dedup.DedupTable;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.jspecify.annotations.Nullable;

/**
 * What the dedup operator does with a record: claims its id for the record's own {@code
 * topic/partition:offset} (the topic as its name's hash) at the record's time, then forwards it or
 * drops it. A new id is forwarded; so is a retry (the same record again, after a crash or a
 * rebalance); a duplicate is dropped, or forwarded with its outcome in a header.
 */
final class DedupProcessor<K, V> {

  /** The header a forwarded record carries with {@link IdemDedup#forwardWithOutcome}. */
  static final String OUTCOME_HEADER = "idem-dedup";

  private final IdemDedup<K, V> config;
  private DedupStore store;

  DedupProcessor(IdemDedup<K, V> config) {
    this.config = config;
  }

  void init(org.apache.kafka.streams.processor.api.ProcessingContext context) {
    store = context.getStateStore(config.storeName());
    // A stream that goes quiet still gets its checkpoint, so a crash then restores nothing.
    context.schedule(
        Duration.ofSeconds(1), PunctuationType.WALL_CLOCK_TIME, t -> store.checkpointIfDue());
  }

  /**
   * The record's outcome, or null if it is to be dropped.
   *
   * @param streamTime the task's stream time: the window moves with it
   */
  DedupTable.Outcome decide(K key, V value, long timestamp, RecordMetadata meta, long streamTime) {
    byte[] id = config.id(key, value);
    byte[] owner = owner(meta);
    DedupTable.Claimed c = store.claim(id, owner, timestamp, streamTime);
    if (config.inactivity() && c.outcome() != DedupTable.Outcome.NEW && c.owner() != null) {
      store.refresh(id, c.owner(), timestamp, streamTime);
    }
    return c.outcome();
  }

  /**
   * What a record goes on with: its headers (with its outcome, if the operator marks records), or
   * null if it is dropped.
   */
  @Nullable Headers process(
      K key,
      V value,
      long timestamp,
      Headers headers,
      java.util.Optional<RecordMetadata> meta,
      long streamTime) {
    DedupTable.Outcome outcome =
        decide(key, value, timestamp, metadata(meta, config.storeName()), streamTime);
    if (!config.withOutcome()) {
      return outcome == DedupTable.Outcome.DUPLICATE ? null : headers;
    }
    Headers out = new RecordHeaders(headers.toArray());
    out.remove(OUTCOME_HEADER);
    String text = outcome.name().toLowerCase(java.util.Locale.ROOT);
    return out.add(OUTCOME_HEADER, text.getBytes(StandardCharsets.US_ASCII));
  }

  /** The record's place in its topic: who claims its id, so that it finds its own claim again. */
  static byte[] owner(RecordMetadata meta) {
    // The topic first: a row's owners, sorted, then share all but their offsets' last digits.
    String owner =
        Integer.toHexString(meta.topic().hashCode()) + "/" + meta.partition() + ":" + meta.offset();
    return owner.getBytes(StandardCharsets.US_ASCII);
  }

  private static RecordMetadata metadata(
      java.util.Optional<RecordMetadata> meta, String storeName) {
    return meta.orElseThrow(
        () ->
            new IllegalStateException(
                "dedup "
                    + storeName
                    + ": a record with no topic, partition and offset (forwarded from a"
                    + " punctuation?) has no owner to claim its id for"));
  }

  /** The operator after a key-preserving step: {@code stream.processValues(...)}. */
  static final class Values<K, V> implements FixedKeyProcessor<K, V, V> {
    private final DedupProcessor<K, V> dedup;
    private FixedKeyProcessorContext<K, V> context;

    Values(IdemDedup<K, V> config) {
      dedup = new DedupProcessor<>(config);
    }

    @Override
    public void init(FixedKeyProcessorContext<K, V> context) {
      this.context = context;
      dedup.init(context);
    }

    @Override
    public void process(FixedKeyRecord<K, V> record) {
      Headers h =
          dedup.process(
              record.key(),
              record.value(),
              record.timestamp(),
              record.headers(),
              context.recordMetadata(),
              context.currentStreamTimeMs());
      if (h != null) {
        context.forward(record.withHeaders(h));
      }
    }
  }

  /** The operator in the Processor API: {@code topology.addProcessor(...)}. */
  static final class Records<K, V> implements Processor<K, V, K, V> {
    private final DedupProcessor<K, V> dedup;
    private ProcessorContext<K, V> context;

    Records(IdemDedup<K, V> config) {
      dedup = new DedupProcessor<>(config);
    }

    @Override
    public void init(ProcessorContext<K, V> context) {
      this.context = context;
      dedup.init(context);
    }

    @Override
    public void process(Record<K, V> record) {
      Headers h =
          dedup.process(
              record.key(),
              record.value(),
              record.timestamp(),
              record.headers(),
              context.recordMetadata(),
              context.currentStreamTimeMs());
      if (h != null) {
        context.forward(record.withHeaders(h));
      }
    }
  }
}
