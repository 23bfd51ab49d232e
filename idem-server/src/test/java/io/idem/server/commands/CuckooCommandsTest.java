package io.idem.server.commands;

import static io.idem.server.commands.Harness.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.filter.CuckooFilter;
import io.idem.server.commands.cuckoo.CuckooCommands;
import io.idem.server.dispatch.CommandSpec;
import io.idem.server.dispatch.CommandSpec.Flag;
import io.idem.server.engine.ValueCodec;
import io.idem.server.reply.Replies;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Every CF.* command through the dispatcher: exact replies, error texts, defaults and shapes. */
class CuckooCommandsTest {

  private static final String WRONGTYPE =
      "(error) WRONGTYPE Operation against a key holding the wrong kind of value";

  /*
   * CF.RESERVE k 1000 with the defaults: 1000 / (2 * 0.58 load) -> 863 buckets of 2 one-byte
   * slots, 216 words = 1728 bytes; Size adds 96 + 56 per sub-table + 32 + 12 * 20 iterations.
   */
  private static final String RESERVED_INFO =
      "{Size=(integer) 2152, Number of buckets=(integer) 863, Number of filters=(integer) 1, "
          + "Number of items inserted=(integer) %d, Number of items deleted=(integer) %d, "
          + "Bucket size=(integer) 2, Expansion rate=(integer) 1, Max iterations=(integer) 20}";

  private final Harness h = new Harness();

  // ---- CF.RESERVE

  @Test
  void reserve_defaults_createsAnEmptyFilterOfRedisBloomsSettings() {
    assertThat(h.show("CF.RESERVE", "k", "1000")).isEqualTo("OK");
    assertThat(h.show("CF.INFO", "k")).isEqualTo(RESERVED_INFO.formatted(0, 0));
    assertThat(h.engine.type(bytes("k"))).isEqualTo("MBbloomCF");
    assertThat(h.engine.memoryUsage(bytes("k"))).isEqualTo(2152 + 1 + 64); // + key + entry
  }

  @Test
  void reserve_everyOption_inAnyOrderAndCase() {
    assertThat(
            h.show(
                "cf.reserve",
                "k",
                "1000",
                "expansion",
                "3",
                "MaxIterations",
                "500",
                "BUCKETSIZE",
                "4"))
        .isEqualTo("OK");
    // 1000 / (4 * 0.94 load at 500 kicks) -> 266 buckets of 4 bytes: 1064 bytes, + 96 + 56 + 32
    // + 12 * 500.
    assertThat(h.show("CF.INFO", "k"))
        .isEqualTo(
            "{Size=(integer) 7248, Number of buckets=(integer) 266, Number of filters=(integer) 1,"
                + " Number of items inserted=(integer) 0, Number of items deleted=(integer) 0,"
                + " Bucket size=(integer) 4, Expansion rate=(integer) 3,"
                + " Max iterations=(integer) 500}");
  }

  @Test
  void reserve_expansionIsNotRoundedToAPowerOfTwo_andZeroMeansNoGrowth() {
    h.call("CF.RESERVE", "three", "100", "EXPANSION", "3");
    h.call("CF.RESERVE", "zero", "100", "EXPANSION", "0");
    assertThat(h.show("CF.INFO", "three")).contains("Expansion rate=(integer) 3");
    assertThat(h.show("CF.INFO", "zero")).contains("Expansion rate=(integer) 0");
  }

  @Test
  void reserve_existingKey_itemExists_otherType_wrongType() {
    h.call("CF.RESERVE", "k", "1000");
    assertThat(h.show("CF.RESERVE", "k", "500")).isEqualTo("(error) ERR item exists");
    otherType("s");
    assertThat(h.show("CF.RESERVE", "s", "500")).isEqualTo(WRONGTYPE);
    assertThat(h.show("CF.INFO", "k")).isEqualTo(RESERVED_INFO.formatted(0, 0));
  }

