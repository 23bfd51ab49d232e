package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.commands.dedup.BackgroundSteps;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** DEDUP.* through the dispatcher, on a clock the test moves. */
class DedupCommandsTest {

  private static final long T0 = 1_700_000_000_000L; // a whole hour: slices line up
  private static final long HOUR = 3_600_000;

  private final AtomicLong clock = new AtomicLong(T0);
  private final Harness h = new Harness(clock::get);

  // ---- RESERVE

  @Test
  void reserve_modesAndOptions() {
    assertThat(h.show("DEDUP.RESERVE", "e", "24h")).isEqualTo("OK");
    assertThat(h.show("DEDUP.RESERVE", "e2", "86400", "EXACT", "SLICES", "24", "CAPACITY", "10"))
        .isEqualTo("OK");
    assertThat(h.show("DEDUP.RESERVE", "f", "1h", "FILTER", "0.001", "1000")).isEqualTo("OK");
    assertThat(h.show("DEDUP.RESERVE", "r", "7d", "RECENT", "1000", "SLICES", "7")).isEqualTo("OK");
    assertThat(h.show("TYPE", "e")).isEqualTo("dedup");
    assertThat(h.show("DEDUP.INFO", "e2"))
        .isEqualTo(
            "{Mode=exact, Window milliseconds=(integer) 86400000, Slices=(integer) 24, Slices"
                + " holding claims=(integer) 0, Items=(integer) 0, Memory bytes=(integer) 64, Disk"
                + " bytes=(integer) 0, Capacity=(integer) 10, Duplicates caught=(integer) 0}");
  }

  @Test
  void reserve_errors() {
    h.call("BF.ADD", "bf", "x");
    assertThat(h.show("DEDUP.RESERVE", "bf", "1h"))
        .isEqualTo("(error) WRONGTYPE Operation against a key holding the wrong kind of value");
    h.call("DEDUP.RESERVE", "t", "1h");
    assertThat(h.show("DEDUP.RESERVE", "t", "1h")).isEqualTo("(error) ERR item exists");
    String badWindow =
        "(error) ERR window must be seconds or a duration such as 90s, 15m, 24h or 7d, from 1s to"
            + " 3650d";
    for (String w : new String[] {"0", "-5", "1h30m", "999ms", "3651d", "h", "1.5h", "1 h", ""}) {
      assertThat(h.show("DEDUP.RESERVE", "w", w)).as(w).isEqualTo(badWindow);
    }
    assertThat(h.show("DEDUP.RESERVE", "w", "10s", "SLICES", "11"))
        .isEqualTo("(error) ERR SLICES must be from 1 to 1024, with slices of at least one second");
    assertThat(h.show("DEDUP.RESERVE", "w", "1h", "FILTER", "1.5", "10"))
        .isEqualTo("(error) ERR error rate must be a number in (0, 1)");
    assertThat(h.show("DEDUP.RESERVE", "w", "1h", "FILTER", "0.01", "0"))
        .isEqualTo("(error) ERR capacity must be from 1 to 2^40");
    assertThat(h.show("DEDUP.RESERVE", "w", "1h", "RECENT", "0"))
        .isEqualTo("(error) ERR slots must be from 1 to 715827879");
    assertThat(h.show("DEDUP.RESERVE", "w", "1h", "FILTER", "0.01"))
        .isEqualTo("(error) ERR syntax error");
    assertThat(h.show("DEDUP.RESERVE", "w", "1h", "RECENT", "10", "CAPACITY", "5"))
        .isEqualTo("(error) ERR syntax error");
    assertThat(h.show("DEDUP.RESERVE", "w", "1h", "SLICES", "2", "SLICES", "3"))
        .isEqualTo("(error) ERR syntax error");
    assertThat(h.show("DEDUP.RESERVE", "w", "1h", "NOPE")).isEqualTo("(error) ERR syntax error");
    assertThat(h.show("EXISTS", "w")).isEqualTo("(integer) 0"); // nothing was made
    // A short window keeps slices of at least a second.
    assertThat(h.show("DEDUP.RESERVE", "short", "3s")).isEqualTo("OK");
    assertThat(h.show("DEDUP.INFO", "short")).contains("Slices=(integer) 3");
  }

  @Test
  void reserve_refusesWhatWouldNotFit() {
    assertThat(h.show("DEDUP.RESERVE", "big", "1h", "CAPACITY", "1099511627776", "SLICES", "1"))
        .isEqualTo(
            "(error) ERR a slice's filter would be larger than 16 GiB: use more SLICES or a"
                + " smaller capacity");
    h.engine.setMaxMemory(1 << 20);
    assertThat(h.show("DEDUP.RESERVE", "r", "1h", "RECENT", "100000"))
        .isEqualTo("(error) ERR Insufficient memory for the dedup table");
    assertThat(h.show("EXISTS", "big", "r")).isEqualTo("(integer) 0");
  }

