package io.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.filter.BloomFilter;
import io.idem.core.filter.CuckooFilter;
import io.idem.core.filter.RecentSet;
import io.idem.core.filter.ScalableBloomFilter;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SizeCommandTest {

  @SuppressWarnings("unchecked")
  private static Map<String, Object> json(Run run) {
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.outText()).endsWith("}\n").hasLineCount(1);
    return (Map<String, Object>) MiniJson.parse(run.outText());
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> object(Map<String, Object> json, String key) {
    return (Map<String, Object>) json.get(key);
  }

  private static long integer(Map<String, Object> json, String key) {
    return ((BigDecimal) json.get(key)).longValueExact();
  }

  private static double decimal(Map<String, Object> json, String key) {
    return ((BigDecimal) json.get(key)).doubleValue();
  }

  @Test
  void size_json_agreesWithTheCoreSizing() {
    Map<String, Object> json =
        json(Run.main("", "size", "--capacity", "1000000", "--error", "0.01", "--json"));

    assertThat(json).containsOnlyKeys("bloom", "scalable-bloom", "cuckoo");
    BloomFilter.Sizing bloom = BloomFilter.sizing(1_000_000, 0.01);
    Map<String, Object> b = object(json, "bloom");
    assertThat(integer(b, "bits")).isEqualTo(bloom.bits());
    assertThat(integer(b, "bytes")).isEqualTo(bloom.bytes());
    assertThat(integer(b, "hashes")).isEqualTo(bloom.hashes());
    assertThat(decimal(b, "bitsPerItem")).isEqualTo(bloom.bitsPerItem());
    assertThat(decimal(b, "lowerBoundBitsPerItem")).isCloseTo(6.643856, within(1e-6));

    CuckooFilter.Sizing cuckoo = CuckooFilter.sizing(1_000_000, 0.01, 2, 20);
    Map<String, Object> c = object(json, "cuckoo");
    assertThat(integer(c, "bits")).isEqualTo(cuckoo.bits());
    assertThat(integer(c, "bytes")).isEqualTo(cuckoo.bytes());
    assertThat(decimal(c, "bitsPerItem")).isEqualTo(cuckoo.bitsPerItem());
    assertThat(integer(c, "fingerprintBits")).isEqualTo(cuckoo.fingerprintBits());
    assertThat(decimal(c, "loadAtCapacity")).isEqualTo(cuckoo.loadAtCapacity());
    assertThat(integer(c, "slots")).isEqualTo(cuckoo.buckets() * 2);

    Map<String, Object> s = object(json, "scalable-bloom");
    BloomFilter.Sizing layer0 = ScalableBloomFilter.layerSizing(1_000_000, 0.01, 2, true, 0);
    assertThat(integer(s, "bits")).isEqualTo(layer0.bits());
    assertThat(integer(s, "bytes")).isEqualTo(layer0.bytes());
    assertThat(integer(s, "hashes")).isEqualTo(layer0.hashes());
    assertThat(decimal(s, "bitsPerItem")).isEqualTo(layer0.bitsPerItem());
  }

  @Test
  @SuppressWarnings("unchecked")
  void size_jsonLayers_growUntilSixtyFourTimesTheCapacity() {
    Map<String, Object> json =
        json(Run.main("", "size", "--capacity", "1000", "--error", "0.001", "--json"));

    List<Object> layers = (List<Object>) object(json, "scalable-bloom").get("layers");
    // 1 + 2 + ... + 64 = 127 >= 64 > 63 = 1 + ... + 32: seven layers.
    assertThat(layers).hasSize(7);
    long totalBytes = 0;
    for (int i = 0; i < layers.size(); i++) {
      Map<String, Object> layer = (Map<String, Object>) layers.get(i);
      BloomFilter.Sizing expected = ScalableBloomFilter.layerSizing(1000, 0.001, 2, true, i);
      totalBytes += expected.bytes();
      assertThat(integer(layer, "layer")).isEqualTo(i);
      assertThat(integer(layer, "capacity")).isEqualTo(1000L << i);
      assertThat(decimal(layer, "error")).isEqualTo(expected.errorRate());
      assertThat(integer(layer, "bits")).isEqualTo(expected.bits());
      assertThat(integer(layer, "bytes")).isEqualTo(expected.bytes());
      assertThat(integer(layer, "cumulativeCapacity")).isEqualTo(1000L * ((2L << i) - 1));
      assertThat(integer(layer, "cumulativeBytes")).isEqualTo(totalBytes);
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void size_jsonExpansionOne_listsSixtyFourLayers() {
    Map<String, Object> json =
        json(
            Run.main(
                "", "size", "--capacity", "100", "--error", "0.01", "--expansion", "1", "--json"));

    assertThat((List<Object>) object(json, "scalable-bloom").get("layers")).hasSize(64);
  }

  @Test
  void size_recentHourAtNinetyPercent_printsTheSlotsTheCoreComputes() {
    long slots = RecentSet.slotsToRemember(3_600_000, 0.9);
    // The least N with (1 - 1/N)^3600000 >= 0.9, checked with 60-digit decimals: at 34,168,398
    // the probability is 0.89999999947, at 34,168,399 it is 0.90000000224.
    assertThat(slots).isEqualTo(34_168_399L);

    Run run = Run.main("", "size", "--recent", "--after", "3600000", "--remember", "0.9");

    assertThat(run.exitCode()).isZero();
    assertThat(run.outText())
        .contains("recent: " + slots + " slots of 16 bytes")
        .containsPattern("recent +" + slots * 128 + " +" + slots * 16 + " ");
  }

  @Test
  void size_recentBeyondAnySet_isAUsageErrorNotAnOverflow() {
    Run run = Run.main("", "size", "--recent", "--after", "5e18", "--remember", "0.99");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("needs more slots than a RecentSet holds");
    assertThat(Run.main("", "uniq", "--window", "1e17", "--remember", "0.99").err())
        .contains("more than a RecentSet holds");
  }

  @Test
  void size_jsonRecentOnly_printsOnlyRecent() {
    Map<String, Object> json =
        json(Run.main("", "size", "--recent", "--after", "3.6e6", "--remember", "0.9", "--json"));

    assertThat(json).containsOnlyKeys("recent");
    Map<String, Object> recent = object(json, "recent");
    long slots = RecentSet.slotsToRemember(3_600_000, 0.9);
    assertThat(integer(recent, "slots")).isEqualTo(slots);
    assertThat(integer(recent, "bytes")).isEqualTo(slots * 16);
    assertThat(integer(recent, "bits")).isEqualTo(slots * 128);
    assertThat(decimal(recent, "bitsPerItem")).isEqualTo(slots * 128.0 / 3_600_000);
    assertThat(decimal(recent, "rememberProbability")).isGreaterThanOrEqualTo(0.9);
  }

  @Test
  void size_jsonRecentAndCapacity_printsAllFour() {
    Map<String, Object> json =
        json(
            Run.main(
                "",
                "size",
                "--capacity",
                "1M",
                "--error",
                "0.001",
                "--recent",
                "--after",
                "1000",
                "--json"));

    assertThat(json).containsOnlyKeys("bloom", "scalable-bloom", "cuckoo", "recent");
    assertThat(integer(object(json, "recent"), "slots"))
        .isEqualTo(RecentSet.slotsToRemember(1000, 0.9));
  }

  @Test
  void size_human_showsEachTypeAndTheLowerBound() {
    Run run = Run.main("", "size", "--capacity", "1000000", "--error", "0.01");

    BloomFilter.Sizing bloom = BloomFilter.sizing(1_000_000, 0.01);
    assertThat(run.exitCode()).isZero();
    assertThat(run.outText())
        .startsWith("capacity 1000000, error 0.01: lower bound log2(1/E) = 6.64 bits per item\n")
        .containsPattern(
            "\nbloom +" + bloom.bits() + " +" + bloom.bytes() + " +\\S+ \\S+ +9.97 +1.50 +6\n")
        .contains("\nscalable-bloom ")
        .contains("\ncuckoo ")
        .contains("load 0.58 at capacity")
        .contains("scalable-bloom layers, expansion 2, until 64 x capacity:");
    assertThat(run.outText()).doesNotContain("recent");
  }

  @Test
  void size_cuckooCannotReachTheRate_stillShowsBloom() {
    Run run = Run.main("", "size", "--capacity", "1000", "--error", "1e-12");

    assertThat(run.exitCode()).isZero();
    assertThat(run.outText())
        .contains("\nbloom ")
        .contains("cannot be made: cuckoo: error rate (1.0E-12) is below what 32-bit");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "                           | give --capacity N --error E, or --recent --after X, or both",
        "--capacity 100             | --capacity needs --error",
        "--error 0.1                | --error needs --capacity",
        "--capacity 0 --error 0.1   | --capacity (0) must be >= 1",
        "--capacity 10 --error 1.5  | --error (1.5) must be in (0, 1)",
        "--recent                   | --recent needs --after",
        "--after 5                  | --after applies only with --recent",
        "--recent --after 0         | --after (0) must be >= 1",
        "--recent --after 9 --remember 0 | --remember (0.0) must be in (0, 1)",
        "--recent --after 9 --expansion 3 | --expansion applies only with --capacity",
        "--capacity 9 --error 0.1 --bucket-size 0 | --bucket-size (0) must be in [1, 255]",
      })
  void size_badArguments_exit2WithOneLine(String args, String message) {
    String[] argv = args == null ? new String[] {"size"} : ("size " + args.strip()).split(" ");

    Run run = Run.main("", argv);

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("idem size: " + message.strip() + " (see idem size --help)\n");
  }

  private static org.assertj.core.data.Offset<Double> within(double d) {
    return org.assertj.core.data.Offset.offset(d);
  }
}
