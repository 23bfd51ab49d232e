package io.idem.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The windowed count operator in TopologyTestDriver: each record's counts over an hour, a day and a
 * week against a naive model of bucketed windows (minutes for the hour, hours for the day, days for
 * the week), with distinct members. Fixed seed.
 */
class IdemCountsTest {

  private static final long T0 = Instant.parse("2026-11-01T00:00:00Z").toEpochMilli();
  private static final Duration HOUR = Duration.ofHours(1);
  private static final Duration DAY = Duration.ofDays(1);
  private static final Duration WEEK = Duration.ofDays(7);

  @TempDir Path state;

  /** What came out of the operator, in order. */
  private final List<WindowCounts> seen = new ArrayList<>();

  private TopologyTestDriver driver(IdemCounts<String, String> counts) {
    StreamsBuilder b = new StreamsBuilder();
    b.stream("in", Consumed.with(Serdes.String(), Serdes.String()))
        .processValues(counts.build())
        .processValues(
            () ->
                new FixedKeyProcessor<String, WindowCounts, Void>() {
                  @Override
                  public void init(FixedKeyProcessorContext<String, Void> context) {}

                  @Override
                  public void process(FixedKeyRecord<String, WindowCounts> record) {
                    seen.add(record.value());
                  }
                });
    Topology t = b.build();
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "counts-test");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    p.put(StreamsConfig.STATE_DIR_CONFIG, state.toString());
    return new TopologyTestDriver(t, p);
  }

  private static IdemCounts<String, String> counts() {
    return IdemCounts.<String, String>byKey(Serdes.String().serializer())
        .distinct((user, ip) -> ip.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void eachRecordGoesOnWithItsNamesCounts() {
    try (TopologyTestDriver d = driver(counts())) {
      TestInputTopic<String, String> in =
          d.createInputTopic("in", Serdes.String().serializer(), Serdes.String().serializer());
      in.pipeInput("alice", "10.0.0.1", T0);
      in.pipeInput("alice", "10.0.0.2", T0 + 600_000);
      in.pipeInput("bob", "10.0.0.1", T0 + 600_000);
      in.pipeInput("alice", "10.0.0.1", T0 + 2 * 3_600_000);
      in.pipeInput("alice", "10.0.0.3", T0 + 2 * 86_400_000);
    }
    assertThat(seen).extracting(c -> c.count(HOUR)).containsExactly(1L, 2L, 1L, 1L, 1L);
    assertThat(seen).extracting(c -> c.count(DAY)).containsExactly(1L, 2L, 1L, 3L, 1L);
    assertThat(seen).extracting(c -> c.count(WEEK)).containsExactly(1L, 2L, 1L, 3L, 4L);
    assertThat(seen)
        .extracting(c -> Math.round(c.distinct(DAY)))
        .containsExactly(1L, 2L, 1L, 2L, 1L);
    assertThat(seen)
        .extracting(c -> Math.round(c.distinct(WEEK)))
        .containsExactly(1L, 2L, 1L, 2L, 3L);
  }

  @Test
  void againstANaiveModelOfBucketedWindows() {
    Random r = new Random(4);
    List<long[]> records = new ArrayList<>(); // {user, time}
    long t = T0;
    for (int i = 0; i < 3000; i++) {
      t += r.nextInt(4) == 0 ? r.nextLong(30 * 3_600_000L) : r.nextLong(120_000);
      records.add(new long[] {r.nextInt(5), t});
    }
    try (TopologyTestDriver d = driver(IdemCounts.byKey(Serdes.String().serializer()))) {
      TestInputTopic<String, String> in =
          d.createInputTopic("in", Serdes.String().serializer(), Serdes.String().serializer());
      for (long[] rec : records) {
        in.pipeInput("u" + rec[0], "x", rec[1]);
      }
      // Rows past every window went: five names keep at most three rows of minutes, three of
      // hours and two of days each (64 buckets a row), not the hundreds the stream's span made.
      long rows;
      try (var it = d.getKeyValueStore("idem-counts").all()) {
        rows =
            java.util.stream.StreamSupport.stream(
                    java.util.Spliterators.spliteratorUnknownSize(it, 0), false)
                .count();
      }
      assertThat(records.getLast()[1] - T0).isGreaterThan(20 * 86_400_000L);
      assertThat(rows).isLessThanOrEqualTo(5 * 8);
    }
    assertThat(seen).hasSize(records.size());
    for (int i = 0; i < records.size(); i++) {
      long user = records.get(i)[0];
      long end = records.get(i)[1];
      long[] expected = new long[3];
      long[][] buckets = {{60_000, 60}, {3_600_000, 24}, {86_400_000, 7}};
      for (int j = 0; j <= i; j++) {
        if (records.get(j)[0] != user) {
          continue;
        }
        for (int w = 0; w < 3; w++) {
          long b = buckets[w][0];
          long first = Math.floorDiv(end, b) - buckets[w][1] + 1;
          if (Math.floorDiv(records.get(j)[1], b) >= first) {
            expected[w]++;
          }
        }
      }
      assertThat(seen.get(i).counts()).as("record %d", i).containsExactly(expected);
    }
  }

  @Test
  void aWindowNoResolutionKeeps_isRefusedWhenBuilt() {
    assertThatThrownBy(() -> counts().windows(Duration.ofDays(30)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no resolution's bucket divides it and keeps it");
  }

  @Test
  void distinctMembers_estimateWithinTheSketchsError() {
    Set<String> ips = new HashSet<>();
    try (TopologyTestDriver d = driver(counts())) {
      TestInputTopic<String, String> in =
          d.createInputTopic("in", Serdes.String().serializer(), Serdes.String().serializer());
      Random r = new Random(9);
      for (int i = 0; i < 20_000; i++) {
        String ip = "10.0." + r.nextInt(40) + "." + r.nextInt(250);
        ips.add(ip);
        in.pipeInput("carol", ip, T0 + i * 100L);
      }
    }
    double day = seen.getLast().distinct(DAY);
    assertThat(day).isBetween(ips.size() * 0.95, ips.size() * 1.05);
  }
}