  @Test
  void reserve_largerThanTheFreeHeap_isRefused_evenWithMaxmemoryOff() {
    h.engine.setMaxMemory(0);
    // Nine tenths of the heap: it fits an empty heap, never one that keeps room for the rest.
    long slots = Runtime.getRuntime().maxMemory() / 24 / 10 * 9;
    assertThat(h.show("DEDUP.RESERVE", "rx", "1h", "RECENT", Long.toString(slots)))
        .isEqualTo("(error) ERR Insufficient memory for the dedup table");
    assertThat(h.show("EXISTS", "rx")).isEqualTo("(integer) 0");
  }

  @Test
  void claim_thatWouldNotFit_isRefused_afterLoggingThePairsBeforeIt() {
    h.call("DEDUP.RESERVE", "t", "8h", "CAPACITY", "80000000");
    h.call("DEDUP.CLAIM", "t", "a", "o"); // the first slice's filter: about 12 MB
    h.engine.setMaxMemory(h.engine.usedMemory() + (1 << 20));
    clock.set(T0 + HOUR); // the next claim opens a new slice, which does not fit
    assertThat(h.show("DEDUP.MCLAIM", "t", "AT", Long.toString(T0), "ITEMS", "b", "o", "c", "o"))
        .isEqualTo("[[new, \"o\"], [new, \"o\"]]"); // both land in the open slice
    assertThat(h.show("DEDUP.MCLAIM", "t", "ITEMS", "a", "o", "d", "o"))
        .isEqualTo("(error) ERR Insufficient memory for the dedup table");
    assertThat(h.show("DEDUP.INFO", "t")).contains("Items=(integer) 3");
    h.engine.setMaxMemory(0);
    assertThat(h.show("DEDUP.MCLAIM", "t", "ITEMS", "a", "o", "d", "o"))
        .isEqualTo("[[retry, \"o\"], [new, \"o\"]]");
  }

  // ---- claims

  @Test
  void claim_new_retry_duplicate_namingTheOwner() {
    h.call("DEDUP.RESERVE", "t", "24h");
    assertThat(h.show("DEDUP.CLAIM", "t", "msg-1", "p3:100")).isEqualTo("[new, \"p3:100\"]");
    assertThat(h.show("DEDUP.CLAIM", "t", "msg-1", "p3:100")).isEqualTo("[retry, \"p3:100\"]");
    assertThat(h.show("DEDUP.CLAIM", "t", "msg-1", "p4:7")).isEqualTo("[duplicate, \"p3:100\"]");
    assertThat(h.show("DEDUP.EXISTS", "t", "msg-1")).isEqualTo("(integer) 1");
    assertThat(h.show("DEDUP.EXISTS", "t", "msg-2")).isEqualTo("(integer) 0");
    assertThat(h.show("DEDUP.EXISTS", "nokey", "msg-2")).isEqualTo("(integer) 0");
    assertThat(h.show("DEDUP.INFO", "t")).contains("Items=(integer) 1");
  }

  @Test
  void claim_binaryIdsAndOwners() {
    h.call("DEDUP.RESERVE", "t", "1h");
    byte[] id = {0, (byte) 0xff, 13, 10, 0};
    byte[] owner = {0, 3, 0, 0, 0, 0, 0, 100};
    assertThat(h.call(Harness.bytes("DEDUP.CLAIM"), Harness.bytes("t"), id, owner).toString())
        .contains("new");
    var dup =
        (io.idem.server.reply.Reply.Array)
            h.call(Harness.bytes("DEDUP.CLAIM"), Harness.bytes("t"), id, new byte[] {9});
    assertThat(((io.idem.server.reply.Reply.Bulk) dup.items().get(1)).bytes()).isEqualTo(owner);
  }

  @Test
  void claim_errors() {
    assertThat(h.show("DEDUP.CLAIM", "none", "a", "o")).isEqualTo("(error) ERR not found");
    h.call("BF.ADD", "bf", "x");
    assertThat(h.show("DEDUP.CLAIM", "bf", "a", "o"))
        .isEqualTo("(error) WRONGTYPE Operation against a key holding the wrong kind of value");
    h.call("DEDUP.RESERVE", "t", "1h");
    assertThat(h.show("DEDUP.CLAIM", "t", "a", "o", "AT")).isEqualTo("(error) ERR syntax error");
    assertThat(h.show("DEDUP.CLAIM", "t", "a", "o", "AT", "-1"))
        .isEqualTo("(error) ERR AT must be a Unix time in milliseconds");
    assertThat(h.show("DEDUP.CLAIM", "t", "a", "o", "WHEN", "5"))
        .isEqualTo("(error) ERR syntax error");
    assertThat(h.show("DEDUP.CLAIM", "t", "x".repeat(1025), "o"))
        .isEqualTo("(error) ERR id longer than 1024 bytes");
    assertThat(h.show("DEDUP.CLAIM", "t", "a", "o".repeat(256)))
        .isEqualTo("(error) ERR owner longer than 255 bytes");
    assertThat(h.show("DEDUP.CLAIM", "t", "a"))
        .isEqualTo("(error) ERR wrong number of arguments for 'dedup.claim' command");
    assertThat(h.show("DEDUP.INFO", "t")).contains("Items=(integer) 0"); // errors changed nothing
  }