  @Test
  void reserve_badCapacity_badOptions_exactTextsInRedisBloomsOrder() {
    String[][] cases = {
      {"Bad capacity", "abc"},
      {"Bad capacity", "01"},
      {"Bad capacity", " 100"},
      {"Bad capacity", "abc", "MAXITERATIONS", "x"},
      {"Capacity must be at least (BucketSize * 2)", "3"},
      {"Capacity must be at least (BucketSize * 2)", "-5"},
      {"Capacity must be at most 1073741824", "1073741825"},
      {"Capacity must be at least (BucketSize * 2)", "9", "BUCKETSIZE", "5"},
      {"Couldn't parse MAXITERATIONS", "100", "MAXITERATIONS", "1.5"},
      {
        "MAXITERATIONS: value must be an integer between 1 and 65535, inclusive.",
        "100",
        "MAXITERATIONS",
        "0"
      },
      {
        "MAXITERATIONS: value must be an integer between 1 and 65535, inclusive.",
        "100",
        "MAXITERATIONS",
        "65536"
      },
      {"Couldn't parse BUCKETSIZE", "100", "BUCKETSIZE", "two"},
      {
        "BUCKETSIZE: value must be an integer between 1 and 255, inclusive.",
        "100",
        "BUCKETSIZE",
        "0"
      },
      {
        "BUCKETSIZE: value must be an integer between 1 and 255, inclusive.",
        "100",
        "BUCKETSIZE",
        "256"
      },
      {"Couldn't parse EXPANSION", "100", "EXPANSION", ""},
      {
        "EXPANSION: value must be an integer between 0 and 32768, inclusive.",
        "100",
        "EXPANSION",
        "-1"
      },
      {
        "EXPANSION: value must be an integer between 0 and 32768, inclusive.",
        "100",
        "EXPANSION",
        "32769"
      },
      // MAXITERATIONS is checked before BUCKETSIZE, wherever they stand, then the capacity.
      {
        "MAXITERATIONS: value must be an integer between 1 and 65535, inclusive.",
        "1",
        "BUCKETSIZE",
        "0",
        "MAXITERATIONS",
        "0"
      },
      {
        "BUCKETSIZE: value must be an integer between 1 and 255, inclusive.",
        "1",
        "EXPANSION",
        "-1",
        "BUCKETSIZE",
        "0"
      },
      {"Unknown argument received", "100", "BUCKETS", "2"},
      {"ERR syntax error", "100", "EXPANSION", "2", "EXPANSION", "2"},
    };
    for (String[] c : cases) {
      List<String> words = new ArrayList<>(List.of("CF.RESERVE", "k"));
      words.addAll(List.of(c).subList(1, c.length));
      assertThat(h.show(words.toArray(String[]::new)))
          .as(words.toString())
          .isEqualTo("(error) " + c[0]);
    }
    assertThat(h.engine.type(bytes("k"))).isEqualTo("none");
  }

  @Test
  void reserve_smallestCapacityIsTwiceTheBucketSize() {
    assertThat(h.show("CF.RESERVE", "a", "4")).isEqualTo("OK");
    assertThat(h.show("CF.RESERVE", "b", "2", "BUCKETSIZE", "1")).isEqualTo("OK");
  }

  @Test
  void reserve_arity() {
    assertThat(h.show("CF.RESERVE", "k"))
        .isEqualTo("(error) ERR wrong number of arguments for 'cf.reserve' command");
    assertThat(h.show("CF.RESERVE", "k", "100", "BUCKETSIZE"))
        .isEqualTo("(error) ERR wrong number of arguments for 'cf.reserve' command");
  }

  @Test
  void reserve_overMaxmemory_insufficientMemory_andNothingCreated() {
    h.engine.setMaxMemory(1 << 20);
    assertThat(h.show("CF.RESERVE", "small", "1000")).isEqualTo("OK");
    assertThat(h.show("CF.RESERVE", "big", "10000000"))
        .isEqualTo("(error) ERR Insufficient memory to create filter");
    assertThat(h.engine.type(bytes("big"))).isEqualTo("none");
  }

  // ---- CF.ADD, CF.ADDNX

  @Test
  void add_freeKey_createsTheDefaultFilter_andAddsCopies() {
    assertThat(h.show("CF.ADD", "k", "a")).isEqualTo("(integer) 1");
    assertThat(h.show("CF.ADD", "k", "a")).isEqualTo("(integer) 1");
    assertThat(h.show("CF.COUNT", "k", "a")).isEqualTo("(integer) 2");
    // Capacity 1024: 883 buckets, 221 words = 1768 bytes, + 424.
    assertThat(h.show("CF.INFO", "k"))
        .isEqualTo(
            "{Size=(integer) 2192, Number of buckets=(integer) 883, Number of filters=(integer) 1,"
                + " Number of items inserted=(integer) 2, Number of items deleted=(integer) 0,"
                + " Bucket size=(integer) 2, Expansion rate=(integer) 1,"
                + " Max iterations=(integer) 20}");
    assertThat(h.show("CF.INFO", "k", "CAPACITY")).isEqualTo("[(integer) 1024]");
  }

