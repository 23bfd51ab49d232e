package io.idem.kafka;

import io.idem.core.hash.Hash128;
import io.idem.core.window.Resolution;
import io.idem.core.window.WindowedCounters;
import io.idem.core.window.WindowedDistinct;
import io.idem.core.window.WindowedTable;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.jspecify.annotations.Nullable;

/**
 * Windowed counts in Kafka Streams, the Streams form of Smyte's counters (seed 004): each record
 * counts once for its name in buckets of several resolutions (minutes kept two hours, hours kept
 * two days, days kept fifteen), and goes on with its name's counts over the last hour, day and week
 * (or the windows given), and optionally its distinct members.
 *
 * <pre>{@code
 * KStream<String, WindowCounts> perUser =
 *     logins.processValues(
 *         IdemCounts.<String, Login>byKey(Serdes.String().serializer())
 *             .distinct((user, login) -> login.ip().getBytes(UTF_8))
 *             .build());
 * }</pre>
 *
 * <p>Rows are core's {@link WindowedCounters} and {@link WindowedDistinct} rows, kept in a Streams
 * key-value store with a compacted changelog: a row is a whole value, so the changelog keeps one
 * record a row. Expired rows go by key range once their bucket leaves every window. Records with
 * one name must reach the same task: count by key on a stream partitioned by it.
 */
public final class IdemCounts<K, V> {

  private final BiFunction<K, V, byte[]> name;
  private @Nullable BiFunction<K, V, byte[]> member;
  private String storeName = "idem-counts";
  private List<Duration> windows =
      List.of(Duration.ofHours(1), Duration.ofDays(1), Duration.ofDays(7));
  private List<Resolution> resolutions =
      List.of(
          new Resolution(60_000, 2 * 3_600_000L),
          new Resolution(3_600_000, 2 * 86_400_000L),
          new Resolution(86_400_000, 15 * 86_400_000L));
  private int precision = 12;

  private IdemCounts(BiFunction<K, V, byte[]> name) {
    this.name = name;
  }

  /** Counts by the record's key, serialized. */
  public static <K, V> IdemCounts<K, V> byKey(Serializer<K> keySerializer) {
    Objects.requireNonNull(keySerializer, "keySerializer");
    return new IdemCounts<>((k, v) -> keySerializer.serialize(null, k));
  }

  /** Counts by a name taken from the record. */
  public static <K, V> IdemCounts<K, V> by(BiFunction<K, V, byte[]> name) {
    return new IdemCounts<>(Objects.requireNonNull(name, "name"));
  }

  /** Also counts the distinct members of each name (an IP a user logs in from, say). */
  public IdemCounts<K, V> distinct(BiFunction<K, V, byte[]> member) {
    this.member = Objects.requireNonNull(member, "member");
    return this;
  }

  /** The windows each record's counts are given over (one hour, one day, one week by default). */
  public IdemCounts<K, V> windows(Duration... windows) {
    this.windows = List.of(windows);
    return this;
  }

  /**
   * The buckets the counts are kept in, finest first: each window must be a whole number of one.
   */
  public IdemCounts<K, V> resolutions(List<Resolution> resolutions) {
    this.resolutions = List.copyOf(resolutions);
    return this;
  }

  /** The distinct counts' HyperLogLog precision (12 by default: 4,096 registers, about 1.6 %). */
  public IdemCounts<K, V> precision(int precision) {
    this.precision = precision;
    return this;
  }

  public IdemCounts<K, V> storeName(String name) {
    this.storeName = Objects.requireNonNull(name, "name");
    return this;
  }

  /** The key-value store the rows are kept in: a persistent RocksDB store with a changelog. */
  public StoreBuilder<KeyValueStore<Bytes, byte[]>> storeBuilder() {
    return Stores.keyValueStoreBuilder(
        Stores.persistentKeyValueStore(storeName), Serdes.Bytes(), Serdes.ByteArray());
  }

  /** The operator for {@code KStream.processValues}, its store connected. */
  public FixedKeyProcessorSupplier<K, V, WindowCounts> build() {
    new Counting(); // refuses windows no resolution keeps, when the topology is built
    StoreBuilder<?> store = storeBuilder();
    return new FixedKeyProcessorSupplier<>() {
      @Override
      public FixedKeyProcessor<K, V, WindowCounts> get() {
        return new Processor();
      }

      @Override
      public Set<StoreBuilder<?>> stores() {
        return Set.of(store);
      }
    };
  }

  /** The tables and the resolution each window is read at. */
  private final class Counting {
    final WindowedCounters counters = new WindowedCounters(resolutions);
    final @Nullable WindowedDistinct members =
        member == null ? null : new WindowedDistinct(resolutions, precision, 0);
    final long[] millis = new long[windows.size()];