  @Test
  void mclaim_repliesPerPair_orOnlyTheDuplicates() {
    h.call("DEDUP.RESERVE", "t", "24h");
    h.call("DEDUP.CLAIM", "t", "a", "o1");
    assertThat(h.show("DEDUP.MCLAIM", "t", "ITEMS", "a", "o1", "b", "o2", "a", "o3", "b", "o2"))
        .isEqualTo("[[retry, \"o1\"], [new, \"o2\"], [duplicate, \"o1\"], [retry, \"o2\"]]");
    assertThat(h.show("DEDUP.MCLAIM", "t", "DUPLICATES", "ITEMS", "c", "o4", "b", "o9", "c", "o5"))
        .isEqualTo("[[\"b\", \"o2\"], [\"c\", \"o4\"]]");
    assertThat(
            h.show("DEDUP.MCLAIM", "t", "AT", Long.toString(T0), "DUPLICATES", "ITEMS", "d", "o"))
        .isEqualTo("[]");
    assertThat(h.show("DEDUP.INFO", "t")).contains("Items=(integer) 4");
  }

  @Test
  void mclaim_errorsChangeNothing() {
    h.call("DEDUP.RESERVE", "t", "24h");
    String arity = "(error) ERR wrong number of arguments for 'dedup.mclaim' command";
    assertThat(h.show("DEDUP.MCLAIM", "t", "ITEMS", "a", "o", "b")).isEqualTo(arity);
    assertThat(h.show("DEDUP.MCLAIM", "t", "DUPLICATES", "ITEMS")).isEqualTo(arity);
    assertThat(h.show("DEDUP.MCLAIM", "t", "AT", "1", "AT", "2", "ITEMS", "a", "o"))
        .isEqualTo("(error) ERR syntax error");
    assertThat(h.show("DEDUP.MCLAIM", "t", "a", "o", "b", "o"))
        .isEqualTo("(error) ERR syntax error");
    assertThat(h.show("DEDUP.MCLAIM", "t", "ITEMS", "a", "o", "b", "o".repeat(256)))
        .isEqualTo("(error) ERR owner longer than 255 bytes");
    assertThat(h.show("DEDUP.EXISTS", "t", "a")).isEqualTo("(integer) 0");
  }

  // ---- the window

  @Test
  void window_rememberedForTheWindow_forgottenWithinOneSliceAfter() {
    h.call("DEDUP.RESERVE", "t", "8h"); // 8 slices of an hour
    h.call("DEDUP.CLAIM", "t", "a", "o1");
    clock.set(T0 + 8 * HOUR - 1);
    assertThat(h.show("DEDUP.CLAIM", "t", "a", "o2")).isEqualTo("[duplicate, \"o1\"]");
    clock.set(T0 + 9 * HOUR); // a's slice is older than the window now
    assertThat(h.show("DEDUP.EXISTS", "t", "a")).isEqualTo("(integer) 0");
    assertThat(h.show("DEDUP.CLAIM", "t", "a", "o2")).isEqualTo("[new, \"o2\"]");
    assertThat(h.show("DEDUP.INFO", "t"))
        .contains("Items=(integer) 1")
        .contains("Slices holding claims=(integer) 1");
  }

  @Test
  void window_membershipFollowsTheEventTime() {
    h.call("DEDUP.RESERVE", "t", "8h");
    clock.set(T0 + 5 * HOUR);
    // Claimed at an event time 4 hours back: it leaves the window 8 hours after that.
    h.call("DEDUP.CLAIM", "t", "old", "o", "AT", Long.toString(T0 + HOUR));
    clock.set(T0 + 9 * HOUR - 1);
    assertThat(h.show("DEDUP.EXISTS", "t", "old")).isEqualTo("(integer) 1");
    clock.set(T0 + 10 * HOUR);
    assertThat(h.show("DEDUP.EXISTS", "t", "old")).isEqualTo("(integer) 0");
  }

