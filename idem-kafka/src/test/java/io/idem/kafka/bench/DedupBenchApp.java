package io.idem.kafka.bench;

import io.idem.kafka.IdemDedup;
import java.time.Duration;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

/**
 * The app {@link DedupBench} measures, in its own JVM so that the benchmark can kill it with
 * SIGKILL: reads the input topic (key: the dedup id), dedups by key over the window, writes the
 * output topic, under {@code exactly_once_v2}. Mode {@code idem} dedups with the operator; mode
 * {@code recipe} with what users write today, Confluent's "find distinct events" recipe: a
 * persistent window store of ids and a processor that looks each id up in it.
 *
 * <p>Arguments: bootstrap servers, state directory, application id, mode ({@code idem} or {@code
 * recipe}), input topic, output topic, window in seconds, capacity (the number of ids; idem only).
 *
 * <p>Prints on stdout, one event a line: {@code running} when the client reaches RUNNING; {@code
 * restore-start <partition> <startOffset> <endOffset> <epochMillis>} and {@code restore-end
 * <partition> <totalRestored> <epochMillis>} for each store restore; every second {@code processed
 * <count> <firstMillis> <lastMillis>}, the records the dedup step has seen and the wall-clock times
 * it finished its first and its latest one, so that the benchmark times the processing to the
 * millisecond rather than to the second of the report.
 */
public final class DedupBenchApp {

  /** The recipe's window store: its changelog is {@code <app id>-dedup-recipe-store-changelog}. */
  static final String RECIPE_STORE = "dedup-recipe-store";

  private static final AtomicLong processed = new AtomicLong();
  private static volatile long firstMillis;
  private static volatile long lastMillis;

  private DedupBenchApp() {}

  public static void main(String[] args) throws InterruptedException {
    if (args.length != 8) {
      System.err.println(
          "usage: DedupBenchApp bootstrap stateDir appId idem|recipe inTopic outTopic"
              + " windowSeconds capacity");
      System.exit(2);
    }
    String bootstrap = args[0];
    String stateDir = args[1];
    String appId = args[2];
    String mode = args[3];
    String in = args[4];
    String out = args[5];
    Duration window = Duration.ofSeconds(Long.parseLong(args[6]));
    long capacity = Long.parseLong(args[7]);

    FixedKeyProcessorSupplier<String, String, String> dedup =
        switch (mode) {
          case "idem" ->
              IdemDedup.<String, String>byKey(Serdes.String().serializer())
                  .window(window)
                  .exact(capacity)
                  .build();
          case "recipe" -> recipe(window);
          default -> throw new IllegalArgumentException("mode must be idem or recipe: " + mode);
        };
    StreamsBuilder b = new StreamsBuilder();
    b.stream(in, Consumed.with(Serdes.String(), Serdes.String()))
        .processValues(counted(dedup))
        .to(out, Produced.with(Serdes.String(), Serdes.String()));

    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
    // The killed instance's member leaves the group after 6 s, not the default 45 s, so that the
    // restart's time to RUNNING is mostly its restore, not the wait for the old session.
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6000);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1000);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG), 60_000);

    KafkaStreams streams = new KafkaStreams(b.build(), p);
    streams.setGlobalStateRestoreListener(
        new StateRestoreListener() {
          @Override
          public void onRestoreStart(TopicPartition tp, String store, long start, long end) {
            System.out.println(
                "restore-start " + tp + " " + start + " " + end + " " + System.currentTimeMillis());
          }

          @Override
          public void onBatchRestored(TopicPartition tp, String store, long end, long n) {}

          @Override
          public void onRestoreEnd(TopicPartition tp, String store, long total) {
            System.out.println(
                "restore-end " + tp + " " + total + " " + System.currentTimeMillis());
          }
        });
    CountDownLatch stopped = new CountDownLatch(1);
    streams.setStateListener(
        (now, before) -> {
          if (now == KafkaStreams.State.RUNNING) {
            System.out.println("running");
          }
          if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.NOT_RUNNING) {
            stopped.countDown();
          }
        });
    Thread reporter =
        new Thread(
            () -> {
              try {
                while (true) {
                  Thread.sleep(1000);
                  System.out.println(
                      "processed " + processed.get() + " " + firstMillis + " " + lastMillis);
                }
              } catch (InterruptedException e) {
                // the JVM is stopping
              }
            },
            "processed-reporter");
    reporter.setDaemon(true);
    reporter.start();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  streams.close(Duration.ofSeconds(30));
                  stopped.countDown();
                }));
    streams.start();
    stopped.await();
    System.out.println("stopped " + streams.state());
  }

  /**
   * The dedup step with a count of the records it has seen and when: one wrapper for both modes, so
   * that both pay the same for being measured.
   */
  private static FixedKeyProcessorSupplier<String, String, String> counted(
      FixedKeyProcessorSupplier<String, String, String> inner) {
    return new FixedKeyProcessorSupplier<>() {
      @Override
      public FixedKeyProcessor<String, String, String> get() {
        FixedKeyProcessor<String, String, String> processor = inner.get();
        return new FixedKeyProcessor<>() {
          @Override
          public void init(FixedKeyProcessorContext<String, String> context) {
            processor.init(context);
          }

          @Override
          public void process(FixedKeyRecord<String, String> record) {
            processor.process(record);
            // The times before the count (one thread writes them): a report of n records has the
            // time of the n-th at least.
            long now = System.currentTimeMillis();
            if (processed.get() == 0) {
              firstMillis = now;
            }
            lastMillis = now;
            processed.incrementAndGet();
          }

          @Override
          public void close() {
            processor.close();
          }
        };
      }

      @Override
      public Set<StoreBuilder<?>> stores() {
        return inner.stores();
      }
    };
  }

  /**
   * Confluent's recipe as users write it: a persistent window store of id to first timestamp, its
   * retention and window the dedup window, not caching, logged to a changelog (the defaults).
   */
  private static FixedKeyProcessorSupplier<String, String, String> recipe(Duration window) {
    StoreBuilder<WindowStore<String, Long>> store =
        Stores.windowStoreBuilder(
            Stores.persistentWindowStore(RECIPE_STORE, window, window, false),
            Serdes.String(),
            Serdes.Long());
    long windowMillis = window.toMillis();
    return new FixedKeyProcessorSupplier<>() {
      @Override
      public FixedKeyProcessor<String, String, String> get() {
        return new RecipeProcessor(windowMillis);
      }

      @Override
      public Set<StoreBuilder<?>> stores() {
        return Set.of(store);
      }
    };
  }

  /**
   * Forwards a record unless its id has an entry in the store within the window of its timestamp;
   * remembers the id at the timestamp of its first record (keep-first over a fixed window, as the
   * operator's default, so both drop the same records).
   */
  private static final class RecipeProcessor implements FixedKeyProcessor<String, String, String> {
    private final long windowMillis;
    private FixedKeyProcessorContext<String, String> context;
    private WindowStore<String, Long> store;

    RecipeProcessor(long windowMillis) {
      this.windowMillis = windowMillis;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, String> context) {
      this.context = context;
      this.store = context.getStateStore(RECIPE_STORE);
    }

    @Override
    public void process(FixedKeyRecord<String, String> record) {
      String id = record.key();
      long ts = record.timestamp();
      boolean seen;
      try (WindowStoreIterator<Long> it = store.fetch(id, ts - windowMillis, ts + windowMillis)) {
        seen = it.hasNext();
      }
      if (!seen) {
        store.put(id, ts, ts);
        context.forward(record);
      }
    }
  }
}
