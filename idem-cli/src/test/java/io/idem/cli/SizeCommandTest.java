package io.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.dedup.DedupSizing;
import io.idem.core.dedup.DedupTable;
import io.idem.core.dedup.DedupTable.Params;
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
  void cookie_json_measuresTheCodecItself() throws Exception {
    Map<String, Object> c =
        object(
            json(Run.main("", "size", "--cookie", "4096", "--error", "0.01", "--json")), "cookie");
    int capacity = (int) integer(c, "capacity");
    assertThat(capacity)
        .isEqualTo(io.idem.core.seen.SeenCacheCodec.forBudget(4096, 0.01).capacity());
    // About log2(100) + 1.44 bits an item: 4096 characters (3072 bytes) hold some 3,000 at 1 %.
    assertThat(capacity).isBetween(2950, 3100);
    assertThat(integer(c, "fullChars")).isBetween(3900L, 4096L);
    assertThat(integer(c, "agedMinItems")).isBetween(capacity / 2L, integer(c, "agedMaxItems"));
    assertThat(integer(c, "agedMaxItems")).isLessThanOrEqualTo(capacity);
    assertThat(decimal(c, "agedMeanItems"))
        .isBetween((double) integer(c, "agedMinItems"), capacity + 0.0);
    // Guava's filter of the same items is larger: its base64 is some 1.2 times as long.
    assertThat(integer(c, "guavaChars")).isGreaterThan(4500L);
    Map<String, Object> signed =
        object(
            json(
                Run.main(
                    "", "size", "--cookie", "4096", "--error", "0.01", "--tag", "12", "--json")),
            "cookie");
    assertThat(integer(signed, "capacity")).isLessThan(capacity);
  }

  @Test
  void cookie_human_andItsMistakes() {
    Run run = Run.main("", "size", "--cookie", "200", "--error", "0.01");
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.outText())
        .contains("Seen-cache cookie of at most 200 characters at 1 %, unsigned")
        .contains("capacity")
        .contains("Guava writeTo");
    assertThat(Run.main("", "size", "--cookie", "200").err()).contains("--cookie needs --error");
    assertThat(Run.main("", "size", "--cookie", "4", "--error", "0.01").err())
        .contains("--cookie (4) must be in [8, 65536]");
    assertThat(Run.main("", "size", "--cookie", "8", "--error", "1e-12").err())
        .contains("holds no item");
    assertThat(Run.main("", "size", "--cookie", "200", "--error", "0.01", "--capacity", "5").err())
        .contains("--capacity does not apply with --cookie");
    assertThat(Run.main("", "size", "--capacity", "5", "--error", "0.01", "--tag", "12").err())
        .contains("--tag applies only with --cookie");
  }

  @Test
  void size_json_agreesWithTheCoreSizing() {
    Map<String, Object> json =
        json(Run.main("", "size", "--capacity", "1000000", "--error", "0.01", "--json"));

    assertThat(json)
        .containsOnlyKeys("classic", "scalable-classic", "bloom", "scalable-bloom", "cuckoo");
    // RedisBloom 2.6.28's BF.INFO SIZE for the same BF.RESERVE (RedisBloomRepliesTest's
    // replies.txt), less its structs (32 bytes, and 64 a link): the bytes of the bit array.
    assertThat(integer(object(json, "classic"), "bytes")).isEqualTo(1198232 - 96);
    assertThat(integer(object(json, "classic"), "hashes")).isEqualTo(7);
    assertThat(integer(object(json, "scalable-classic"), "bytes")).isEqualTo(1378568 - 96);
    assertThat(decimal(object(json, "scalable-classic"), "error")).isEqualTo(0.005);
    assertThat(decimal(object(json, "classic"), "expectedRate")).isBetween(0.01, 0.0101);
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

    assertThat(json)
        .containsOnlyKeys(
            "classic", "scalable-classic", "bloom", "scalable-bloom", "cuckoo", "recent");
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
      quoteCharacter = '"',
      value = {
        "                           | give --capacity N --error E, or --recent --after X, or both",
        "--capacity 100             | --capacity needs --error or --window",
        "--error 0.1                | --error needs --capacity",
        "--capacity 0 --error 0.1   | --capacity (0) must be >= 1",
        "--capacity 10 --error 1.5  | --error (1.5) must be in (0, 1)",
        "--recent                   | --recent needs --after",
        "--after 5                  | --after applies only with --recent",
        "--recent --after 0         | --after (0) must be >= 1",
        "--recent --after 9 --remember 0 | --remember (0.0) must be in (0, 1)",
        "--recent --after 9 --expansion 3 | --expansion applies only with --capacity",
        "--capacity 9 --error 0.1 --bucket-size 0 | --bucket-size (0) must be in [1, 255]",
        "--capacity 9 --window 1h --expansion 3 | --expansion applies only with --error",
        "--capacity 9 --error 0.1 --slices 4 | --slices applies only with --window",
        "--window 10s               | --window needs --capacity or --recent",
        "--window 25x --capacity 9  | --window (25x): " + BAD_WINDOW,
        "--window 0 --capacity 9    | --window (0): " + BAD_WINDOW,
        "--window 999ms --capacity 9 | --window (999ms): " + BAD_WINDOW,
        "--window 3651d --capacity 9 | --window (3651d): " + BAD_WINDOW,
        "--window 10s --slices 11 --capacity 9 | --slices (11): " + BAD_SLICES,
        "--window 24h --slices 0 --capacity 9 | --slices (0): " + BAD_SLICES,
        "--window 24h --slices 1025 --recent --after 9 | --slices (1025): " + BAD_SLICES,
        "--window 24h --slices x --capacity 9 | invalid value for option '--slices': 'x' is not an int",
        "--window 1h --capacity 2e12 | dedup-exact: capacity must be from 1 to 2^40",
        "--window 1h --slices 1 --capacity 1T | dedup-exact: " + SLICE_TOO_LARGE,
      })
  void size_badArguments_exit2WithOneLine(String args, String message) {
    String[] argv = args == null ? new String[] {"size"} : ("size " + args.strip()).split(" ");

    Run run = Run.main("", argv);

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("idem size: " + message.strip() + " (see idem size --help)\n");
  }

  static final String BAD_WINDOW =
      "window must be seconds or a duration such as 90s, 15m, 24h or 7d, from 1s to 3650d";
  static final String BAD_SLICES =
      "SLICES must be from 1 to 1024, with slices of at least one second";
  static final String SLICE_TOO_LARGE =
      "a slice's filter would be larger than 16 GiB: use more SLICES or a smaller capacity";

  /** One EXACT or FILTER table in the JSON against the server's sizing of the same parameters. */
  private static void assertDedup(Map<String, Object> json, Params p) {
    long bytes = DedupSizing.bytes(p);
    assertThat(integer(json, "capacity")).isEqualTo(p.capacity());
    assertThat(integer(json, "windowMillis")).isEqualTo(p.windowMillis());
    assertThat(integer(json, "slices")).isEqualTo(p.slices());
    assertThat(integer(json, "liveSlices")).isEqualTo(DedupSizing.maxLiveSlices(p));
    assertThat(integer(json, "sliceCapacity")).isEqualTo(DedupSizing.sliceCapacity(p));
    assertThat(decimal(json, "sliceErrorRate")).isEqualTo(DedupSizing.sliceErrorRate(p));
    assertThat(integer(json, "sliceBytes")).isEqualTo(DedupSizing.sliceBytes(p));
    assertThat(integer(json, "bytes")).isEqualTo(bytes);
    assertThat(integer(json, "bits")).isEqualTo(bytes * 8);
    assertThat(decimal(json, "bitsPerItem")).isEqualTo(bytes * 8.0 / p.capacity());
    // What a slice's filter is built with (SliceFilters.create), live slices times over: the
    // core's scalable Bloom filter's first layer or, where smaller for FILTER, a cuckoo filter of
    // 4-slot buckets with 500 kicks.
    long bloom =
        ScalableBloomFilter.layerSizing(
                DedupSizing.sliceCapacity(p),
                DedupSizing.sliceErrorRate(p),
                ScalableBloomFilter.DEFAULT_EXPANSION,
                true,
                0)
            .bytes();
    long slice = bloom;
    if (p.mode() == DedupTable.Mode.FILTER) {
      long cuckoo =
          CuckooFilter.sizing(DedupSizing.sliceCapacity(p), DedupSizing.sliceErrorRate(p), 4, 500)
              .bytes();
      slice = Math.min(bloom, cuckoo);
      assertThat(json.get("sliceFilter")).isEqualTo(cuckoo <= bloom ? "cuckoo" : "bloom");
    } else {
      assertThat(json.get("sliceFilter")).isEqualTo("bloom");
    }
    assertThat(integer(json, "sliceBytes")).isEqualTo(slice);
    assertThat(bytes).isEqualTo(DedupSizing.maxLiveSlices(p) * slice);
  }

  @ParameterizedTest
  @CsvSource({
    // window, window ms, claims, error, --slices (0: default), slices, live slices
    "24h,   86400000, 2880000000, 0.000001, 0,  8, 9",
    "1h,     3600000,    3600000, 0.01,     0,  8, 9",
    "86400, 86400000, 2880000000, 0.01,     24, 24, 25",
    "10s,      10000,    1000000, 0.001,    0,  8, 9",
    "5s,        5000,    1000000, 0.001,    0,  5, 6",
    "10s,      10000,    1000000, 0.001,    3,  3, 5",
    "1s,        1000,          7, 0.5,      0,  1, 2",
  })
  void size_jsonDedup_agreesWithTheServerSizing(
      String window,
      long windowMillis,
      long claims,
      double error,
      int slicesGiven,
      int slices,
      int live) {
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "size",
                "--capacity",
                Long.toString(claims),
                "--error",
                Double.toString(error),
                "--window",
                window,
                "--json"));
    if (slicesGiven > 0) {
      args.addAll(List.of("--slices", Integer.toString(slicesGiven)));
    }
    Map<String, Object> json = json(Run.main("", args.toArray(String[]::new)));

    assertThat(json)
        .containsOnlyKeys(
            "classic",
            "scalable-classic",
            "bloom",
            "scalable-bloom",
            "cuckoo",
            "dedup-exact",
            "dedup-filter");
    assertThat(DedupSizing.windowMillis(window)).isEqualTo(windowMillis);
    Params exact = DedupSizing.exact(windowMillis, slices, claims);
    Params filter = DedupSizing.filter(windowMillis, slices, claims, error);
    assertThat(DedupSizing.maxLiveSlices(exact)).isEqualTo(live);
    assertDedup(object(json, "dedup-exact"), exact);
    assertThat(decimal(object(json, "dedup-exact"), "sliceErrorRate")).isEqualTo(0.01);
    assertDedup(object(json, "dedup-filter"), filter);
    assertThat(decimal(object(json, "dedup-filter"), "error")).isEqualTo(error);
    assertThat(decimal(object(json, "dedup-filter"), "sliceErrorRate")).isEqualTo(error / live);
  }

  @Test
  void size_jsonDedupDay_matchesTheFiguresInTheDocs() {
    Map<String, Object> json =
        json(
            Run.main(
                "",
                "size",
                "--capacity",
                "2.88e9",
                "--error",
                "1e-6",
                "--window",
                "24h",
                "--json"));

    // docs/commands/dedup.md, "Choosing a mode": 8 slices, 13.06 and 31.38 bits per id.
    Map<String, Object> exact = object(json, "dedup-exact");
    assertThat(integer(exact, "sliceCapacity")).isEqualTo(360_000_000L);
    assertThat(decimal(exact, "bitsPerItem")).isCloseTo(13.06, within(0.005));
    assertThat(decimal(object(json, "dedup-filter"), "bitsPerItem"))
        .isCloseTo(31.38, within(0.005));
  }

  @Test
  void size_capacityAndWindowWithoutError_showsOnlyTheExactTable() {
    Map<String, Object> json =
        json(Run.main("", "size", "--capacity", "1M", "--window", "90s", "--json"));

    assertThat(json).containsOnlyKeys("dedup-exact");
    assertDedup(object(json, "dedup-exact"), DedupSizing.exact(90_000, 8, 1_000_000));
  }

  @Test
  void size_jsonDedupRecent_hasTheSlotsOfTheRecentSizingAtTwentyFourBytes() {
    Map<String, Object> json =
        json(Run.main("", "size", "--recent", "--after", "3.6e6", "--window", "1h", "--json"));

    assertThat(json).containsOnlyKeys("recent", "dedup-recent");
    long slots = RecentSet.slotsToRemember(3_600_000, 0.9);
    Params p = DedupSizing.recent(3_600_000, 8, slots);
    Map<String, Object> r = object(json, "dedup-recent");
    assertThat(integer(r, "slots")).isEqualTo(slots);
    assertThat(integer(r, "bytesPerSlot")).isEqualTo(24);
    assertThat(integer(r, "bytes")).isEqualTo(DedupSizing.bytes(p)).isEqualTo(slots * 24);
    assertThat(integer(r, "liveSlices")).isEqualTo(9);
    assertThat(integer(r, "maxSlots")).isEqualTo(715_827_879L);
    assertThat(decimal(r, "bitsPerItem")).isEqualTo(slots * 192.0 / 3_600_000);
  }

  @Test
  void size_dedupRecentBeyondATable_isNotedWhileRecentIsShown() {
    // 759 M slots: within a RecentSet (1,073,741,819), beyond a dedup table (715,827,879).
    long slots = RecentSet.slotsToRemember(80_000_000, 0.9);
    assertThat(slots).isBetween(DedupSizing.MAX_SLOTS + 1, RecentSet.MAX_SLOTS);

    Run human = Run.main("", "size", "--recent", "--after", "80M", "--window", "1h");
    Run json = Run.main("", "size", "--recent", "--after", "80M", "--window", "1h", "--json");

    assertThat(human.exitCode()).isZero();
    assertThat(human.outText())
        .contains("\nrecent ")
        .doesNotContain("\ndedup-recent ")
        .contains("cannot be made: dedup-recent: slots must be from 1 to 715827879\n");
    assertThat(json(json)).containsOnlyKeys("recent");
    assertThat(json.err())
        .isEqualTo("idem size: dedup-recent: slots must be from 1 to 715827879\n");
  }

  @Test
  void size_humanWithWindow_showsTheThreeDedupRows() {
    Run run =
        Run.main(
            "",
            "size",
            "--capacity",
            "3.6e6",
            "--error",
            "0.01",
            "--window",
            "1h",
            "--recent",
            "--after",
            "3.6e6");

    long exact = DedupSizing.bytes(DedupSizing.exact(3_600_000, 8, 3_600_000));
    long filter = DedupSizing.bytes(DedupSizing.filter(3_600_000, 8, 3_600_000, 0.01));
    long slots = RecentSet.slotsToRemember(3_600_000, 0.9);
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.outText())
        .startsWith(
            "capacity 3600000, error 0.01: lower bound log2(1/E) = 6.64 bits per item\n"
                + "dedup table: window 1h in 8 slices of 450s, up to 9 live;"
                + " 3600000 claims per window\n\n")
        .containsPattern(
            "\ndedup-exact +" + exact * 8 + " +" + exact + " +\\S+ \\S+ +13.06 +- +-\n")
        .containsPattern(
            "\ndedup-filter +" + filter * 8 + " +" + filter + " +\\S+ \\S+ +15.56 +2.34 +-\n")
        .containsPattern("\ndedup-recent +" + slots * 192 + " +" + slots * 24 + " ")
        .contains(
            "\ndedup-exact: the in-memory index, 9 live slices' bloom filters of 450000 claims at"
                + " 0.01, ")
        .contains("\ndedup-filter: 9 live slices' cuckoo filters of 450000 claims at 0.00111, ")
        .contains("the claims live on disk, about 64 to a RocksDB row, each its id and owner")
        .contains("so each gets E / 9 and together they stay within E\n")
        .contains(
            "\ndedup-recent: "
                + slots
                + " slots of 24 bytes (a 16-byte id digest, a 4-byte owner hash and a 4-byte"
                + " slice), allocated when the table is made; a dedup table holds at most"
                + " 715827879 slots\n");
  }

  @Test
  void size_withoutWindow_showsNoDedupTable() {
    Run run =
        Run.main("", "size", "--capacity", "1M", "--error", "0.01", "--recent", "--after", "9");

    assertThat(run.outText()).doesNotContain("dedup");
  }

  @ParameterizedTest
  @CsvSource({"10800000, 3h", "450000, 450s", "1250, 1250ms", "120000, 2m", "86400000, 1d"})
  void duration_printsTheLargestWholeUnit(long millis, String expected) {
    assertThat(SizeCommand.duration(millis)).isEqualTo(expected);
  }

  private static org.assertj.core.data.Offset<Double> within(double d) {
    return org.assertj.core.data.Offset.offset(d);
  }
}