  @Test
  void window_eventsOlderThanTheWindowAreCheckedAndKeptAtItsStart_futureOnesAtNow() {
    h.call("DEDUP.RESERVE", "t", "8h");
    clock.set(T0 + 20 * HOUR);
    h.call("DEDUP.CLAIM", "t", "x", "o1");
    assertThat(h.show("DEDUP.CLAIM", "t", "x", "o2", "AT", "0")).isEqualTo("[duplicate, \"o1\"]");
    assertThat(h.show("DEDUP.CLAIM", "t", "ancient", "o", "AT", "0")).isEqualTo("[new, \"o\"]");
    assertThat(h.show("DEDUP.CLAIM", "t", "future", "o", "AT", Long.toString(T0 + 1000 * HOUR)))
        .isEqualTo("[new, \"o\"]");
    clock.set(T0 + 27 * HOUR);
    assertThat(h.show("DEDUP.EXISTS", "t", "ancient")).isEqualTo("(integer) 0");
    assertThat(h.show("DEDUP.EXISTS", "t", "future")).isEqualTo("(integer) 1");
    clock.set(T0 + 29 * HOUR);
    assertThat(h.show("DEDUP.EXISTS", "t", "future")).isEqualTo("(integer) 0");
  }

  // ---- release

  @Test
  void release_onlyByTheOwner_thenTheIdIsNewAgain() {
    h.call("DEDUP.RESERVE", "t", "1h");
    h.call("DEDUP.CLAIM", "t", "a", "o1");
    assertThat(h.show("DEDUP.RELEASE", "t", "a", "o2")).isEqualTo("(integer) 0");
    assertThat(h.show("DEDUP.RELEASE", "t", "b", "o1")).isEqualTo("(integer) 0");
    assertThat(h.show("DEDUP.RELEASE", "t", "a", "o1")).isEqualTo("(integer) 1");
    assertThat(h.show("DEDUP.RELEASE", "t", "a", "o1")).isEqualTo("(integer) 0");
    assertThat(h.show("DEDUP.CLAIM", "t", "a", "o2")).isEqualTo("[new, \"o2\"]");
    assertThat(h.show("DEDUP.INFO", "t")).contains("Items=(integer) 1");
  }

  // ---- the background writes pending claims as rows

  @Test
  void background_writesPendingClaimsAsRows_andTheyStayClaimed() {
    h.call("DEDUP.RESERVE", "t", "1h");
    h.call("DEDUP.MCLAIM", "t", "ITEMS", "a", "o1", "b", "o2");
    assertThat(BackgroundSteps.pending(h.engine, "t")).isEqualTo(2);
    assertThat(h.show("DEDUP.INFO", "t")).contains("Disk bytes=(integer) 0");
    h.engine.runBackground();
    assertThat(BackgroundSteps.pending(h.engine, "t")).as("claims just came").isEqualTo(2);
    clock.addAndGet(1000); // quiet long enough: the burst is over
    h.engine.runBackground();
    assertThat(BackgroundSteps.pending(h.engine, "t")).isZero();
    assertThat(h.show("DEDUP.INFO", "t")).doesNotContain("Disk bytes=(integer) 0");
    assertThat(h.show("DEDUP.CLAIM", "t", "a", "o9")).isEqualTo("[duplicate, \"o1\"]");
    assertThat(h.show("DEDUP.CLAIM", "t", "b", "o2")).isEqualTo("[retry, \"o2\"]");
    assertThat(h.show("DEDUP.RELEASE", "t", "a", "o1")).isEqualTo("(integer) 1");
    assertThat(h.show("DEDUP.CLAIM", "t", "a", "o9")).isEqualTo("[new, \"o9\"]");
  }

  @Test
  void background_aReleaseDuringTheWrite_isNotUndoneByIt() {
    h.call("DEDUP.RESERVE", "t", "1h");
    h.call("DEDUP.CLAIM", "t", "a", "o1");
    var puts = BackgroundSteps.start(h.engine, "t");
    assertThat(h.show("DEDUP.RELEASE", "t", "a", "o1")).isEqualTo("(integer) 1");
    BackgroundSteps.finish(h.engine, "t", puts); // writes a's row after the release's delete
    assertThat(h.show("DEDUP.CLAIM", "t", "a", "o2")).isEqualTo("[new, \"o2\"]");
    clock.addAndGet(1000);
    h.engine.runBackground();
    assertThat(BackgroundSteps.pending(h.engine, "t")).isZero();
    assertThat(h.show("DEDUP.CLAIM", "t", "a", "o3")).isEqualTo("[duplicate, \"o2\"]");
  }

  @Test
  void background_slicesDroppedDuringTheWrite_loseTheirRows() {
    h.call("DEDUP.RESERVE", "t", "8h");
    h.call("DEDUP.CLAIM", "t", "a", "o1");
    var puts = BackgroundSteps.start(h.engine, "t");
    clock.set(T0 + 10 * HOUR);
    assertThat(h.show("DEDUP.CLAIM", "t", "b", "o1")).isEqualTo("[new, \"o1\"]"); // drops a's
    BackgroundSteps.finish(h.engine, "t", puts);
    h.engine.runBackground();
    assertThat(h.show("DEDUP.CLAIM", "t", "a", "o2")).isEqualTo("[new, \"o2\"]");
  }

