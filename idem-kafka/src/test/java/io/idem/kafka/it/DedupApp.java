package io.idem.kafka.it;

import io.idem.kafka.IdemDedup;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateRestoreListener;

/**
 * A Streams app with the dedup operator, run in its own JVM so that a test can kill it with
 * SIGKILL: reads {@code in}, dedups by key over an hour, writes {@code out}, under {@code
 * exactly_once_v2}. Prints {@code running} once it processes, {@code restoring P from S to E} when
 * a store's restore starts and {@code restored N} after it.
 *
 * <p>Arguments: bootstrap servers, state directory, microseconds to spend on each record (so that a
 * kill lands mid-stream), checkpoint interval in milliseconds.
 */
public final class DedupApp {

  private DedupApp() {}

  public static void main(String[] args) throws InterruptedException {
    String bootstrap = args[0];
    String stateDir = args[1];
    long spendNanos = Long.parseLong(args[2]) * 1000;
    long checkpointMillis = Long.parseLong(args[3]);

    StreamsBuilder b = new StreamsBuilder();
    b.stream("in", Consumed.with(Serdes.String(), Serdes.String()))
        .peek((k, v) -> LockSupport.parkNanos(spendNanos))
        .processValues(
            IdemDedup.<String, String>byKey(Serdes.String().serializer())
                .window(Duration.ofHours(1))
                .checkpointInterval(Duration.ofMillis(checkpointMillis))
                .build())
        .to("out", Produced.with(Serdes.String(), Serdes.String()));

    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "dedup-crash");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
    // A killed instance's member leaves the group quickly, so the next one gets its tasks.
    p.put(StreamsConfig.consumerPrefix("session.timeout.ms"), 2000);
    p.put(StreamsConfig.consumerPrefix("heartbeat.interval.ms"), 500);
    p.put(StreamsConfig.consumerPrefix("max.poll.interval.ms"), 10_000);
    p.put(StreamsConfig.consumerPrefix("max.poll.records"), 200);
    // Small fetches, so that both input partitions advance between kills.
    p.put(StreamsConfig.consumerPrefix("max.partition.fetch.bytes"), 8192);
    p.put(StreamsConfig.producerPrefix("transaction.timeout.ms"), 10_000);

    KafkaStreams streams = new KafkaStreams(b.build(), p);
    streams.setGlobalStateRestoreListener(
        new StateRestoreListener() {
          @Override
          public void onRestoreStart(TopicPartition tp, String store, long start, long end) {
            System.out.println("restoring " + tp + " from " + start + " to " + end);
          }

          @Override
          public void onBatchRestored(TopicPartition tp, String store, long end, long n) {}

          @Override
          public void onRestoreEnd(TopicPartition tp, String store, long total) {
            System.out.println("restored " + total);
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
}
