package io.idem.kafka;

import io.idem.core.dedup.DedupLimits;
import io.idem.core.dedup.DedupSizing;
import io.idem.core.dedup.DedupTable;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * A dedup operator for Kafka Streams: forwards each id's first record in a window and drops (or
 * marks) the rest, surviving crashes under {@code exactly_once_v2} without dropping a record that
 * was processed again.
 *
 * <pre>{@code
 * KStream<String, Order> unique =
 *     orders.processValues(
 *         IdemDedup.<String, Order>byKey(Serdes.String().serializer())
 *             .window(Duration.ofHours(24))
 *             .build());
 * }</pre>
 *
 * <p>Records with the same id must reach the same task: dedup by key on a stream partitioned by
 * that key, or repartition by the id first. The window is fixed by default (an id is remembered for
 * the window after its first record; Flink's keep-first with a fixed window); {@link
 * #inactivityWindow} restarts it at every record of the id.
 */
public final class IdemDedup<K, V> {

  private final BiFunction<K, V, byte[]> id;
  private String storeName = "idem-dedup";
  private DedupTable.Mode mode = DedupTable.Mode.EXACT;
  private long windowMillis = Duration.ofHours(24).toMillis();
  private int slices = 0; // 0: DEDUP.RESERVE's default for the window
  private long capacity = DedupLimits.DEFAULT_CAPACITY;
  private double errorRate = DedupTable.EXACT_INDEX_ERROR;
  private long slots;
  private boolean inactivity;
  private boolean withOutcome;
  private long maxMemoryBytes = Runtime.getRuntime().maxMemory() / 4;
  private long checkpointMillis = Duration.ofSeconds(30).toMillis();
  private boolean logged = true;
  private Map<String, String> changelogConfig = Map.of();

  private IdemDedup(BiFunction<K, V, byte[]> id) {
    this.id = id;
  }

  /** Dedup by the record's key, serialized: the stream must be partitioned by it. */
  public static <K, V> IdemDedup<K, V> byKey(Serializer<K> keySerializer) {
    Objects.requireNonNull(keySerializer, "keySerializer");
    return new IdemDedup<>((k, v) -> keySerializer.serialize(null, k));
  }

  /**
   * Dedup by an id taken from the record (at most 1,024 bytes): records with one id must reach the
   * same task.
   */
  public static <K, V> IdemDedup<K, V> by(BiFunction<K, V, byte[]> id) {
    return new IdemDedup<>(Objects.requireNonNull(id, "id"));
  }

  /** The state store's name, and so its changelog's: unique in the topology. */
  public IdemDedup<K, V> storeName(String name) {
    this.storeName = Objects.requireNonNull(name, "name");
    return this;
  }

  /** How long an id is remembered: from 1 s to 3650 days. */
  public IdemDedup<K, V> window(Duration window) {
    this.windowMillis = window.toMillis();
    return this;
  }

  /** The window's slices (1 to 1,024, each at least a second): an id is kept up to one more. */
  public IdemDedup<K, V> slices(int slices) {
    this.slices = slices;
    return this;
  }

  /** EXACT (the default): every id and owner, on disk; {@code capacity} sizes the memory index. */
  public IdemDedup<K, V> exact(long capacity) {
    mode = DedupTable.Mode.EXACT;
    this.capacity = capacity;
    errorRate = DedupTable.EXACT_INDEX_ERROR;
    slots = 0;
    return this;
  }

  /**
   * FILTER: a filter a slice, at {@code errorRate} while the window holds at most {@code capacity}
   * ids. A new id is dropped as a duplicate at that rate, never the other way round; no owners, so
   * a record processed again after a crash is a duplicate too: use EXACT under exactly-once.
   */
  public IdemDedup<K, V> filter(double errorRate, long capacity) {
    mode = DedupTable.Mode.FILTER;
    this.errorRate = errorRate;
    this.capacity = capacity;
    slots = 0;
    return this;
  }

  /** RECENT: {@code slots} slots; an id landing on another's slot forgets it. Memory is fixed. */
  public IdemDedup<K, V> recent(long slots) {
    mode = DedupTable.Mode.RECENT;
    this.slots = slots;
    capacity = DedupLimits.DEFAULT_CAPACITY;
    errorRate = DedupTable.EXACT_INDEX_ERROR;
    return this;
  }

  /** An id is remembered for the window after its first record (the default). */
  public IdemDedup<K, V> fixedWindow() {
    inactivity = false;
    return this;
  }

  /** An id is remembered for the window after its last record: each one restarts it. EXACT only. */
  public IdemDedup<K, V> inactivityWindow() {
    inactivity = true;
    return this;
  }

  /** Drop duplicates (the default): only new records and retries go on. */
  public IdemDedup<K, V> keepFirst() {
    withOutcome = false;
    return this;
  }

  /**
   * Forward every record, with a header {@code idem-dedup} of {@code new}, {@code retry} or {@code
   * duplicate}.
   */
  public IdemDedup<K, V> forwardWithOutcome() {
    withOutcome = true;
    return this;
  }

  /** The most memory the table may take (a quarter of the heap by default). */
  public IdemDedup<K, V> maxMemoryBytes(long bytes) {
    this.maxMemoryBytes = bytes;
    return this;
  }

  /**
   * How often the store writes a checkpoint (30 s by default): after a crash, Streams restores only
   * the changelog records since the last one.
   */
  public IdemDedup<K, V> checkpointInterval(Duration interval) {
    this.checkpointMillis = interval.toMillis();
    return this;
  }

  /** The changelog topic's settings over the store's own (delete after two windows and a day). */
  public IdemDedup<K, V> changelog(Map<String, String> topicConfig) {
    this.logged = true;
    this.changelogConfig = Map.copyOf(topicConfig);
    return this;
  }

  /** No changelog: a store lost with its machine starts empty. */
  public IdemDedup<K, V> withoutChangelog() {
    this.logged = false;
    return this;
  }

  /** The table's parameters. */
  DedupTable.Params params() {
    int n = slices > 0 ? slices : DedupSizing.defaultSlices(windowMillis);
    DedupTable.Params p = new DedupTable.Params(mode, windowMillis, n, capacity, errorRate, slots);
    DedupLimits.Problem bad = DedupLimits.check(p);
    if (bad != null) {
      throw new IllegalArgumentException("dedup " + storeName + ": " + bad.message());
    }
    if (inactivity && mode != DedupTable.Mode.EXACT) {
      throw new IllegalArgumentException(
          "dedup " + storeName + ": an inactivity window needs an EXACT table (it keeps owners)");
    }
    return p;
  }

  /** The state store the operator uses; connected by {@link #build} and {@link #processor}. */
  public StoreBuilder<DedupStore> storeBuilder() {
    DedupStoreBuilder b =
        new DedupStoreBuilder(storeName, params(), maxMemoryBytes, checkpointMillis);
    return logged ? b.withLoggingEnabled(changelogConfig) : b.withLoggingDisabled();
  }

  /** The operator for {@code KStream.processValues}, its store connected. */
  public FixedKeyProcessorSupplier<K, V, V> build() {
    StoreBuilder<DedupStore> store = storeBuilder();
    return new FixedKeyProcessorSupplier<>() {
      @Override
      public FixedKeyProcessor<K, V, V> get() {
        return new DedupProcessor.Values<>(IdemDedup.this);
      }

      @Override
      public Set<StoreBuilder<?>> stores() {
        return Set.of(store);
      }
    };
  }

  /** The operator for {@code Topology.addProcessor}, its store connected. */
  public ProcessorSupplier<K, V, K, V> processor() {
    StoreBuilder<DedupStore> store = storeBuilder();
    return new ProcessorSupplier<>() {
      @Override
      public Processor<K, V, K, V> get() {
        return new DedupProcessor.Records<>(IdemDedup.this);
      }

      @Override
      public Set<StoreBuilder<?>> stores() {
        return Set.of(store);
      }
    };
  }

  String storeName() {
    return storeName;
  }

  byte[] id(K key, V value) {
    byte[] bytes = id.apply(key, value);
    if (bytes == null || bytes.length > DedupLimits.MAX_ID_BYTES) {
      throw new IllegalArgumentException(
          "dedup "
              + storeName
              + ": a record's id must be 0 to "
              + DedupLimits.MAX_ID_BYTES
              + " bytes, not "
              + (bytes == null ? "null" : bytes.length));
    }
    return bytes;
  }

  boolean inactivity() {
    return inactivity;
  }

  boolean withOutcome() {
    return withOutcome;
  }
}