  @Test
  void background_dropsSlicesOfATableNobodyClaimsInto() {
    h.call("DEDUP.RESERVE", "t", "8h");
    h.call("DEDUP.CLAIM", "t", "a", "o1");
    h.engine.runBackground();
    clock.set(T0 + 10 * HOUR);
    h.engine.runBackground();
    assertThat(h.show("DEDUP.INFO", "t"))
        .contains("Items=(integer) 0")
        .contains("Disk bytes=(integer) 0")
        .contains("Memory bytes=(integer) 64");
  }

  // ---- filter and recent modes

  @Test
  void filterMode_knowsNoOwners() {
    h.call("DEDUP.RESERVE", "f", "1h", "FILTER", "0.001", "1000");
    assertThat(h.show("DEDUP.CLAIM", "f", "a", "o1")).isEqualTo("[new, (nil)]");
    assertThat(h.show("DEDUP.CLAIM", "f", "a", "o1")).isEqualTo("[duplicate, (nil)]");
    assertThat(h.show("DEDUP.MCLAIM", "f", "DUPLICATES", "ITEMS", "a", "o", "b", "o"))
        .isEqualTo("[[\"a\", (nil)]]");
    assertThat(h.show("DEDUP.RELEASE", "f", "a", "o1"))
        .isEqualTo("(error) ERR a FILTER table keeps no owners, so a claim cannot be released");
    assertThat(h.show("DEDUP.INFO", "f"))
        .contains("Mode=filter")
        .contains("Items=(integer) 2")
        .contains("Error rate=(double) 0.001");
    clock.set(T0 + 2 * HOUR);
    assertThat(h.show("DEDUP.CLAIM", "f", "a", "o1")).isEqualTo("[new, (nil)]");
  }

  @Test
  void filterMode_aSliceGrowsPastItsShare_untilItsLimit() {
    // A slice's share is one claim here: its cuckoo filter adds a table of the same size each
    // time its kicks fail, up to 32 tables. (A low rate: no new id here is taken for a duplicate.)
    h.call("DEDUP.RESERVE", "f", "8h", "FILTER", "0.000001", "8");
    assertThat(h.show("DEDUP.INFO", "f")).contains("Slice filter=cuckoo");
    int claimed = 0;
    String reply;
    while ((reply = h.show("DEDUP.CLAIM", "f", "id" + claimed, "o")).equals("[new, (nil)]")) {
      claimed++;
    }
    assertThat(reply)
        .isEqualTo(
            "(error) ERR a slice's filter is full: reserve the table with a larger capacity");
    // Far past its share, and every claim made is still known; the refused one was not made.
    assertThat(claimed).isGreaterThan(32);
    assertThat(h.show("DEDUP.INFO", "f")).contains("Items=(integer) " + claimed);
    for (int i = 0; i < claimed; i++) {
      assertThat(h.show("DEDUP.EXISTS", "f", "id" + i)).as("id%d", i).isEqualTo("(integer) 1");
    }
    assertThat(h.show("DEDUP.EXISTS", "f", "id" + claimed)).isEqualTo("(integer) 0");
    // The next slice has room again.
    clock.set(T0 + HOUR);
    assertThat(h.show("DEDUP.CLAIM", "f", "id" + claimed, "o")).isEqualTo("[new, (nil)]");
  }

  @Test
  void filterMode_replayingTheLog_rebuildsGrownCuckooSlicesByteForByte() throws Exception {
    CuckooCodecTest.Recording journal = new CuckooCodecTest.Recording();
    h.engine.attach(journal);
    h.call("DEDUP.RESERVE", "f", "8h", "FILTER", "0.000001", "80"); // 10 claims a slice
    for (int batch = 0; batch < 4; batch++) {
      List<String> call = new ArrayList<>(List.of("DEDUP.MCLAIM", "f", "AT"));
      call.add(Long.toString(T0 - batch % 2 * HOUR)); // two slices, each far past its share
      call.add("ITEMS");
      for (int i = 0; i < 50; i++) {
        call.add("id-" + batch + "-" + i);
        call.add("o");
      }
      assertThat(h.show(call.toArray(String[]::new))).doesNotContain("error");
    }
    assertThat(h.show("DEDUP.INFO", "f")).contains("Items=(integer) 200");
    CuckooCodecTest.Logged logged = journal.of(h, "f");
    io.idem.server.commands.dedup.DedupCodec codec =
        io.idem.server.commands.dedup.DedupCodec.INSTANCE;
    io.idem.core.dedup.DedupTable replayed = codec.create(logged.recipe());
    for (CuckooCodecTest.Op op : logged.ops()) {
      codec.apply(replayed, op.op(), op.payload());
    }
    java.io.ByteArrayOutputStream live = new java.io.ByteArrayOutputStream();
    java.io.ByteArrayOutputStream back = new java.io.ByteArrayOutputStream();
    codec.write(
        h.engine.read(
            "f".getBytes(java.nio.charset.StandardCharsets.UTF_8),
            e -> (io.idem.core.dedup.DedupTable) e.value()),
        live);
    codec.write(replayed, back);
    assertThat(back.toByteArray()).isEqualTo(live.toByteArray());
  }