  @Test
  void addNx_addsOnlyWhatMayBeAbsent() {
    assertThat(h.show("CF.ADDNX", "k", "a")).isEqualTo("(integer) 1");
    assertThat(h.show("CF.ADDNX", "k", "a")).isEqualTo("(integer) 0");
    assertThat(h.show("CF.ADDNX", "k", "b")).isEqualTo("(integer) 1");
    assertThat(h.show("CF.COUNT", "k", "a")).isEqualTo("(integer) 1");
    assertThat(h.show("CF.INFO", "k")).contains("Number of items inserted=(integer) 2");
  }

  @Test
  void add_resp3_booleans() {
    h.session.setProtocol(3);
    assertThat(h.show("CF.ADD", "k", "a")).isEqualTo("(true)");
    assertThat(h.show("CF.ADDNX", "k", "a")).isEqualTo("(false)");
    assertThat(h.show("CF.ADDNX", "k", "b")).isEqualTo("(true)");
  }

  @Test
  void add_binaryItems_areWholeItems() {
    byte[] item = {0, (byte) 0xff, '\r', '\n'};
    h.call(bytes("CF.ADD"), bytes("k"), item);
    assertThat(Replies.show(h.call(bytes("CF.EXISTS"), bytes("k"), item))).isEqualTo("(integer) 1");
    assertThat(Replies.show(h.call(bytes("CF.EXISTS"), bytes("k"), new byte[] {0, (byte) 0xff})))
        .isEqualTo("(integer) 0");
  }

  @Test
  void add_filterThatCannotGrow_filterIsFull_andChangesNothing() {
    h.call("CF.RESERVE", "k", "4", "EXPANSION", "0"); // 4 buckets, 8 slots
    int added = 0;
    String reply;
    while ((reply = h.show("CF.ADD", "k", "item-" + added)).equals("(integer) 1")) {
      added++;
    }
    assertThat(reply).isEqualTo("(error) Filter is full");
    assertThat(added).isBetween(4, 8);
    assertThat(h.show("CF.ADDNX", "k", "another-" + 1))
        .isIn("(error) Filter is full", "(integer) 0");
    assertThat(h.show("CF.INFO", "k"))
        .contains("Number of items inserted=(integer) " + added, "Number of filters=(integer) 1");
    for (int i = 0; i < added; i++) {
      assertThat(h.show("CF.EXISTS", "k", "item-" + i)).isEqualTo("(integer) 1");
    }
  }