    Counting() {
      for (int i = 0; i < millis.length; i++) {
        millis[i] = windows.get(i).toMillis();
        // A window must be kept whole at some resolution: checked as of the epoch's end.
        if (counters.resolve(millis[i], WindowedTable.MAX_TIME, WindowedTable.MAX_TIME)
            == WindowedTable.NO_RESOLUTION) {
          throw new IllegalArgumentException(
              "window " + windows.get(i) + ": no resolution's bucket divides it and keeps it");
        }
      }
    }
  }

  private final class Processor implements FixedKeyProcessor<K, V, WindowCounts> {
    private FixedKeyProcessorContext<K, WindowCounts> context;
    private KeyValueStore<Bytes, byte[]> store;
    private Counting tables;

    @Override
    public void init(FixedKeyProcessorContext<K, WindowCounts> context) {
      this.context = context;
      this.store = context.getStateStore(storeName);
      this.tables = new Counting();
      // Rows past every window go once a minute of stream time: by key range, never a scan.
      context.schedule(Duration.ofMinutes(1), PunctuationType.STREAM_TIME, now -> dropExpired(now));
    }

    @Override
    public void process(FixedKeyRecord<K, V> record) {
      long now = Math.max(context.currentStreamTimeMs(), record.timestamp());
      long time = record.timestamp();
      byte[] n = name.apply(record.key(), record.value());
      try {
        WindowedCounters.Increments inc = tables.counters.increments(countRows::row, now);
        inc.add(n, time, 1);
        inc.writeTo(countRows::write);
        double[] distinct = new double[0];
        if (tables.members != null) {
          byte[] m = member.apply(record.key(), record.value());
          WindowedDistinct.Additions add = tables.members.additions(memberRows::row, now);
          add.add(n, time, new Hash128().hash(m).h1());
          if (add.changedAny()) {
            add.writeTo(memberRows::write);
          }
        }
        int[] resolution = new int[tables.millis.length];
        long[] counts = new long[resolution.length];
        List<Integer> kept = new ArrayList<>();
        for (int i = 0; i < resolution.length; i++) {
          resolution[i] = tables.counters.resolve(tables.millis[i], time, now);
          if (resolution[i] >= 0) {
            kept.add(i);
          }
        }
        long[] keptMillis = kept.stream().mapToLong(i -> tables.millis[i]).toArray();
        int[] keptResolution = kept.stream().mapToInt(i -> resolution[i]).toArray();
        long[] sums = tables.counters.sums(countRows::row, n, keptMillis, keptResolution, time);
        java.util.Arrays.fill(counts, -1);
        for (int k = 0; k < kept.size(); k++) {
          counts[kept.get(k)] = sums[k];
        }
        if (tables.members != null) {
          distinct = new double[resolution.length];
          java.util.Arrays.fill(distinct, -1);
          double[][] est =
              tables.members.estimates(
                  memberRows::row, new byte[][] {n}, keptMillis, keptResolution, time);
          for (int k = 0; k < kept.size(); k++) {
            distinct[kept.get(k)] = est[0][k];
          }
        }
        context.forward(record.withValue(new WindowCounts(windows, counts, distinct)));
      } catch (IOException e) {
        throw new StreamsException("counts store " + storeName + " holds a row that is not one", e);
      }
    }

    /** The counters' rows and the distinct sketches' rows share the store, a byte apart. */
    private final Rows countRows = new Rows((byte) 'c');

    private final Rows memberRows = new Rows((byte) 'd');

    private final class Rows {
      private final byte prefix;

      Rows(byte prefix) {
        this.prefix = prefix;
      }

      Bytes key(byte[] key) {
        byte[] k = new byte[key.length + 1];
        k[0] = prefix;
        System.arraycopy(key, 0, k, 1, key.length);
        return Bytes.wrap(k);
      }

      byte @Nullable [] row(byte[] key) {
        return store.get(key(key));
      }

      void write(List<byte[]> keys, List<byte @Nullable []> rows) {
        for (int i = 0; i < keys.size(); i++) {
          byte[] row = rows.get(i);
          if (row == null) {
            store.delete(key(keys.get(i)));
          } else {
            store.put(key(keys.get(i)), row);
          }
        }
      }

      /** Deletes the rows in [from, to): a store's range includes its end, which stays. */
      void deleteRange(byte[] from, byte[] to) {
        Bytes end = key(to);
        List<Bytes> gone = new ArrayList<>();
        try (KeyValueIterator<Bytes, byte[]> it = store.range(key(from), end)) {
          while (it.hasNext()) {
            KeyValue<Bytes, byte[]> kv = it.next();
            if (!kv.key.equals(end)) {
              gone.add(kv.key);
            }
          }
        }
        for (Bytes key : gone) {
          store.delete(key);
        }
      }
    }

    private void dropExpired(long now) {
      for (byte[][] range : tables.counters.drop(now)) {
        countRows.deleteRange(range[0], range[1]);
      }
      if (tables.members != null) {
        for (byte[][] range : tables.members.drop(now)) {
          memberRows.deleteRange(range[0], range[1]);
        }
      }
    }
  }
}
