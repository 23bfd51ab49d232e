package io.idem.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.dedup.ClaimStore;
import io.idem.core.dedup.DedupOps;
import io.idem.core.dedup.DedupTable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's logic in Kafka's TopologyTestDriver: which records go on, in each mode and window,
 * through the DSL entry point and the Processor API one.
 */
class IdemDedupTest {

  private static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");

  @TempDir Path state;

  private TopologyTestDriver driver(Topology topology) {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "dedup-test");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    p.put(StreamsConfig.STATE_DIR_CONFIG, state.toString());
    return new TopologyTestDriver(topology, p);
  }

  private static Topology dsl(IdemDedup<String, String> dedup) {
    StreamsBuilder b = new StreamsBuilder();
    b.stream("in", Consumed.with(Serdes.String(), Serdes.String()))
        .processValues(dedup.build())
        .to("out", Produced.with(Serdes.String(), Serdes.String()));
    return b.build();
  }

  private static IdemDedup<String, String> byKey() {
    return IdemDedup.byKey(Serdes.String().serializer());
  }

  /** Pipes (key, value, seconds after T0) records; returns the values that came out. */
  private static List<String> run(TopologyTestDriver d, Object... keyValueSeconds) {
    TestInputTopic<String, String> in =
        d.createInputTopic("in", Serdes.String().serializer(), Serdes.String().serializer());
    for (int i = 0; i < keyValueSeconds.length; i += 3) {
      in.pipeInput(
          (String) keyValueSeconds[i],
          (String) keyValueSeconds[i + 1],
          T0.plusSeconds(((Number) keyValueSeconds[i + 2]).longValue()));
    }
    return out(d).readValuesToList();
  }

  private static TestOutputTopic<String, String> out(TopologyTestDriver d) {
    return d.createOutputTopic(
        "out", Serdes.String().deserializer(), Serdes.String().deserializer());
  }

  @Test
  void keepFirst_forwardsEachIdsFirstRecordOnly() {
    try (TopologyTestDriver d = driver(dsl(byKey().window(Duration.ofHours(1))))) {
      assertThat(run(d, "a", "a1", 0, "b", "b1", 1, "a", "a2", 2, "c", "c1", 3, "b", "b2", 4))
          .containsExactly("a1", "b1", "c1");
    }
  }

  @Test
  void everyMode_dropsARepeat() {
    for (IdemDedup<String, String> dedup :
        List.of(byKey().exact(1000), byKey().filter(0.001, 1000), byKey().recent(1 << 16))) {
      try (TopologyTestDriver d = driver(dsl(dedup.window(Duration.ofMinutes(10))))) {
        assertThat(run(d, "x", "1", 0, "y", "2", 0, "x", "3", 1, "y", "4", 2, "z", "5", 3))
            .as("%s", dedup.params().mode())
            .containsExactly("1", "2", "5");
      }
    }
  }

  @Test
  void fixedWindow_anIdIsNewAgainAfterTheWindow_evenIfRepeatedMeanwhile() {
    // One hour in 4 slices of 15 minutes: an id is kept from one hour to one hour and a slice.
    IdemDedup<String, String> dedup = byKey().window(Duration.ofHours(1)).slices(4);
    try (TopologyTestDriver d = driver(dsl(dedup))) {
      assertThat(run(d, "a", "first", 0, "a", "dup", 3000, "a", "again", 3600 + 900 + 1))
          .containsExactly("first", "again");
    }
  }

  @Test
  void inactivityWindow_eachRecordRestartsTheWindow() {
    IdemDedup<String, String> dedup =
        byKey().window(Duration.ofHours(1)).slices(4).inactivityWindow();
    try (TopologyTestDriver d = driver(dsl(dedup))) {
      // 50 minutes apart each: never a window of quiet, so never new again.
      assertThat(run(d, "a", "first", 0, "a", "d1", 3000, "a", "d2", 6000, "a", "d3", 9000))
          .containsExactly("first");
      // Then a quiet window and a slice: new.
      assertThat(run(d, "a", "later", 9000 + 3600 + 901)).containsExactly("later");
    }
  }

  @Test
  void inactivityWindow_needsAnExactTable() {
    assertThatThrownBy(() -> byKey().filter(0.01, 100).inactivityWindow().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("an inactivity window needs an EXACT table");
  }

  @Test
  void badParameters_areAClearError() {
    assertThatThrownBy(() -> byKey().window(Duration.ofMillis(10)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("window must be");
    assertThatThrownBy(() -> byKey().filter(1.5, 100).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("error rate must be");
  }

  @Test
  void forwardWithOutcome_marksEveryRecord() {
    try (TopologyTestDriver d = driver(dsl(byKey().forwardWithOutcome()))) {
      TestInputTopic<String, String> in =
          d.createInputTopic("in", Serdes.String().serializer(), Serdes.String().serializer());
      in.pipeInput("a", "1", T0);
      in.pipeInput("a", "2", T0.plusSeconds(1));
      List<TestRecord<String, String>> records = out(d).readRecordsToList();
      assertThat(records).extracting(TestRecord::value).containsExactly("1", "2");
      assertThat(records)
          .extracting(r -> outcome(r.headers().lastHeader("idem-dedup")))
          .containsExactly("new", "duplicate");
    }
  }

  private static String outcome(Header h) {
    return new String(h.value(), StandardCharsets.US_ASCII);
  }

  @Test
  void processorApi_sameAnswers() {
    IdemDedup<String, String> dedup = byKey().storeName("orders-dedup");
    Topology t = new Topology();
    t.addSource("src", Serdes.String().deserializer(), Serdes.String().deserializer(), "in");
    t.addProcessor("dedup", dedup.processor(), "src");
    t.addSink("sink", "out", Serdes.String().serializer(), Serdes.String().serializer(), "dedup");
    try (TopologyTestDriver d = driver(t)) {
      assertThat(run(d, "a", "1", 0, "a", "2", 1, "b", "3", 2)).containsExactly("1", "3");
      assertThat(d.getStateStore("orders-dedup")).isInstanceOf(DedupStore.class);
    }
  }

  @Test
  void aRecordWithAnIdTooLong_isAClearError_andChangesNothing() {
    IdemDedup<String, String> dedup =
        IdemDedup.by((String k, String v) -> v.getBytes(StandardCharsets.UTF_8));
    try (TopologyTestDriver d = driver(dsl(dedup))) {
      TestInputTopic<String, String> in =
          d.createInputTopic("in", Serdes.String().serializer(), Serdes.String().serializer());
      assertThatThrownBy(() -> in.pipeInput("k", "x".repeat(1025), T0))
          .hasStackTraceContaining("a record's id must be 0 to 1024 bytes, not 1025");
      DedupStore store = (DedupStore) d.getStateStore("idem-dedup");
      assertThat(store.table().items()).isZero();
      in.pipeInput("k", "fine", T0);
      assertThat(out(d).readValuesToList()).containsExactly("fine");
    }
  }

  @Test
  void theChangelog_rebuildsTheTable() throws Exception {
    IdemDedup<String, String> dedup = byKey().window(Duration.ofHours(1));
    try (TopologyTestDriver d = driver(dsl(dedup))) {
      run(d, "a", "1", 0, "b", "2", 10, "a", "3", 20, "c", "4", 7200);
      TestOutputTopic<byte[], byte[]> changelog =
          d.createOutputTopic(
              "dedup-test-idem-dedup-changelog",
              Serdes.ByteArray().deserializer(),
              Serdes.ByteArray().deserializer());
      DedupTable rebuilt = DedupTable.create(dedup.params(), 0);
      long now = 0;
      for (KeyValue<byte[], byte[]> kv : changelog.readKeyValuesToList()) {
        ChangelogRecord r = ChangelogRecord.decode(kv.value);
        now = r.now();
        DedupOps.replay(rebuilt, r.op(), r.payload());
      }
      DedupStore store = (DedupStore) d.getStateStore("idem-dedup");
      ClaimStore noRows = ClaimStore.readOnly(key -> null);
      for (String id : List.of("a", "b", "c", "d")) {
        // a and b left the window two hours on; c is in both (the rebuilt table holds it as a
        // claim not yet written as rows, the store in its rows).
        assertThat(rebuilt.contains(noRows, b(id), now))
            .as(id)
            .isEqualTo(store.contains(b(id)))
            .isEqualTo(id.equals("c"));
      }
    }
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