  @Test
  void filterMode_aSliceGrowsOnlyIfTheMemoryFits() {
    h.call("DEDUP.RESERVE", "f", "8h", "FILTER", "0.000001", "8000"); // 1000 claims a slice
    h.call("DEDUP.CLAIM", "f", "id0", "o");
    h.engine.setMaxMemory(h.engine.usedMemory() + 1024); // less than a slice's table, 3.5 KB
    int claimed = 1;
    String reply;
    while ((reply = h.show("DEDUP.CLAIM", "f", "id" + claimed, "o")).equals("[new, (nil)]")) {
      claimed++;
    }
    assertThat(reply).isEqualTo("(error) ERR Insufficient memory for the dedup table");
    assertThat(claimed).isGreaterThan(900); // the table filled first
    assertThat(h.show("DEDUP.INFO", "f")).contains("Items=(integer) " + claimed);
    h.engine.setMaxMemory(0);
    assertThat(h.show("DEDUP.CLAIM", "f", "id" + claimed, "o")).isEqualTo("[new, (nil)]");
  }

  @Test
  void recentMode_retryAndDuplicate_andForgetsUnderPressure() {
    h.call("DEDUP.RESERVE", "r", "1h", "RECENT", "1");
    assertThat(h.show("DEDUP.CLAIM", "r", "a", "o1")).isEqualTo("[new, \"o1\"]");
    assertThat(h.show("DEDUP.CLAIM", "r", "a", "o1")).isEqualTo("[retry, \"o1\"]");
    assertThat(h.show("DEDUP.CLAIM", "r", "a", "o2")).isEqualTo("[duplicate, (nil)]");
    assertThat(h.show("DEDUP.CLAIM", "r", "b", "o1")).isEqualTo("[new, \"o1\"]"); // a's slot
    assertThat(h.show("DEDUP.EXISTS", "r", "a")).isEqualTo("(integer) 0");
    assertThat(h.show("DEDUP.INFO", "r"))
        .contains("Items=(integer) 1")
        .contains("Slots=(integer) 1");
    assertThat(h.show("DEDUP.RELEASE", "r", "b", "o2")).isEqualTo("(integer) 0");
    assertThat(h.show("DEDUP.RELEASE", "r", "b", "o1")).isEqualTo("(integer) 1");
    assertThat(h.show("DEDUP.INFO", "r")).contains("Items=(integer) 0");
    h.call("DEDUP.CLAIM", "r", "c", "o1");
    clock.set(T0 + 2 * HOUR);
    assertThat(h.show("DEDUP.EXISTS", "r", "c")).isEqualTo("(integer) 0");
    assertThat(h.show("DEDUP.CLAIM", "r", "c", "o2")).isEqualTo("[new, \"o2\"]");
  }

  // ---- SLICES: each live slice, and the duplicates caught

  /** The start of the hour-long slice that T0 falls in. */
  private static final long S0 = Math.floorDiv(T0, HOUR) * HOUR;

  /**
   * DEDUP.SLICES' slices, each as its fields by name in reply order; checks the names and that a
   * slice of an EXACT or FILTER table has bytes (its filter's size), then leaves them out.
   */
  private List<Map<String, Long>> slices(String key, boolean withBytes) {
    Reply reply = h.call("DEDUP.SLICES", key);
    assertThat(reply).isInstanceOf(Reply.Array.class);
    List<Map<String, Long>> out = new ArrayList<>();
    for (Reply slice : ((Reply.Array) reply).items()) {
      List<Reply> kv = ((Reply.Map) slice).keysAndValues();
      Map<String, Long> fields = new LinkedHashMap<>();
      for (int i = 0; i < kv.size(); i += 2) {
        fields.put(((Reply.Simple) kv.get(i)).text(), ((Reply.Int) kv.get(i + 1)).value());
      }
      if (withBytes) {
        assertThat(fields.keySet())
            .containsExactly("start", "end", "age", "items", "bytes", "duplicates");
        assertThat(fields.remove("bytes")).isPositive();
      } else {
        assertThat(fields.keySet()).containsExactly("start", "end", "age", "items", "duplicates");
      }
      out.add(fields);
    }
    return out;
  }

