package io.idem.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.dedup.DedupTable.Outcome;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store on its own, opened and closed over one state directory as a task would: owners make a
 * record seen again a retry, a checkpoint at a commit carries its offset across a restart, and a
 * snapshot made with other parameters is refused clearly.
 */
class DedupStoreTest {

  private static final long T0 = 1_790_000_000_000L;
  private static final TopicPartition CHANGELOG = new TopicPartition("app-idem-dedup-changelog", 0);

  @TempDir Path state;

  private DedupStore open(IdemDedup<String, String> dedup) {
    Properties p = new Properties();
    p.put("application.id", "app");
    p.put("bootstrap.servers", "unused:9092");
    MockProcessorContext<String, String> ctx =
        new MockProcessorContext<>(p, new TaskId(0, 0), state.toFile());
    DedupStore store = dedup.withoutChangelog().storeBuilder().build();
    store.init(ctx.getStateStoreContext(), store);
    return store;
  }

  private static IdemDedup<String, String> dedup() {
    return IdemDedup.<String, String>byKey(Serdes.String().serializer())
        .window(Duration.ofHours(1));
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void theSameRecordAgain_isARetry_anotherRecordOfTheId_aDuplicate() {
    DedupStore store = open(dedup());
    assertThat(store.claim(b("a"), b("0:7"), T0, T0).outcome()).isEqualTo(Outcome.NEW);
    assertThat(store.claim(b("a"), b("0:7"), T0, T0).outcome()).isEqualTo(Outcome.RETRY);
    assertThat(store.claim(b("a"), b("0:9"), T0, T0).outcome()).isEqualTo(Outcome.DUPLICATE);
    store.close();
  }

  @Test
  void aCheckpointAtACommit_carriesTheTableAndItsOffsetAcrossARestart() {
    DedupStore store = open(dedup());
    for (int i = 0; i < 1000; i++) {
      store.claim(b("id" + i), b("0:" + i), T0 + i, T0 + i);
    }
    store.commit(Map.of(CHANGELOG, 1234L));
    store.close();

    DedupStore again = open(dedup());
    assertThat(again.committedOffset(CHANGELOG)).isEqualTo(1234L);
    for (int i = 0; i < 1000; i++) {
      assertThat(again.claim(b("id" + i), b("0:" + i), T0 + 2000, T0 + 2000).outcome())
          .as("id%d, claimed before the restart by the same record", i)
          .isEqualTo(Outcome.RETRY);
    }
    assertThat(again.claim(b("id1"), b("1:1"), T0 + 2000, T0 + 2000).outcome())
        .isEqualTo(Outcome.DUPLICATE);
    again.close();
  }

  @Test
  void aCloseAfterACommit_checkpointsAtItsOffset_evenIfTheLastCheckpointWasRecent() {
    DedupStore store = open(dedup());
    store.claim(b("a"), b("0:1"), T0, T0);
    store.commit(Map.of(CHANGELOG, 10L)); // the first commit checkpoints
    store.claim(b("b"), b("0:2"), T0, T0);
    store.commit(Map.of(CHANGELOG, 11L)); // too soon for another
    store.close(); // ... so the close writes one at 11
    DedupStore again = open(dedup());
    assertThat(again.committedOffset(CHANGELOG)).isEqualTo(11L);
    assertThat(again.contains(b("b"))).isTrue();
    again.close();
  }

  @Test
  void claimsBecomeRowsAtACheckpoint_notAtEachCommit() {
    DedupStore store = open(dedup());
    store.claim(b("a"), b("0:1"), T0, T0);
    store.commit(Map.of(CHANGELOG, 1L)); // the first commit checkpoints
    long first = store.rowBytes();
    assertThat(first).isPositive();
    for (int i = 0; i < 100; i++) {
      store.claim(b("id" + i), b("0:" + (i + 2)), T0, T0);
      store.commit(Map.of(CHANGELOG, i + 2L)); // too soon for another checkpoint
    }
    assertThat(store.rowBytes()).as("rows written between checkpoints").isEqualTo(first);
    assertThat(store.claim(b("id7"), b("0:99"), T0, T0).outcome()).isEqualTo(Outcome.DUPLICATE);
    store.close(); // a checkpoint at the last commit's offset
    DedupStore again = open(dedup());
    assertThat(again.rowBytes()).isGreaterThan(first);
    assertThat(again.claim(b("id7"), b("0:99"), T0, T0).outcome()).isEqualTo(Outcome.DUPLICATE);
    again.close();
  }

  @Test
  void claimsNotYetRows_checkpointOnceTheyTakeTheirShareOfTheMemoryBound() {
    long bound = 4 << 20;
    DedupStore store = open(dedup().exact(100_000).maxMemoryBytes(bound));
    int n = 0;
    while (store.rowBytes() == 0 && n < 1_000_000) {
      store.claim(b("id" + n), b("0:" + n), T0, T0);
      n++;
    }
    assertThat(store.rowBytes()).as("rows after %d claims", n).isPositive();
    assertThat(((io.idem.core.dedup.ExactTable) store.table()).unwrittenBytes())
        .isLessThan(bound / DedupStore.UNWRITTEN_SHARE);
    store.close();
  }

  @Test
  void aStoreMadeWithOtherParameters_isRefusedClearly() {
    DedupStore store = open(dedup());
    store.claim(b("a"), b("0:1"), T0, T0);
    store.commit(Map.of(CHANGELOG, 1L));
    store.close();
    assertThatThrownBy(() -> open(dedup().window(Duration.ofHours(2))))
        .isInstanceOf(ProcessorStateException.class)
        .hasStackTraceContaining("give the store a new name, or reset the application");
  }

  @Test
  void aCorruptSnapshot_isAClearError() throws Exception {
    DedupStore store = open(dedup());
    store.claim(b("a"), b("0:1"), T0, T0);
    store.commit(Map.of(CHANGELOG, 1L));
    store.close();
    Path snapshot = state.resolve("idem-dedup").resolve("idem-dedup").resolve("snapshot");
    byte[] bytes = Files.readAllBytes(snapshot);
    Files.write(snapshot, java.util.Arrays.copyOf(bytes, bytes.length / 2));
    assertThatThrownBy(() -> open(dedup()))
        .isInstanceOf(ProcessorStateException.class)
        .hasMessageContaining("could not open");
  }

  @Test
  void aClaimPastTheMemoryBound_isRefused() {
    DedupStore store = open(dedup().filter(0.01, 1_000_000).maxMemoryBytes(1024));
    assertThatThrownBy(() -> store.claim(b("a"), b(""), T0, T0))
        .isInstanceOf(io.idem.core.dedup.TableFullException.class);
    store.close();
  }
}
