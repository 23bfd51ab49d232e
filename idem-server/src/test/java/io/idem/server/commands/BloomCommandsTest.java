package io.idem.server.commands;

import static io.idem.server.commands.Harness.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.filter.BloomFilter;
import io.idem.core.filter.ScalableBloomFilter;
import io.idem.core.hash.Hash128;
import io.idem.server.commands.bloom.BloomCodec;
import io.idem.server.dispatch.CommandSpec;
import io.idem.server.dispatch.CommandSpec.Flag;
import io.idem.server.engine.ValueCodec;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BloomCommandsTest {

  private static final String DEFAULT_INFO =
      "{Capacity=(integer) 100, Size=(integer) 192, Number of filters=(integer) 1, "
          + "Number of items inserted=(integer) %d, Expansion rate=(integer) 2}";

  private final Harness h = new Harness();

  {
    h.config.set("bf-layout", "blocked"); // Idem's own layout; the classic one is tested apart
  }

  // ---- BF.RESERVE

  @Test
  void reserve_largeFilter_keepsItsBitsOnTheHeap() {
    // 1 M items at 1 %: 1.2 MB, which a filter made with the library's default would keep off it.
    assertThat(h.show("BF.RESERVE", "k", "0.01", "1000000")).isEqualTo("OK");
    ScalableBloomFilter f = h.engine.read(bytes("k"), e -> e.valueAs(BloomCodec.INSTANCE));
    assertThat(f.layer(0).storage()).isEqualTo(BloomFilter.Storage.HEAP);
    assertThat(f.layer(0).sizeInBytes()).isGreaterThan(1L << 20);
  }

  @Test
  void codecRead_largeFilterWrittenAligned_comesBackOnTheHeap() throws Exception {
    // As a snapshot load reads one: the library's default (ALIGNED) on the way in, HEAP out.
    ScalableBloomFilter aligned = ScalableBloomFilter.create(1_000_000, 0.01, 2);
    assertThat(aligned.layer(0).storage()).isEqualTo(BloomFilter.Storage.ALIGNED);
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    aligned.writeTo(out);
    ScalableBloomFilter read =
        BloomCodec.INSTANCE.read(new java.io.ByteArrayInputStream(out.toByteArray()), 1L << 30);
    assertThat(read.layer(0).storage()).isEqualTo(BloomFilter.Storage.HEAP);
  }

  @Test
  void reserve_freeKey_createsAnEmptyFilter() {
    assertThat(h.show("BF.RESERVE", "k", "0.001", "1000")).isEqualTo("OK");
    assertThat(h.show("BF.INFO", "k"))
        .isEqualTo(
            "{Capacity=(integer) 1000, Size=(integer) 2240, Number of filters=(integer) 1, "
                + "Number of items inserted=(integer) 0, Expansion rate=(integer) 2}");
    assertThat(h.show("BF.INFO", "k", "ERROR")).isEqualTo("[(double) 0.001]");
    assertThat(h.engine.type(bytes("k"))).isEqualTo("MBbloom--");
  }

  @Test
  void reserve_existingKey_itemExists() {
    h.call("BF.RESERVE", "k", "0.01", "100");
    assertThat(h.show("BF.RESERVE", "k", "0.01", "100")).isEqualTo("(error) ERR item exists");
    assertThat(h.show("BF.RESERVE", "k", "0.5", "5", "NONSCALING"))
        .isEqualTo("(error) ERR item exists");
    assertThat(h.show("BF.INFO", "k", "ERROR")).isEqualTo("[(double) 0.01]");
  }

  @Test
  void reserve_badErrorRate_saysSoAndCreatesNothing() {
    for (String bad :
        List.of("abc", "", " 0.01", "0.01 ", "nan", "0.01x", "1e-400", "1e999", "1d")) {
      assertThat(h.show("BF.RESERVE", "k", bad, "100"))
          .as(bad)
          .isEqualTo("(error) ERR bad error rate");
    }
    for (String out : List.of("0", "1", "-0.5", "1.5", "inf", "-inf", "0e5")) {
      assertThat(h.show("BF.RESERVE", "k", out, "100"))
          .as(out)
          .isEqualTo("(error) ERR (0 < error rate range < 1) ");
    }
    assertThat(h.engine.type(bytes("k"))).isEqualTo("none");
  }

  @Test
  void reserve_errorRateForms_asRedisReadsThem() {
    assertThat(h.show("BF.RESERVE", "a", "1e-3", "100")).isEqualTo("OK");
    assertThat(h.show("BF.RESERVE", "b", ".5", "100")).isEqualTo("OK");
    assertThat(h.show("BF.RESERVE", "c", "+0.25", "100")).isEqualTo("OK");
    assertThat(h.show("BF.INFO", "a", "ERROR")).isEqualTo("[(double) 0.001]");
    // RedisBloom caps rates above 0.25 silently; Idem keeps the rate asked for.
    assertThat(h.show("BF.RESERVE", "d", "0.5", "100")).isEqualTo("OK");
    assertThat(h.show("BF.INFO", "d", "ERROR")).isEqualTo("[(double) 0.5]");
  }

  @Test
  void reserve_badCapacity_saysSo() {
    for (String bad : List.of("abc", "1.5", "007", "+5", " 5", "", "99999999999999999999")) {
      assertThat(h.show("BF.RESERVE", "k", "0.01", bad))
          .as(bad)
          .isEqualTo("(error) ERR bad capacity");
    }
    for (String out : List.of("0", "-1")) {
      assertThat(h.show("BF.RESERVE", "k", "0.01", out))
          .as(out)
          .isEqualTo("(error) ERR (capacity should be larger than 0)");
    }
    for (String out : List.of("1073741825", "9223372036854775807")) {
      assertThat(h.show("BF.RESERVE", "k", "0.01", out))
          .as(out)
          .isEqualTo("(error) ERR capacity must be at most 1073741824");
    }
    assertThat(h.engine.type(bytes("k"))).isEqualTo("none");
  }

  @Test
  void reserve_expansionAndNonScaling() {
    assertThat(h.show("BF.RESERVE", "e4", "0.01", "100", "EXPANSION", "4")).isEqualTo("OK");
    assertThat(h.show("BF.INFO", "e4", "EXPANSION")).isEqualTo("[(integer) 4]");
    assertThat(h.show("BF.RESERVE", "ns", "0.01", "100", "NONSCALING")).isEqualTo("OK");
    assertThat(h.show("BF.INFO", "ns"))
        .isEqualTo(
            "{Capacity=(integer) 100, Size=(integer) 128, Number of filters=(integer) 1, "
                + "Number of items inserted=(integer) 0, Expansion rate=(nil)}");
    // RedisBloom refuses EXPANSION 0, and any expansion with NONSCALING.
    assertThat(h.show("BF.RESERVE", "e0", "0.01", "100", "expansion", "0"))
        .isEqualTo("(error) ERR expansion should be greater or equal to 1");
    assertThat(h.show("BF.RESERVE", "both", "0.01", "100", "NONSCALING", "EXPANSION", "0"))
        .isEqualTo("(error) Nonscaling filters cannot expand");
    assertThat(h.show("BF.RESERVE", "rev", "0.01", "100", "EXPANSION", "3", "nonscaling"))
        .isEqualTo("(error) Nonscaling filters cannot expand");
    assertThat(h.show("BF.RESERVE", "max", "0.01", "100", "EXPANSION", "32768")).isEqualTo("OK");
  }

  @Test
  void reserve_badExpansion_inRedisBloomsOrder() {
    assertThat(h.show("BF.RESERVE", "k", "0.01", "100", "EXPANSION"))
        .isEqualTo("(error) ERR no expansion");
    assertThat(h.show("BF.RESERVE", "k", "0.01", "100", "NONSCALING", "EXPANSION"))
        .isEqualTo("(error) ERR no expansion");
    assertThat(h.show("BF.RESERVE", "k", "0.01", "100", "EXPANSION", "x"))
        .isEqualTo("(error) ERR bad expansion");
    assertThat(h.show("BF.RESERVE", "k", "0.01", "100", "EXPANSION", "-1"))
        .isEqualTo("(error) ERR expansion should be greater or equal to 1");
    assertThat(h.show("BF.RESERVE", "k", "0.01", "100", "EXPANSION", "32769"))
        .isEqualTo("(error) ERR expansion must be at most 32768");
    // Non-scaling with a non-zero expansion is refused before the range is looked at.
    assertThat(h.show("BF.RESERVE", "k", "0.01", "100", "NONSCALING", "EXPANSION", "-1"))
        .isEqualTo("(error) Nonscaling filters cannot expand");
    // The rate is checked before everything else.
    assertThat(h.show("BF.RESERVE", "k", "x", "y", "EXPANSION"))
        .isEqualTo("(error) ERR bad error rate");
    assertThat(h.engine.type(bytes("k"))).isEqualTo("none");
  }

  @Test
  void reserve_unknownOrRepeatedOption_syntaxError() {
    assertThat(h.show("BF.RESERVE", "k", "0.01", "100", "FOO"))
        .isEqualTo("(error) ERR syntax error");
    assertThat(h.show("BF.RESERVE", "k", "0.01", "100", "EXPANSION", "2", "EXPANSION"))
        .isEqualTo("(error) ERR syntax error");
    assertThat(h.show("BF.RESERVE", "k", "0.01", "100", "NONSCALING", "NONSCALING"))
        .isEqualTo("(error) ERR syntax error");
    assertThat(h.engine.type(bytes("k"))).isEqualTo("none");
  }

  @Test
  void reserve_arity() {
    String arity = "(error) ERR wrong number of arguments for 'bf.reserve' command";
    assertThat(h.show("BF.RESERVE", "k")).isEqualTo(arity);
    assertThat(h.show("BF.RESERVE", "k", "0.01")).isEqualTo(arity);
    assertThat(h.show("BF.RESERVE", "k", "0.01", "100", "EXPANSION", "2", "NONSCALING", "x"))
        .isEqualTo(arity);
  }

  @Test
  void reserve_moreThanTheHeap_insufficientMemoryWithoutAllocating() {
    // About 6 GB of bits: refused by arithmetic, never attempted.
    assertThat(h.show("BF.RESERVE", "k", "0.0000000001", "1073741824", "NONSCALING"))
        .isEqualTo("(error) ERR Insufficient memory to create filter");
    assertThat(h.show("BF.RESERVE", "k", "0.0000000001", "1073741824"))
        .isEqualTo("(error) ERR Insufficient memory to create filter");
    assertThat(h.engine.type(bytes("k"))).isEqualTo("none");
  }

  @Test
  void reserve_pastMaxmemory_insufficientMemory() {
    h.engine.setMaxMemory(100_000);
    assertThat(h.show("BF.RESERVE", "k", "0.01", "1000000"))
        .isEqualTo("(error) ERR Insufficient memory to create filter");
    assertThat(h.show("BF.ADD", "k", "a")).isEqualTo("(integer) 1");
  }

  // ---- BF.ADD, BF.MADD

  @Test
  void add_freeKey_createsWithRedisBloomsDefaults() {
    assertThat(h.show("BF.ADD", "k", "a")).isEqualTo("(integer) 1");
    assertThat(h.show("BF.ADD", "k", "a")).isEqualTo("(integer) 0");
    assertThat(h.show("BF.INFO", "k")).isEqualTo(DEFAULT_INFO.formatted(1));
    assertThat(h.show("BF.INFO", "k", "ERROR")).isEqualTo("[(double) 0.01]");
  }

  @Test
  void add_binaryItems_areDistinctByTheirBytes() {
    assertThat(showBinary("BF.ADD", "k", new byte[] {0, 1})).isEqualTo("(integer) 1");
    assertThat(showBinary("BF.ADD", "k", new byte[] {0, 2})).isEqualTo("(integer) 1");
    assertThat(showBinary("BF.ADD", "k", new byte[0])).isEqualTo("(integer) 1");
    assertThat(showBinary("BF.EXISTS", "k", new byte[] {0, 1})).isEqualTo("(integer) 1");
  }

  @Test
  void madd_repeats_answerPerItem() {
    assertThat(h.show("BF.MADD", "k", "a", "b", "a"))
        .isEqualTo("[(integer) 1, (integer) 1, (integer) 0]");
    assertThat(h.show("BF.MADD", "k", "b", "c")).isEqualTo("[(integer) 0, (integer) 1]");
    assertThat(h.show("BF.CARD", "k")).isEqualTo("(integer) 3");
    assertThat(h.show("BF.INFO", "k")).isEqualTo(DEFAULT_INFO.formatted(3));
  }

  @Test
  void add_arity() {
    assertThat(h.show("BF.ADD", "k"))
        .isEqualTo("(error) ERR wrong number of arguments for 'bf.add' command");
    assertThat(h.show("BF.ADD", "k", "a", "b"))
        .isEqualTo("(error) ERR wrong number of arguments for 'bf.add' command");
    assertThat(h.show("BF.MADD", "k"))
        .isEqualTo("(error) ERR wrong number of arguments for 'bf.madd' command");
  }

  @Test
  void add_pastCapacity_growsLayersOfDoublingCapacity() {
    h.call("BF.RESERVE", "k", "0.01", "100");
    List<String> items = new ArrayList<>();
    for (int i = 0; i < 250; i++) {
      items.add("item-" + i);
    }
    String replies = h.show(cmd("BF.MADD", "k", items));
    long ones = replies.split("\\(integer\\) 1", -1).length - 1;
    assertThat(ones).isGreaterThan(240);
    assertThat(h.show("BF.INFO", "k"))
        .isEqualTo(
            "{Capacity=(integer) 300, Size=(integer) %d, Number of filters=(integer) 2, "
                    .formatted(192 + 384)
                + "Number of items inserted=(integer) %d, Expansion rate=(integer) 2}"
                    .formatted(ones));
    assertThat(h.show(cmd("BF.MEXISTS", "k", items))).doesNotContain("(integer) 0");
  }

  @Test
  void add_nonScalingFull_errorForNewItemsOnly() {
    h.call("BF.RESERVE", "k", "0.01", "10", "NONSCALING");
    int i = 0;
    while (!h.show("BF.CARD", "k").equals("(integer) 10")) {
      h.call("BF.ADD", "k", "item-" + i++);
    }
    String present = "item-0";
    String absent = absentItem("k");
    assertThat(h.show("BF.ADD", "k", present)).isEqualTo("(integer) 0");
    assertThat(h.show("BF.ADD", "k", absent)).isEqualTo("(error) ERR non scaling filter is full");
    // In an array the error ends the list, as RedisBloom's does.
    assertThat(h.show("BF.MADD", "k", present, absent, present))
        .isEqualTo("[(integer) 0, (error) ERR non scaling filter is full]");
    assertThat(h.show("BF.INSERT", "k", "ITEMS", absent, present))
        .isEqualTo("[(error) ERR non scaling filter is full]");
    assertThat(h.show("BF.CARD", "k")).isEqualTo("(integer) 10");
    assertThat(h.show("BF.EXISTS", "k", absent)).isEqualTo("(integer) 0");
  }

  @Test
  void add_growthPastMaxmemory_problemInsertingForEachNewItem() {
    h.call("BF.RESERVE", "k", "0.01", "100");
    int i = 0;
    while (!h.show("BF.CARD", "k").equals("(integer) 100")) {
      h.call("BF.ADD", "k", "item-" + i++);
    }
    h.engine.setMaxMemory(h.engine.usedMemory() + 100); // the next layer needs 384 bytes
    String a = absentItem("k");
    assertThat(h.show("BF.ADD", "k", a)).isEqualTo("(error) ERR problem inserting into filter");
    // Unlike a full non-scaling filter, this error does not end the list.
    assertThat(h.show("BF.MADD", "k", a, "item-0", a))
        .isEqualTo(
            "[(error) ERR problem inserting into filter, (integer) 0, "
                + "(error) ERR problem inserting into filter]");
    assertThat(h.show("BF.INFO", "k", "FILTERS")).isEqualTo("[(integer) 1]");
    h.engine.setMaxMemory(0);
    assertThat(h.show("BF.ADD", "k", a)).isEqualTo("(integer) 1");
    assertThat(h.show("BF.INFO", "k", "FILTERS")).isEqualTo("[(integer) 2]");
  }

  // ---- BF.INSERT

  @Test
  void insert_freeKey_createsWithDefaults() {
    assertThat(h.show("BF.INSERT", "k", "ITEMS", "a", "b", "a"))
        .isEqualTo("[(integer) 1, (integer) 1, (integer) 0]");
    assertThat(h.show("BF.INFO", "k")).isEqualTo(DEFAULT_INFO.formatted(2));
  }

  @Test
  void insert_options_configureTheNewFilter() {
    assertThat(
            h.show(
                "BF.INSERT",
                "k",
                "CAPACITY",
                "1000",
                "ERROR",
                "0.001",
                "EXPANSION",
                "4",
                "ITEMS",
                "a"))
        .isEqualTo("[(integer) 1]");
    assertThat(h.show("BF.INFO", "k"))
        .isEqualTo(
            "{Capacity=(integer) 1000, Size=(integer) 2240, Number of filters=(integer) 1, "
                + "Number of items inserted=(integer) 1, Expansion rate=(integer) 4}");
    assertThat(h.show("BF.INFO", "k", "ERROR")).isEqualTo("[(double) 0.001]");
    assertThat(h.show("BF.INSERT", "ns", "nonscaling", "items", "a")).isEqualTo("[(integer) 1]");
    assertThat(h.show("BF.INFO", "ns", "EXPANSION")).isEqualTo("[(nil)]");
    assertThat(h.show("BF.INSERT", "e0", "EXPANSION", "0", "ITEMS", "a"))
        .isEqualTo("(error) Bad argument received");
    assertThat(h.engine.type(bytes("e0"))).isEqualTo("none");
    // NONSCALING wins over an expansion, without RESERVE's error.
    assertThat(h.show("BF.INSERT", "ne", "NONSCALING", "EXPANSION", "3", "ITEMS", "a"))
        .isEqualTo("[(integer) 1]");
    assertThat(h.show("BF.INFO", "ne", "EXPANSION")).isEqualTo("[(nil)]");
  }

  @Test
  void insert_existingFilter_ignoresTheOptions() {
    h.call("BF.RESERVE", "k", "0.01", "100");
    assertThat(h.show("BF.INSERT", "k", "CAPACITY", "5000", "NONSCALING", "ITEMS", "a"))
        .isEqualTo("[(integer) 1]");
    assertThat(h.show("BF.INFO", "k")).isEqualTo(DEFAULT_INFO.formatted(1));
  }

  @Test
  void insert_noCreate_needsTheKey() {
    assertThat(h.show("BF.INSERT", "k", "NOCREATE", "ITEMS", "a"))
        .isEqualTo("(error) ERR not found");
    assertThat(h.engine.type(bytes("k"))).isEqualTo("none");
    h.call("BF.ADD", "k", "a");
    assertThat(h.show("BF.INSERT", "k", "NOCREATE", "ITEMS", "a", "b"))
        .isEqualTo("[(integer) 0, (integer) 1]");
  }

  @Test
  void insert_badOptions_saySoAndChangeNothing() {
    assertThat(h.show("BF.INSERT", "k", "ERROR", "x", "ITEMS", "a"))
        .isEqualTo("(error) Bad error rate");
    // Parsed values out of range: RedisBloom's one text, once every option is read.
    assertThat(h.show("BF.INSERT", "k", "ERROR", "1", "ITEMS", "a"))
        .isEqualTo("(error) Bad argument received");
    assertThat(h.show("BF.INSERT", "k", "ERROR", "0", "ITEMS", "a"))
        .isEqualTo("(error) Bad argument received");
    assertThat(h.show("BF.INSERT", "k", "CAPACITY", "0", "ITEMS", "a"))
        .isEqualTo("(error) Bad argument received");
    assertThat(h.show("BF.INSERT", "k", "CAPACITY", "x", "ITEMS", "a"))
        .isEqualTo("(error) Bad capacity");
    assertThat(h.show("BF.INSERT", "k", "CAPACITY", "1073741825", "ITEMS", "a"))
        .isEqualTo("(error) Bad capacity");
    assertThat(h.show("BF.INSERT", "k", "EXPANSION", "32769", "ITEMS", "a"))
        .isEqualTo("(error) Bad expansion");
    assertThat(h.show("BF.INSERT", "k", "EXPANSION", "-1", "ITEMS", "a"))
        .isEqualTo("(error) Bad argument received");
    assertThat(h.show("BF.INSERT", "k", "FOO", "ITEMS", "a"))
        .isEqualTo("(error) Unknown argument received");
    assertThat(h.show("BF.INSERT", "k", "a", "b")).isEqualTo("(error) Unknown argument received");
    // Whole words only: RedisBloom would read "CAP" as CAPACITY.
    assertThat(h.show("BF.INSERT", "k", "CAP", "100", "ITEMS", "a"))
        .isEqualTo("(error) Unknown argument received");
    assertThat(h.engine.type(bytes("k"))).isEqualTo("none");
  }

  @Test
  void insert_arity() {
    String arity = "(error) ERR wrong number of arguments for 'bf.insert' command";
    assertThat(h.show("BF.INSERT", "k", "ITEMS")).isEqualTo(arity);
    assertThat(h.show("BF.INSERT", "k", "CAPACITY", "100")).isEqualTo(arity);
    assertThat(h.show("BF.INSERT", "k", "NOCREATE", "NONSCALING")).isEqualTo(arity);
    assertThat(h.show("BF.INSERT", "k", "NONSCALING", "CAPACITY")).isEqualTo(arity);
    assertThat(h.show("BF.INSERT", "k", "ITEMS", "a", "b").startsWith("[")).isTrue();
  }

  // ---- BF.EXISTS, BF.MEXISTS, BF.CARD

  @Test
  void exists_answers() {
    assertThat(h.show("BF.EXISTS", "k", "a")).isEqualTo("(integer) 0");
    assertThat(h.show("BF.MEXISTS", "k", "a", "b")).isEqualTo("[(integer) 0, (integer) 0]");
    h.call("BF.MADD", "k", "a", "c");
    assertThat(h.show("BF.EXISTS", "k", "a")).isEqualTo("(integer) 1");
    assertThat(h.show("BF.EXISTS", "k", "b")).isEqualTo("(integer) 0");
    assertThat(h.show("BF.MEXISTS", "k", "a", "b", "c"))
        .isEqualTo("[(integer) 1, (integer) 0, (integer) 1]");
  }

  @Test
  void exists_arity() {
    assertThat(h.show("BF.EXISTS", "k"))
        .isEqualTo("(error) ERR wrong number of arguments for 'bf.exists' command");
    assertThat(h.show("BF.EXISTS", "k", "a", "b"))
        .isEqualTo("(error) ERR wrong number of arguments for 'bf.exists' command");
    assertThat(h.show("BF.MEXISTS", "k"))
        .isEqualTo("(error) ERR wrong number of arguments for 'bf.mexists' command");
  }

  @Test
  void card_countsNewItems() {
    assertThat(h.show("BF.CARD", "k")).isEqualTo("(integer) 0");
    h.call("BF.MADD", "k", "a", "b", "a");
    assertThat(h.show("BF.CARD", "k")).isEqualTo("(integer) 2");
    assertThat(h.show("BF.CARD"))
        .isEqualTo("(error) ERR wrong number of arguments for 'bf.card' command");
    assertThat(h.show("BF.CARD", "k", "x"))
        .isEqualTo("(error) ERR wrong number of arguments for 'bf.card' command");
  }

  // ---- BF.INFO

  @Test
  void info_eachField_asAnArrayOfOne() {
    h.call("BF.MADD", "k", "a", "b");
    assertThat(h.show("BF.INFO", "k", "CAPACITY")).isEqualTo("[(integer) 100]");
    assertThat(h.show("BF.INFO", "k", "size")).isEqualTo("[(integer) 192]");
    assertThat(h.show("BF.INFO", "k", "Filters")).isEqualTo("[(integer) 1]");
    assertThat(h.show("BF.INFO", "k", "ITEMS")).isEqualTo("[(integer) 2]");
    assertThat(h.show("BF.INFO", "k", "EXPANSION")).isEqualTo("[(integer) 2]");
    assertThat(h.show("BF.INFO", "k", "ERROR")).isEqualTo("[(double) 0.01]");
    assertThat(h.show("BF.INFO", "k", "BITSPERITEM")).isEqualTo("[(double) 15.36]");
    assertThat(h.show("BF.INFO", "k", "FPRATE"))
        .isEqualTo("[(double) " + expectedFpRate("a", "b") + "]");
    assertThat(h.show("BF.INFO", "k", "nope")).isEqualTo("(error) Invalid information value");
  }

  @Test
  void info_fpRate_isZeroWhenEmptyAndGrowsWithItems() {
    h.call("BF.RESERVE", "k", "0.01", "100");
    assertThat(h.show("BF.INFO", "k", "FPRATE")).isEqualTo("[(double) 0.0]");
    h.call("BF.MADD", "k", "a", "b", "c");
    assertThat(h.show("BF.INFO", "k", "FPRATE"))
        .isEqualTo("[(double) " + expectedFpRate("a", "b", "c") + "]");
  }

  @Test
  void info_missingKey_notFoundBeforeTheField() {
    assertThat(h.show("BF.INFO", "k")).isEqualTo("(error) ERR not found");
    assertThat(h.show("BF.INFO", "k", "nope")).isEqualTo("(error) ERR not found");
    assertThat(h.show("BF.INFO", "k", "a", "b"))
        .isEqualTo("(error) ERR wrong number of arguments for 'bf.info' command");
    assertThat(h.show("BF.INFO"))
        .isEqualTo("(error) ERR wrong number of arguments for 'bf.info' command");
  }

  // ---- RESP3

  @Test
  void resp3_booleansAndMaps() {
    h.session.setProtocol(3);
    assertThat(h.show("BF.ADD", "k", "a")).isEqualTo("(true)");
    assertThat(h.show("BF.ADD", "k", "a")).isEqualTo("(false)");
    assertThat(h.show("BF.MADD", "k", "a", "b")).isEqualTo("[(false), (true)]");
    assertThat(h.show("BF.INSERT", "k", "ITEMS", "b", "c")).isEqualTo("[(false), (true)]");
    assertThat(h.show("BF.EXISTS", "k", "a")).isEqualTo("(true)");
    assertThat(h.show("BF.EXISTS", "nokey", "a")).isEqualTo("(false)");
    assertThat(h.show("BF.MEXISTS", "k", "a", "zz")).isEqualTo("[(true), (false)]");
    assertThat(h.show("BF.CARD", "k")).isEqualTo("(integer) 3");
    assertThat(h.show("BF.INFO", "k")).isEqualTo(DEFAULT_INFO.formatted(3));
    assertThat(h.show("BF.INFO", "k", "CAPACITY")).isEqualTo("{Capacity=(integer) 100}");
    assertThat(h.show("BF.INFO", "k", "SIZE")).isEqualTo("{Size=(integer) 192}");
    assertThat(h.show("BF.INFO", "k", "FILTERS")).isEqualTo("{Number of filters=(integer) 1}");
    assertThat(h.show("BF.INFO", "k", "ITEMS")).isEqualTo("{Number of items inserted=(integer) 3}");
    assertThat(h.show("BF.INFO", "k", "EXPANSION")).isEqualTo("{Expansion rate=(integer) 2}");
    assertThat(h.show("BF.INFO", "k", "ERROR")).isEqualTo("{Error rate=(double) 0.01}");
    assertThat(h.show("BF.INFO", "k", "BITSPERITEM")).isEqualTo("{Bits per item=(double) 15.36}");
    assertThat(h.show("BF.INFO", "k", "FPRATE"))
        .isEqualTo(
            "{Estimated false positive rate=(double) " + expectedFpRate("a", "b", "c") + "}");
    h.call("BF.RESERVE", "ns", "0.01", "100", "NONSCALING");
    assertThat(h.show("BF.INFO", "ns", "EXPANSION")).isEqualTo("{Expansion rate=(nil)}");
  }

  // ---- types

  @Test
  void everyCommand_keyOfAnotherType_wrongType() {
    h.engine.write(bytes("s"), tx -> tx.create(OtherCodec.INSTANCE, "v", new byte[0]));
    String wrong = "(error) WRONGTYPE Operation against a key holding the wrong kind of value";
    assertThat(h.show("BF.RESERVE", "s", "0.01", "100")).isEqualTo(wrong);
    assertThat(h.show("BF.ADD", "s", "a")).isEqualTo(wrong);
    assertThat(h.show("BF.MADD", "s", "a")).isEqualTo(wrong);
    assertThat(h.show("BF.INSERT", "s", "ITEMS", "a")).isEqualTo(wrong);
    assertThat(h.show("BF.INSERT", "s", "NOCREATE", "ITEMS", "a")).isEqualTo(wrong);
    // As RedisBloom: the lookups answer 0 for a key of another type.
    assertThat(h.show("BF.EXISTS", "s", "a")).isEqualTo("(integer) 0");
    assertThat(h.show("BF.MEXISTS", "s", "a")).isEqualTo("[(integer) 0]");
    assertThat(h.show("BF.INFO", "s")).isEqualTo(wrong);
    assertThat(h.show("BF.INFO", "s", "CAPACITY")).isEqualTo(wrong);
    assertThat(h.show("BF.CARD", "s")).isEqualTo(wrong);
    assertThat(h.show("BF.SCANDUMP", "s", "0")).isEqualTo(wrong);
    assertThat(h.show("BF.LOADCHUNK", "s", "1", "x")).isEqualTo(wrong);
    assertThat(h.show("BF.LOADCHUNK", "s", "5", "x")).isEqualTo(wrong);
    assertThat(h.engine.type(bytes("s"))).isEqualTo("other");
  }

  // ---- registration

  @Test
  void specs_arityFlagsAndKeys() {
    assertSpec("bf.reserve", -4, Set.of(Flag.WRITE, Flag.DENYOOM));
    assertSpec("bf.add", 3, Set.of(Flag.WRITE, Flag.DENYOOM, Flag.FAST));
    assertSpec("bf.madd", -3, Set.of(Flag.WRITE, Flag.DENYOOM));
    assertSpec("bf.insert", -4, Set.of(Flag.WRITE, Flag.DENYOOM));
    assertSpec("bf.exists", 3, Set.of(Flag.READONLY, Flag.FAST));
    assertSpec("bf.debug", 2, Set.of(Flag.READONLY));
    assertSpec("bf.mexists", -3, Set.of(Flag.READONLY));
    assertSpec("bf.info", -2, Set.of(Flag.READONLY, Flag.FAST));
    assertSpec("bf.card", 2, Set.of(Flag.READONLY, Flag.FAST));
    assertSpec("bf.scandump", 3, Set.of(Flag.READONLY));
    assertSpec("bf.loadchunk", 4, Set.of(Flag.WRITE, Flag.DENYOOM));
  }

  private void assertSpec(String name, int arity, Set<Flag> flags) {
    CommandSpec s = h.commands.get(name);
    assertThat(s).as(name).isNotNull();
    assertThat(s.arity()).as(name).isEqualTo(arity);
    assertThat(s.flags()).as(name).isEqualTo(flags);
    assertThat(List.of(s.firstKey(), s.lastKey(), s.step())).as(name).isEqualTo(List.of(1, 1, 1));
    assertThat(s.summary()).as(name).isNotEmpty();
    assertThat(s.complexity()).as(name).isNotEmpty();
  }

  // ---- helpers

  /** An item the filter at key certainly does not hold. */
  private String absentItem(String key) {
    for (int j = 0; ; j++) {
      if (h.show("BF.EXISTS", key, "absent-" + j).equals("(integer) 0")) {
        return "absent-" + j;
      }
    }
  }

  /** The estimated rate of a default filter holding these items, computed by the core alone. */
  private static double expectedFpRate(String... items) {
    ScalableBloomFilter f = ScalableBloomFilter.create();
    Hash128 hash = new Hash128();
    for (String item : items) {
      f.add(hash.hash(item));
    }
    return f.estimatedFalsePositiveRate();
  }

  private static String[] cmd(String name, String key, List<String> items) {
    List<String> words = new ArrayList<>(List.of(name, key));
    words.addAll(items);
    return words.toArray(String[]::new);
  }

  private String showBinary(String name, String key, byte[] item) {
    return io.idem.server.reply.Replies.show(h.call(bytes(name), bytes(key), item));
  }

  /** A value of another type, for WRONGTYPE. */
  enum OtherCodec implements ValueCodec<String> {
    INSTANCE;

    @Override
    public byte typeId() {
      return (byte) 0xEE;
    }

    @Override
    public String typeName() {
      return "other";
    }

    @Override
    public Class<String> valueClass() {
      return String.class;
    }

    @Override
    public String create(byte[] recipe) {
      return "";
    }

    @Override
    public void apply(String value, byte op, byte[] payload) {}

    @Override
    public void write(String value, OutputStream out) {}

    @Override
    public String read(InputStream in, long maxBytes) {
      return "";
    }

    @Override
    public long memoryUsage(String value) {
      return 0;
    }
  }
}