  /** The hour-long slice starting at {@code start} as {@link #slices} gives it now. */
  private Map<String, Long> slice(long start, long items, long duplicates) {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("start", start);
    m.put("end", start + HOUR);
    m.put("age", clock.get() - start);
    m.put("items", items);
    m.put("duplicates", duplicates);
    return m;
  }

  @Test
  void slices_exact_oldestFirst_duplicatesInTheSliceHoldingTheId() {
    h.call("DEDUP.RESERVE", "t", "8h"); // 8 slices of an hour
    h.call("DEDUP.CLAIM", "t", "a", "o1");
    clock.set(T0 + 2 * HOUR + 5);
    h.call("DEDUP.MCLAIM", "t", "ITEMS", "b", "o1", "c", "o1");
    h.call("DEDUP.CLAIM", "t", "old", "o1", "AT", "0"); // kept at the window's start: S0 - 6h
    assertThat(h.show("DEDUP.CLAIM", "t", "a", "o1")).isEqualTo("[retry, \"o1\"]"); // not counted
    assertThat(h.show("DEDUP.CLAIM", "t", "a", "o2")).isEqualTo("[duplicate, \"o1\"]");
    assertThat(h.show("DEDUP.CLAIM", "t", "b", "o2")).isEqualTo("[duplicate, \"o1\"]");
    // Eight pairs are asked of the filters together: d0's repeat is found in the call itself, and
    // counted in the slice of its event time.
    List<String> call = new ArrayList<>(List.of("DEDUP.MCLAIM", "t", "AT"));
    call.add(Long.toString(T0 + HOUR / 2));
    call.add("ITEMS");
    for (int i = 0; i < 7; i++) {
      call.add("d" + i);
      call.add("o1");
    }
    call.add("d0");
    call.add("o2");
    assertThat(h.show(call.toArray(String[]::new))).endsWith("[duplicate, \"o1\"]]");

    assertThat(slices("t", true))
        .containsExactly(slice(S0 - 6 * HOUR, 1, 0), slice(S0, 8, 2), slice(S0 + 2 * HOUR, 2, 1));
    assertThat(h.show("DEDUP.INFO", "t"))
        .endsWith("Capacity=(integer) 1000000, Duplicates caught=(integer) 3}");

    // S0 - 6h's slice is past the window from S0 + 3h: left out before anything drops it.
    clock.set(T0 + 3 * HOUR);
    assertThat(slices("t", true)).containsExactly(slice(S0, 8, 2), slice(S0 + 2 * HOUR, 2, 1));
    clock.set(T0 + 9 * HOUR);
    h.engine.runBackground(); // drops S0's slice
    assertThat(slices("t", true)).containsExactly(slice(S0 + 2 * HOUR, 2, 1));
    // The table's total keeps what dropped slices caught.
    assertThat(h.show("DEDUP.INFO", "t"))
        .contains("Slices holding claims=(integer) 1")
        .endsWith("Duplicates caught=(integer) 3}");
  }

  @Test
  void slices_filter_duplicatesInTheSliceWhoseFilterHoldsTheId() {
    h.call("DEDUP.RESERVE", "f", "8h", "FILTER", "0.000001", "1000");
    h.call("DEDUP.CLAIM", "f", "a", "o");
    clock.set(T0 + HOUR);
    h.call("DEDUP.CLAIM", "f", "b", "o");
    assertThat(h.show("DEDUP.CLAIM", "f", "a", "o")).isEqualTo("[duplicate, (nil)]");
    assertThat(h.show("DEDUP.CLAIM", "f", "b", "o")).isEqualTo("[duplicate, (nil)]");
    assertThat(h.show("DEDUP.CLAIM", "f", "b", "o2")).isEqualTo("[duplicate, (nil)]");
    List<String> call = new ArrayList<>(List.of("DEDUP.MCLAIM", "f", "DUPLICATES", "ITEMS"));
    for (int i = 0; i < 7; i++) {
      call.add("e" + i);
      call.add("o");
    }
    call.add("e0");
    call.add("o");
    assertThat(h.show(call.toArray(String[]::new))).isEqualTo("[[\"e0\", (nil)]]");

    assertThat(slices("f", true)).containsExactly(slice(S0, 1, 1), slice(S0 + HOUR, 8, 3));
    assertThat(h.show("DEDUP.INFO", "f")).endsWith(", Duplicates caught=(integer) 4}");

    clock.set(T0 + 9 * HOUR); // S0's slice is past the window
    assertThat(slices("f", true)).containsExactly(slice(S0 + HOUR, 8, 3));
    assertThat(h.show("DEDUP.CLAIM", "f", "a", "o")).isEqualTo("[new, (nil)]");
    assertThat(slices("f", true))
        .containsExactly(slice(S0 + HOUR, 8, 3), slice(S0 + 9 * HOUR, 1, 0));
    assertThat(h.show("DEDUP.INFO", "f")).endsWith(", Duplicates caught=(integer) 4}");
  }

