package io.idem.kafka;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.streams.StreamsConfig;
import org.jspecify.annotations.Nullable;

/**
 * Finds where in a changelog partition a snapshot taken while processing stands. A store's
 * changelog keys are its operations' sequence numbers, rising in the order the records were
 * committed (an aborted transaction's records are never read, and the store numbers on from its
 * snapshot after a restart), so a binary search over the partition's committed records finds the
 * first one the snapshot does not hold: a few dozen fetches at a store's start after a crash,
 * however long the partition.
 */
final class ChangelogLookup {

  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(ChangelogLookup.class);

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private ChangelogLookup() {}

  /**
   * The offset before the first committed record of the partition whose sequence is at least {@code
   * sequence} (the last committed record's if there is none; -1 if it is the partition's first), or
   * null if the lookup fails.
   */
  static @Nullable Long offsetBefore(
      Map<String, Object> appConfigs, TopicPartition partition, long sequence) {
    Map<String, Object> config =
        new StreamsConfig(appConfigs).getRestoreConsumerConfigs("idem-dedup-changelog-lookup");
    config.remove(ConsumerConfig.GROUP_ID_CONFIG);
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1);
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      c.assign(List.of(partition));
      long lo = c.beginningOffsets(List.of(partition), TIMEOUT).get(partition);
      long hi = c.endOffsets(List.of(partition), TIMEOUT).get(partition);
      // Invariant: the first record the snapshot does not hold is at or after lo, and before hi
      // or nowhere.
      while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        ConsumerRecord<byte[], byte[]> r = firstAtOrAfter(c, partition, mid, hi);
        if (r == null || ByteBuffer.wrap(r.key()).getLong() >= sequence) {
          hi = mid;
        } else {
          lo = r.offset() + 1;
        }
      }
      return lo - 1;
    } catch (RuntimeException e) {
      log.warn("looking up sequence {} in {} failed", sequence, partition, e);
      return null;
    }
  }

  /** The first committed record at or after {@code offset} and before {@code end}, or null. */
  private static @Nullable ConsumerRecord<byte[], byte[]> firstAtOrAfter(
      KafkaConsumer<byte[], byte[]> c, TopicPartition partition, long offset, long end) {
    c.seek(partition, offset);
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (c.position(partition) < end) {
      for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(100))) {
        return r.offset() < end ? r : null;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("no record of " + partition + " after " + offset);
      }
    }
    return null;
  }
}