  @Test
  void add_atTheLimitOf32SubTables_maximumExpansionsReached() {
    h.call("CF.RESERVE", "k", "4", "MAXITERATIONS", "1"); // 8 slots per sub-table
    List<String> items = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      items.add("item-" + i);
    }
    Object[] replies =
        ((io.idem.server.reply.Reply.Array) h.call(words("CF.INSERT", "k", items)))
            .items().stream().map(Replies::show).toArray();
    assertThat(h.show("CF.INFO", "k")).contains("Number of filters=(integer) 32");
    // Past 32 sub-tables an item that needs a new one is -1; the others still go in.
    assertThat(replies).contains("(integer) -1", "(integer) 1").doesNotContain("(integer) 0");
    assertThat(h.show("CF.ADD", "k", "x")).isEqualTo("(error) Maximum expansions reached");
    assertThat(h.show("CF.INSERT", "k", "ITEMS", "x"))
        .isEqualTo("(error) Maximum expansions reached");
    for (int i = 0; i < 600; i++) {
      if (replies[i].equals("(integer) 1")) {
        assertThat(h.show("CF.EXISTS", "k", "item-" + i)).isEqualTo("(integer) 1");
      }
    }
  }

  @Test
  void add_whenTheNextSubTableWouldPassMaxmemory_insufficientMemory_itemsKept() {
    h.call("CF.RESERVE", "k", "100", "EXPANSION", "4"); // 87 buckets: 176 bytes, next 4x
    h.engine.setMaxMemory(h.engine.usedMemory() + 500);
    int added = 0;
    String reply;
    while ((reply = h.show("CF.ADD", "k", "item-" + added)).equals("(integer) 1")) {
      added++;
    }
    assertThat(reply).isEqualTo("(error) ERR Insufficient memory");
    assertThat(h.show("CF.INSERT", "k", "ITEMS", "item-" + added)).isEqualTo("[(integer) -1]");
    assertThat(h.show("CF.INFO", "k")).contains("Number of filters=(integer) 1");
    for (int i = 0; i < added; i++) {
      assertThat(h.show("CF.EXISTS", "k", "item-" + i)).isEqualTo("(integer) 1");
    }
    h.engine.setMaxMemory(0);
    assertThat(h.show("CF.ADD", "k", "item-" + added)).isEqualTo("(integer) 1"); // grows now
    assertThat(h.show("CF.INFO", "k")).contains("Number of filters=(integer) 2");
  }

  @Test
  void add_otherType_wrongType() {
    otherType("s");
    assertThat(h.show("CF.ADD", "s", "a")).isEqualTo(WRONGTYPE);
    assertThat(h.show("CF.ADDNX", "s", "a")).isEqualTo(WRONGTYPE);
    assertThat(h.show("CF.INSERT", "s", "ITEMS", "a")).isEqualTo(WRONGTYPE);
    assertThat(h.show("CF.INSERTNX", "s", "ITEMS", "a")).isEqualTo(WRONGTYPE);
  }

  @Test
  void add_arity() {
    for (String name : List.of("cf.add", "cf.addnx")) {
      String error = "(error) ERR wrong number of arguments for '" + name + "' command";
      assertThat(h.show(name, "k")).isEqualTo(error);
      assertThat(h.show(name, "k", "a", "b")).isEqualTo(error);
    }
  }

  // ---- CF.INSERT, CF.INSERTNX

  @Test
  void insert_items_oneReplyEach_copiesAdded() {
    assertThat(h.show("CF.INSERT", "k", "ITEMS", "a", "b", "a")).isEqualTo(ints(1, 1, 1));
    assertThat(h.show("CF.COUNT", "k", "a")).isEqualTo("(integer) 2");
    assertThat(h.show("CF.INFO", "k", "CAPACITY")).isEqualTo("[(integer) 1024]");
  }

  @Test
  void insertNx_items_zeroForWhatMayBePresent() {
    assertThat(h.show("CF.INSERTNX", "k", "ITEMS", "a", "b", "a")).isEqualTo(ints(1, 1, 0));
    assertThat(h.show("CF.INSERTNX", "k", "ITEMS", "b", "c")).isEqualTo(ints(0, 1));
    assertThat(h.show("CF.INFO", "k")).contains("Number of items inserted=(integer) 3");
  }

  @Test
  void insert_capacity_onlyWhenItCreates() {
    assertThat(h.show("CF.INSERT", "k", "CAPACITY", "1000", "ITEMS", "a")).isEqualTo(ints(1));
    assertThat(h.show("CF.INFO", "k")).isEqualTo(RESERVED_INFO.formatted(1, 0));
    assertThat(h.show("CF.INSERT", "k", "CAPACITY", "50", "ITEMS", "b")).isEqualTo(ints(1));
    assertThat(h.show("CF.INFO", "k", "CAPACITY")).isEqualTo("[(integer) 1000]");
    // Repeated options: the last capacity counts, as in RedisBloom.
    h.call("CF.INSERT", "r", "CAPACITY", "50", "CAPACITY", "1000", "ITEMS", "a");
    assertThat(h.show("CF.INFO", "r", "CAPACITY")).isEqualTo("[(integer) 1000]");
  }

  @Test
  void insert_noCreate_freeKey_notFound_existingKey_inserts() {
    assertThat(h.show("CF.INSERT", "k", "NOCREATE", "ITEMS", "a"))
        .isEqualTo("(error) ERR not found");
    assertThat(h.show("CF.INSERTNX", "k", "NOCREATE", "ITEMS", "a"))
        .isEqualTo("(error) ERR not found");
    assertThat(h.engine.type(bytes("k"))).isEqualTo("none");
    h.call("CF.RESERVE", "k", "100");
    assertThat(h.show("CF.INSERT", "k", "nocreate", "CAPACITY", "9", "items", "a"))
        .isEqualTo(ints(1));
  }

  @Test
  void insert_badArguments_exactTexts() {
    String arity = "(error) ERR wrong number of arguments for 'cf.insert' command";
    String[][] cases = {
      {arity, "CAPACITY"},
      {arity, "NOCREATE", "NOCREATE"},
      {arity, "CAPACITY", "100", "ITEMS"},
      {"(error) Bad capacity", "CAPACITY", "x", "ITEMS", "a"},
      {"(error) Bad capacity", "CAPACITY", "1e3", "ITEMS", "a"},
      {"(error) Capacity must be at least (BucketSize * 2)", "CAPACITY", "3", "ITEMS", "a"},
      {"(error) Capacity must be at most 1073741824", "CAPACITY", "1073741825", "ITEMS", "a"},
      {"(error) Unknown argument received", "CAP", "100", "ITEMS", "a"},
      {"(error) Unknown argument received", "NOCREATES", "ITEMS", "a"},
      {"(error) Unknown argument received", "a", "b"},
    };
    for (String[] c : cases) {
      List<String> words = new ArrayList<>(List.of("CF.INSERT", "k"));
      words.addAll(List.of(c).subList(1, c.length));
      assertThat(h.show(words.toArray(String[]::new))).as(words.toString()).isEqualTo(c[0]);
    }
    assertThat(h.show("CF.INSERT", "k", "ITEMS"))
        .isEqualTo(arity); // fewer than 4 arguments: the dispatcher's check
    assertThat(h.show("CF.INSERTNX", "k", "CAPACITY", "100", "ITEMS"))
        .isEqualTo("(error) ERR wrong number of arguments for 'cf.insertnx' command");
    assertThat(h.engine.type(bytes("k"))).isEqualTo("none");
  }

  @Test
  void insert_itemsThatDoNotFit_minusOne_theRestGoOn() {
    h.call("CF.RESERVE", "k", "4", "EXPANSION", "0");
    List<String> items = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      items.add("item-" + i);
    }
    String reply = h.show(words("CF.INSERT", "k", items));
    assertThat(reply).startsWith("[(integer) 1, (integer) 1").contains("(integer) -1");
    int added = count(reply, "(integer) 1");
    assertThat(h.show("CF.INFO", "k")).contains("Number of items inserted=(integer) " + added);
    // RESP3: CF.INSERT says false, CF.INSERTNX keeps integers.
    h.session.setProtocol(3);
    assertThat(h.show("CF.INSERT", "k", "ITEMS", "item-19")).isEqualTo("[(false)]");
    assertThat(h.show("CF.INSERTNX", "k", "ITEMS", "item-19", "item-0"))
        .isEqualTo("[(integer) -1, (integer) 0]");
  }

  @Test
  void insert_resp3_booleansForInsert_integersForInsertNx() {
    h.session.setProtocol(3);
    assertThat(h.show("CF.INSERT", "k", "ITEMS", "a", "a")).isEqualTo("[(true), (true)]");
    assertThat(h.show("CF.INSERTNX", "k", "ITEMS", "a", "b")).isEqualTo(ints(0, 1));
  }

  // ---- CF.EXISTS, CF.MEXISTS, CF.COUNT

  @Test
  void exists_mexists_count_addedItems_absentItems_freeKey() {
    h.call("CF.INSERT", "k", "ITEMS", "a", "b", "b");
    assertThat(h.show("CF.EXISTS", "k", "a")).isEqualTo("(integer) 1");
    assertThat(h.show("CF.EXISTS", "k", "zz")).isEqualTo("(integer) 0");
    assertThat(h.show("CF.MEXISTS", "k", "a", "zz", "b")).isEqualTo(ints(1, 0, 1));
    assertThat(h.show("CF.COUNT", "k", "b")).isEqualTo("(integer) 2");
    assertThat(h.show("CF.COUNT", "k", "zz")).isEqualTo("(integer) 0");
    assertThat(h.show("CF.EXISTS", "free", "a")).isEqualTo("(integer) 0");
    assertThat(h.show("CF.MEXISTS", "free", "a", "b")).isEqualTo(ints(0, 0));
    assertThat(h.show("CF.COUNT", "free", "a")).isEqualTo("(integer) 0");
    assertThat(h.engine.type(bytes("free"))).isEqualTo("none");
  }

  @Test
  void exists_resp3_booleans_countStaysAnInteger() {
    h.call("CF.ADD", "k", "a");
    h.session.setProtocol(3);
    assertThat(h.show("CF.EXISTS", "k", "a")).isEqualTo("(true)");
    assertThat(h.show("CF.EXISTS", "free", "a")).isEqualTo("(false)");
    assertThat(h.show("CF.MEXISTS", "k", "a", "zz")).isEqualTo("[(true), (false)]");
    assertThat(h.show("CF.MEXISTS", "free", "a")).isEqualTo("[(false)]");
    assertThat(h.show("CF.COUNT", "k", "a")).isEqualTo("(integer) 1");
  }

  @Test
  void exists_otherType_wrongType() {
    otherType("s");
    assertThat(h.show("CF.EXISTS", "s", "a")).isEqualTo(WRONGTYPE);
    assertThat(h.show("CF.MEXISTS", "s", "a")).isEqualTo(WRONGTYPE);
    assertThat(h.show("CF.COUNT", "s", "a")).isEqualTo(WRONGTYPE);
  }

  @Test
  void exists_arity() {
    assertThat(h.show("CF.EXISTS", "k"))
        .isEqualTo("(error) ERR wrong number of arguments for 'cf.exists' command");
    assertThat(h.show("CF.EXISTS", "k", "a", "b"))
        .isEqualTo("(error) ERR wrong number of arguments for 'cf.exists' command");
    assertThat(h.show("CF.MEXISTS", "k"))
        .isEqualTo("(error) ERR wrong number of arguments for 'cf.mexists' command");
    assertThat(h.show("CF.COUNT", "k", "a", "b"))
        .isEqualTo("(error) ERR wrong number of arguments for 'cf.count' command");
  }

  // ---- CF.DEL

  @Test
  void del_removesOneCopy_zeroWhenNoneIsStored() {
    h.call("CF.INSERT", "k", "CAPACITY", "1000", "ITEMS", "a", "a", "b");
    assertThat(h.show("CF.DEL", "k", "a")).isEqualTo("(integer) 1");
    assertThat(h.show("CF.COUNT", "k", "a")).isEqualTo("(integer) 1");
    assertThat(h.show("CF.DEL", "k", "a")).isEqualTo("(integer) 1");
    assertThat(h.show("CF.DEL", "k", "a")).isEqualTo("(integer) 0");
    assertThat(h.show("CF.EXISTS", "k", "a")).isEqualTo("(integer) 0");
    assertThat(h.show("CF.EXISTS", "k", "b")).isEqualTo("(integer) 1");
    assertThat(h.show("CF.INFO", "k")).isEqualTo(RESERVED_INFO.formatted(1, 2));
    h.session.setProtocol(3);
    assertThat(h.show("CF.DEL", "k", "b")).isEqualTo("(true)");
    assertThat(h.show("CF.DEL", "k", "b")).isEqualTo("(false)");
  }

  @Test
  void del_freeKey_notFound_otherType_wrongType() {
    assertThat(h.show("CF.DEL", "k", "a")).isEqualTo("(error) Not found");
    otherType("s");
    assertThat(h.show("CF.DEL", "s", "a")).isEqualTo(WRONGTYPE);
    assertThat(h.show("CF.DEL", "k"))
        .isEqualTo("(error) ERR wrong number of arguments for 'cf.del' command");
  }

  @Test
  void del_grownFilter_deletesPastATenthOfItems_compactAsRedisBloom() {
    h.call("CF.RESERVE", "k", "50", "MAXITERATIONS", "5");
    int n = 0;
    while (!h.show("CF.INFO", "k").contains("Number of filters=(integer) 2")) {
      h.call("CF.ADD", "k", "item-" + n++);
    }
    int deleted = 0;
    // Delete from the first items, which sit in the oldest sub-table: room for the newest's.
    while (h.show("CF.INFO", "k").contains("Number of filters=(integer) 2")) {
      assertThat(h.show("CF.DEL", "k", "item-" + deleted)).isEqualTo("(integer) 1");
      deleted++;
      assertThat(deleted).isLessThan(n);
    }
    // The delete that passed a tenth of the items compacted: the count is reset.
    assertThat(deleted).isGreaterThan(n / 11);
    assertThat(h.show("CF.INFO", "k")).contains("Number of items deleted=(integer) 0");
    for (int i = deleted; i < n; i++) {
      assertThat(h.show("CF.EXISTS", "k", "item-" + i)).as("item-%s", i).isEqualTo("(integer) 1");
    }
  }

  // ---- CF.COMPACT

  @Test
  void compact_movesItemsBack_dropsEmptiedSubTables_resetsDeletes() {
    h.call("CF.RESERVE", "k", "50", "MAXITERATIONS", "5");
    int n = 0;
    while (!h.show("CF.INFO", "k").contains("Number of filters=(integer) 3")) {
      h.call("CF.ADD", "k", "item-" + n++);
    }
    assertThat(h.show("CF.COMPACT", "k")).isEqualTo("OK"); // nothing has room to move
    assertThat(h.show("CF.INFO", "k")).contains("Number of filters=(integer) 3");
    for (int i = 0; i < n; i++) { // CF.DEL compacts on the way; what stays, CF.COMPACT drops
      h.call("CF.DEL", "k", "item-" + i);
    }
    assertThat(h.show("CF.COMPACT", "k")).isEqualTo("OK");
    assertThat(h.show("CF.INFO", "k"))
        .contains(
            "Number of filters=(integer) 1",
            "Number of items inserted=(integer) 0",
            "Number of items deleted=(integer) 0");
  }

  @Test
  void compact_freeKey_otherType_arity() {
    assertThat(h.show("CF.COMPACT", "k")).isEqualTo("(error) Cuckoo filter was not found");
    otherType("s");
    assertThat(h.show("CF.COMPACT", "s")).isEqualTo(WRONGTYPE);
    assertThat(h.show("CF.COMPACT", "k", "x"))
        .isEqualTo("(error) ERR wrong number of arguments for 'cf.compact' command");
  }

  // ---- CF.INFO

  @Test
  void info_idemFields_oneAtATime() {
    h.call("CF.RESERVE", "k", "1000");
    double widthRate = -Math.expm1(2.0 * 1000 / 863 * Math.log1p(-1.0 / 255));
    assertThat(h.show("CF.INFO", "k", "capacity")).isEqualTo("[(integer) 1000]");
    assertThat(h.show("CF.INFO", "k", "ERROR")).isEqualTo("[(double) " + widthRate + "]");
    assertThat(h.show("CF.INFO", "k", "FPRATE")).isEqualTo("[(double) 0.0]");
    assertThat(h.show("CF.INFO", "k", "BitsPerItem")).isEqualTo("[(double) 13.824]"); // 1728*8/1000
    h.call("CF.ADD", "k", "a");
    // 1 - the product over sub-tables of (1 - each one's rate), with one sub-table here.
    double oneItem = 1 - (1 - -Math.expm1(2.0 * 1 / 863 * Math.log1p(-1.0 / 255)));
    assertThat(h.show("CF.INFO", "k", "FPRATE")).isEqualTo("[(double) " + oneItem + "]");
    h.session.setProtocol(3);
    assertThat(h.show("CF.INFO", "k", "CAPACITY")).isEqualTo("{Capacity=(integer) 1000}");
    assertThat(h.show("CF.INFO", "k", "FPRATE"))
        .isEqualTo("{Estimated false positive rate=(double) " + oneItem + "}");
    assertThat(h.show("CF.INFO", "k", "BITSPERITEM")).isEqualTo("{Bits per item=(double) 13.824}");
    assertThat(h.show("CF.INFO", "k", "ERROR"))
        .isEqualTo("{Error rate=(double) " + widthRate + "}");
  }

  @Test
  void info_errors() {
    assertThat(h.show("CF.INFO", "k")).isEqualTo("(error) ERR not found");
    h.call("CF.RESERVE", "k", "100");
    assertThat(h.show("CF.INFO", "k", "SIZE")).isEqualTo("(error) Invalid information value");
    assertThat(h.show("CF.INFO", "k", "FPRATE", "x"))
        .isEqualTo("(error) ERR wrong number of arguments for 'cf.info' command");
    assertThat(h.show("CF.INFO"))
        .isEqualTo("(error) ERR wrong number of arguments for 'cf.info' command");
    otherType("s");
    assertThat(h.show("CF.INFO", "s")).isEqualTo(WRONGTYPE);
  }

  @Test
  void info_grownFilter_sizeCountsEverySubTable() {
    h.call("CF.RESERVE", "k", "1000", "MAXITERATIONS", "5", "EXPANSION", "2");
    int n = 0;
    while (!h.show("CF.INFO", "k").contains("Number of filters=(integer) 2")) {
      h.call("CF.ADD", "k", "item-" + n++);
    }
    // 863 buckets: 1728 bytes; then 1726 buckets: 3456 bytes. + 96 + 2 * 56 + 32 + 12 * 5.
    assertThat(h.show("CF.INFO", "k"))
        .startsWith("{Size=(integer) 5484, Number of buckets=(integer) 863");
    assertThat(h.show("CF.INFO", "k", "BITSPERITEM")).isEqualTo("[(double) 41.472]");
  }

  // ---- the registration list

  @Test
  void specs_arityFlagsAndKeys() {
    record Expected(String name, int arity, Set<Flag> flags) {}
    List<Expected> expected =
        List.of(
            new Expected("cf.reserve", -3, Set.of(Flag.WRITE, Flag.DENYOOM)),
            new Expected("cf.add", 3, Set.of(Flag.WRITE, Flag.DENYOOM)),
            new Expected("cf.addnx", 3, Set.of(Flag.WRITE, Flag.DENYOOM)),
            new Expected("cf.insert", -4, Set.of(Flag.WRITE, Flag.DENYOOM)),
            new Expected("cf.insertnx", -4, Set.of(Flag.WRITE, Flag.DENYOOM)),
            new Expected("cf.exists", 3, Set.of(Flag.READONLY, Flag.FAST)),
            new Expected("cf.mexists", -3, Set.of(Flag.READONLY)),
            new Expected("cf.count", 3, Set.of(Flag.READONLY, Flag.FAST)),
            new Expected("cf.del", 3, Set.of(Flag.WRITE)),
            new Expected("cf.compact", 2, Set.of(Flag.WRITE)),
            new Expected("cf.info", -2, Set.of(Flag.READONLY, Flag.FAST)),
            new Expected("cf.debug", 2, Set.of(Flag.READONLY)),
            new Expected("cf.scandump", 3, Set.of(Flag.READONLY)),
            new Expected("cf.loadchunk", 4, Set.of(Flag.WRITE, Flag.DENYOOM)));
    assertThat(CuckooCommands.specs()).hasSize(expected.size());
    for (Expected e : expected) {
      CommandSpec spec = h.commands.get(e.name());
      assertThat(spec).as(e.name()).isNotNull();
      assertThat(spec.arity()).as(e.name()).isEqualTo(e.arity());
      assertThat(spec.flags()).as(e.name()).isEqualTo(e.flags());
      assertThat(List.of(spec.firstKey(), spec.lastKey(), spec.step()))
          .as(e.name())
          .isEqualTo(List.of(1, 1, 1));
      assertThat(spec.group()).isEqualTo("cf");
      assertThat(spec.summary()).isNotEmpty();
      assertThat(spec.complexity()).isNotEmpty();
    }
  }

  @Test
  void denyOom_growingWritesRefusedOverMaxmemory_readsAndDeletesServed() {
    h.call("CF.ADD", "k", "a");
    h.engine.setMaxMemory(1);
    String oom = "(error) OOM command not allowed when used memory > 'maxmemory'.";
    assertThat(h.show("CF.ADD", "k", "b")).isEqualTo(oom);
    assertThat(h.show("CF.RESERVE", "j", "100")).isEqualTo(oom);
    assertThat(h.show("CF.EXISTS", "k", "a")).isEqualTo("(integer) 1");
    assertThat(h.show("CF.DEL", "k", "a")).isEqualTo("(integer) 1");
  }

  // ---- helpers

  private void otherType(String key) {
    h.engine.write(bytes(key), tx -> tx.create(OtherCodec.INSTANCE, "x", new byte[0]));
  }

  private static String[] words(String name, String key, List<String> items) {
    List<String> w = new ArrayList<>(List.of(name, key, "ITEMS"));
    w.addAll(items);
    return w.toArray(String[]::new);
  }

  private static String ints(long... values) {
    List<String> parts = new ArrayList<>();
    for (long v : values) {
      parts.add("(integer) " + v);
    }
    return "[" + String.join(", ", parts) + "]";
  }

  private static int count(String s, String part) {
    int n = 0;
    for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
      n++;
    }
    return n;
  }

  /** A value of another type, for WRONGTYPE. */
  enum OtherCodec implements ValueCodec<String> {
    INSTANCE;

    @Override
    public byte typeId() {
      return (byte) 0xEF;
    }

    @Override
    public String typeName() {
      return "string";
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

  static CuckooFilter filter(Harness h, String key) {
    return h.engine.read(bytes(key), e -> (CuckooFilter) e.value());
  }
}