  @Test
  void slices_recent_duplicatesInTheSliceItsSlotNames_noBytes() {
    h.call("DEDUP.RESERVE", "r", "8h", "RECENT", "100000");
    h.call("DEDUP.CLAIM", "r", "a", "o1");
    clock.set(T0 + 3 * HOUR);
    h.call("DEDUP.CLAIM", "r", "b", "o1");
    assertThat(h.show("DEDUP.CLAIM", "r", "a", "o2")).isEqualTo("[duplicate, (nil)]");
    assertThat(h.show("DEDUP.CLAIM", "r", "a", "o1")).isEqualTo("[retry, \"o1\"]");
    assertThat(h.show("DEDUP.CLAIM", "r", "b", "o2")).isEqualTo("[duplicate, (nil)]");
    assertThat(h.show("DEDUP.CLAIM", "r", "b", "o3")).isEqualTo("[duplicate, (nil)]");

    assertThat(slices("r", false)).containsExactly(slice(S0, 1, 1), slice(S0 + 3 * HOUR, 1, 2));
    assertThat(h.show("DEDUP.INFO", "r"))
        .endsWith("Slots=(integer) 100000, Duplicates caught=(integer) 3}");

    clock.set(T0 + 9 * HOUR); // S0's slice is past the window
    assertThat(slices("r", false)).containsExactly(slice(S0 + 3 * HOUR, 1, 2));
    assertThat(h.show("DEDUP.RELEASE", "r", "b", "o1")).isEqualTo("(integer) 1");
    assertThat(slices("r", false)).containsExactly(slice(S0 + 3 * HOUR, 0, 2));
  }

  @Test
  void slices_errors() {
    assertThat(h.show("DEDUP.SLICES", "none")).isEqualTo("(error) ERR not found");
    h.call("BF.ADD", "bf", "x");
    assertThat(h.show("DEDUP.SLICES", "bf"))
        .isEqualTo("(error) WRONGTYPE Operation against a key holding the wrong kind of value");
    assertThat(h.show("DEDUP.SLICES", "t", "x"))
        .isEqualTo("(error) ERR wrong number of arguments for 'dedup.slices' command");
    h.call("DEDUP.RESERVE", "t", "1h");
    assertThat(h.show("DEDUP.SLICES", "t")).isEqualTo("[]");
  }

  @Test
  void duplicatesCaught_areNotInTheSnapshot_soALoadedTableStartsAtZero() throws Exception {
    h.call("DEDUP.RESERVE", "f", "1h", "FILTER", "0.001", "1000");
    h.call("DEDUP.CLAIM", "f", "a", "o");
    h.call("DEDUP.CLAIM", "f", "a", "o");
    io.idem.server.commands.dedup.DedupCodec codec =
        io.idem.server.commands.dedup.DedupCodec.INSTANCE;
    io.idem.core.dedup.DedupTable live =
        h.engine.read(
            "f".getBytes(java.nio.charset.StandardCharsets.UTF_8),
            e -> (io.idem.core.dedup.DedupTable) e.value());
    assertThat(live.duplicatesCaught()).isEqualTo(1);
    java.io.ByteArrayOutputStream image = new java.io.ByteArrayOutputStream();
    codec.write(live, image);
    io.idem.core.dedup.DedupTable loaded =
        codec.read(new java.io.ByteArrayInputStream(image.toByteArray()), Long.MAX_VALUE);
    assertThat(loaded.items()).isEqualTo(1);
    assertThat(loaded.duplicatesCaught()).isZero();
    assertThat(loaded.liveSlices(clock.get()).firstEntry().getValue().duplicates()).isZero();
  }

  // ---- the keyspace

  @Test
  void keyspace_delRenameExpireScan() {
    h.call("DEDUP.RESERVE", "t", "1h");
    h.call("DEDUP.CLAIM", "t", "a", "o1");
    assertThat(h.show("RENAME", "t", "u")).isEqualTo("OK");
    assertThat(h.show("DEDUP.CLAIM", "u", "a", "o2")).isEqualTo("[duplicate, \"o1\"]");
    assertThat(h.show("SCAN", "0", "TYPE", "dedup")).isEqualTo("[\"0\", [\"u\"]]");
    assertThat(h.show("DEL", "u")).isEqualTo("(integer) 1");
    h.call("DEDUP.RESERVE", "u", "1h");
    assertThat(h.show("DEDUP.CLAIM", "u", "a", "o2")).isEqualTo("[new, \"o2\"]");
    assertThat(h.show("EXPIRE", "u", "10")).isEqualTo("(integer) 1");
    assertThat(h.show("TTL", "u")).isEqualTo("(integer) 10");
  }
}
