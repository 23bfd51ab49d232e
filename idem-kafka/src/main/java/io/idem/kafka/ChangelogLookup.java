package io.idem.kafka;

import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StreamsConfig;
import org.jspecify.annotations.Nullable;

/**
 * Finds where in a changelog partition a snapshot taken while processing stands: the records after
 * it have its stream time or a later one, so a timestamp lookup bounds them. One admin request at a
 * store's start after a crash.
 */
final class ChangelogLookup {

  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(ChangelogLookup.class);

  private static final long TIMEOUT_SECONDS = 30;

  private ChangelogLookup() {}

  /**
   * The offset before the first committed record of the partition with a timestamp at or after
   * {@code time} (the last committed one if there is none; -1 if that is the first record), or null
   * if the lookup fails.
   */
  static @Nullable Long offsetBefore(
      Map<String, Object> appConfigs, TopicPartition partition, long time) {
    Map<String, Object> config =
        new StreamsConfig(appConfigs).getAdminConfigs("idem-dedup-changelog-lookup");
    ListOffsetsOptions committed = new ListOffsetsOptions(IsolationLevel.READ_COMMITTED);
    try (Admin admin = Admin.create(config)) {
      long at = offset(admin, partition, OffsetSpec.forTimestamp(time), committed);
      if (at < 0) {
        at = offset(admin, partition, OffsetSpec.latest(), committed);
      }
      return at - 1;
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      log.warn("looking up {} at time {} failed", partition, time, e);
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  private static long offset(
      Admin admin, TopicPartition partition, OffsetSpec spec, ListOffsetsOptions options)
      throws InterruptedException, ExecutionException, TimeoutException {
    ListOffsetsResult.ListOffsetsResultInfo info =
        admin
            .listOffsets(Map.of(partition, spec), options)
            .partitionResult(partition)
            .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    return info.offset();
  }
}
