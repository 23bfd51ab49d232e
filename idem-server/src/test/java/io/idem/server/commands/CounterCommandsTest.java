package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** COUNTER.* through the dispatcher, on a clock the test moves: replies, errors and expiry. */
class CounterCommandsTest {

  private static final long S = 1000;
  private static final long M = 60 * S;
  private static final long H = 60 * M;
  private static final long D = 24 * H;

  /** 40 seconds into a minute. */
  private static final long T0 = 1_700_000_080_000L;

  private final AtomicLong clock = new AtomicLong(T0);
  private final Harness h = new Harness(clock::get);

  private static String at(long t) {
    return Long.toString(t);
  }

  // ---- RESERVE, INFO

  @Test
  void reserve_withDefaultsOrGivenResolutions_andInfoShowsThem() {
    assertThat(h.show("COUNTER.RESERVE", "c")).isEqualTo("OK");
    assertThat(h.show("COUNTER.INFO", "c"))
        .isEqualTo(
            "{Resolutions=[[(integer) 60000, (integer) 7200000], [(integer) 3600000, (integer)"
                + " 691200000]], Buckets per row=(integer) 64, Row format=(integer) 1, Memory"
                + " bytes=(integer) 192, Disk bytes=(integer) 0}");
    // Any order; stored finest first.
    assertThat(h.show("COUNTER.RESERVE", "d", "RESOLUTION", "1d", "90d", "resolution", "10", "1h"))
        .isEqualTo("OK");
    assertThat(h.show("COUNTER.INFO", "d"))
        .startsWith(
            "{Resolutions=[[(integer) 10000, (integer) 3600000], [(integer) 86400000, (integer)"
                + " 7776000000]]");
    assertThat(h.show("TYPE", "d")).isEqualTo("counter");
    // A write keeps the rows it wrote for the next writes (WrittenRows): its arrays, 16 bytes a
    // slot, and each row with its 6-byte key and 32 bytes more: a minute row and an hour row of 2.
    h.call("COUNTER.INCRBY", "c", "*", "n", "1");
    long written = 16L * (1 << 15) + 2 * (32 + 6 + 2);
    assertThat(h.show("COUNTER.INFO", "c")).contains("Memory bytes=(integer) " + (192 + written));
    // The query cache's slots come with the first row a query reads.
    assertThat(h.show("COUNTER.QUERY", "c", "*", "1h", "1d", "NAMES", "n"))
        .isEqualTo("[[(integer) 1, (integer) 1]]");
    // Three rows read, each 56 bytes with its 6-byte key: a minute row and an hour row of 2 bytes
    // each, and an empty row (one window spans two rows here), cached as absent.
    // The arrays: a reference a slot and a claim a set of four, 5 bytes a slot.
    long cached = 192 + written + 5 * (1 << 20) + 2 * (56 + 6 + 2) + (56 + 6);
    assertThat(h.show("COUNTER.INFO", "c")).contains("Memory bytes=(integer) " + cached + ",");
    // A write updates a cached row (the count 300 takes two bytes, not one) in both caches ...
    h.call("COUNTER.INCRBY", "c", "*", "n", "299");
    long updated = cached + 2 + 2;
    assertThat(h.show("COUNTER.INFO", "c")).contains("Memory bytes=(integer) " + updated + ",");
    assertThat(h.show("COUNTER.QUERY", "c", "*", "1h", "NAMES", "n"))
        .isEqualTo("[[(integer) 300]]");
    // ... and a new name's rows are kept for writes only, not in the queries' cache.
    h.call("COUNTER.INCRBY", "c", "*", "other", "1");
    long other = updated + 2 * (32 + 10 + 2);
    assertThat(h.show("COUNTER.INFO", "c")).contains("Memory bytes=(integer) " + other + ",");
  }

  @Test
  void reserve_errors() {
    h.call("COUNTER.RESERVE", "c");
    h.call("BF.ADD", "s", "x");
    assertThat(h.show("COUNTER.RESERVE", "c")).isEqualTo("(error) ERR item exists");
    assertThat(h.show("COUNTER.RESERVE", "s")).startsWith("(error) WRONGTYPE");
    assertThat(h.show("COUNTER.RESERVE", "n", "RESOLUTION", "1m"))
        .isEqualTo("(error) ERR syntax error");
    assertThat(h.show("COUNTER.RESERVE", "n", "BUCKETS", "1m", "1h"))
        .isEqualTo("(error) ERR syntax error");
    assertThat(h.show("COUNTER.RESERVE", "n", "RESOLUTION", "1x", "1h"))
        .isEqualTo(
            "(error) ERR a window must be seconds or a duration such as 90s, 15m, 24h or 7d");
    assertThat(h.show("COUNTER.RESERVE", "n", "RESOLUTION", "1500ms", "1h"))
        .isEqualTo("(error) ERR a bucket must be a whole number of seconds, at least 1s");
    assertThat(h.show("COUNTER.RESERVE", "n", "RESOLUTION", "1h", "1m"))
        .isEqualTo("(error) ERR a retention must be from one bucket to 3650d");
    assertThat(h.show("COUNTER.RESERVE", "n", "RESOLUTION", "1s", "30d"))
        .isEqualTo("(error) ERR a resolution keeps at most 131072 buckets (retention / bucket)");
    assertThat(h.show("COUNTER.RESERVE", "n", "RESOLUTION", "1m", "1h", "RESOLUTION", "60", "2h"))
        .isEqualTo("(error) ERR two resolutions with the same bucket");
    String[] nine = new String[2 + 27];
    nine[0] = "COUNTER.RESERVE";
    nine[1] = "n";
    for (int i = 0; i < 9; i++) {
      nine[2 + 3 * i] = "RESOLUTION";
      nine[3 + 3 * i] = (i + 1) + "s";
      nine[4 + 3 * i] = "1h";
    }
    assertThat(h.show(nine)).isEqualTo("(error) ERR a table has at most 8 resolutions");
    assertThat(h.show("COUNTER.INFO", "n")).isEqualTo("(error) ERR not found");
    assertThat(h.show("EXISTS", "n")).isEqualTo("(integer) 0");
  }

  // ---- INCRBY, QUERY

  @Test
  void incrby_countsAtEveryResolutionThatKeepsTheEvent_andQuerySumsWindows() {
    // A free key becomes a table with the default resolutions.
    assertThat(h.show("COUNTER.INCRBY", "c", "*", "ip:1", "3", "email:a", "1"))
        .isEqualTo("(integer) 2");
    assertThat(h.show("TYPE", "c")).isEqualTo("counter");
    assertThat(h.show("COUNTER.INCRBY", "c", at(T0 - 30 * M), "ip:1", "10"))
        .isEqualTo("(integer) 2");
    // Past the minutes' two hours: counted in hours only.
    assertThat(h.show("COUNTER.INCRBY", "c", at(T0 - 5 * H), "ip:1", "100"))
        .isEqualTo("(integer) 1");
    assertThat(h.show("COUNTER.INCRBY", "c", at(T0 - 2 * D), "ip:1", "1000", "ip:1", "-1"))
        .isEqualTo("(integer) 1");
    assertThat(
            h.show(
                "COUNTER.QUERY",
                "c",
                "*",
                "1m",
                "1h",
                "24h",
                "7d",
                "NAMES",
                "ip:1",
                "email:a",
                "none"))
        .isEqualTo(
            "[[(integer) 3, (integer) 13, (integer) 113, (integer) 1112], [(integer) 1, (integer) 1,"
                + " (integer) 1, (integer) 1], [(integer) 0, (integer) 0, (integer) 0, (integer) 0]]");
    // Ending at a given time: an hour ending 20 minutes ago holds the event 30 minutes ago only.
    assertThat(h.show("COUNTER.QUERY", "c", at(T0 - 20 * M), "1h", "NAMES", "ip:1"))
        .isEqualTo("[[(integer) 10]]");
    // A free key counts zero.
    assertThat(h.show("COUNTER.QUERY", "free", "*", "1h", "1d", "NAMES", "x"))
        .isEqualTo("[[(integer) 0, (integer) 0]]");
  }

  @Test
  void aWindowIsWholeBuckets_endingWithTheBucketThatHoldsItsEnd() {
    long minute = Math.floorDiv(T0, M) * M;
    h.call("COUNTER.INCRBY", "c", at(minute - H), "n", "1"); // the minute an hour before: out
    h.call("COUNTER.INCRBY", "c", at(minute - H + M), "n", "10"); // the first minute in
    h.call("COUNTER.INCRBY", "c", at(minute + 59 * S), "n", "100"); // later in the end's minute
    assertThat(h.show("COUNTER.QUERY", "c", at(T0), "1h", "1m", "NAMES", "n"))
        .isEqualTo("[[(integer) 110, (integer) 100]]");
  }

  @Test
  void incrby_errorsChangeNothing() {
    h.call("COUNTER.INCRBY", "c", "*", "n", Long.toString(Long.MAX_VALUE));
    // All or nothing: the first pair would fit, the second overflows.
    assertThat(h.show("COUNTER.INCRBY", "c", "*", "m", "5", "n", "1"))
        .isEqualTo("(error) ERR increment or decrement would overflow");
    assertThat(h.show("COUNTER.INCRBY", "c", at(T0 - 9 * D), "m", "5"))
        .isEqualTo("(error) ERR the event is older than the retention of every resolution");
    assertThat(h.show("COUNTER.INCRBY", "c", at(T0 + 9 * D), "m", "5"))
        .isEqualTo(
            "(error) ERR the event is further ahead of the server's clock than the longest"
                + " retention");
    assertThat(h.show("COUNTER.INCRBY", "c", at(T0 + 7 * D), "m", "5")).isEqualTo("(integer) 2");
    h.call("COUNTER.INCRBY", "c", at(T0 + 7 * D), "m", "-5");
    for (String bad : new String[] {"-1", "x", "1.5", "253402300800000", ""}) {
      assertThat(h.show("COUNTER.INCRBY", "c", bad, "m", "5"))
          .as(bad)
          .isEqualTo(
              "(error) ERR time must be * or a Unix time in milliseconds, from 0 to the end of"
                  + " year 9999");
    }
    assertThat(h.show("COUNTER.INCRBY", "c", "*", "m", "1.5"))
        .isEqualTo("(error) ERR value is not an integer or out of range");
    assertThat(h.show("COUNTER.INCRBY", "c", "*", "m", "1", "n"))
        .isEqualTo("(error) ERR wrong number of arguments for 'counter.incrby' command");
    assertThat(h.show("COUNTER.INCRBY", "c", "*", "x".repeat(1025), "1"))
        .isEqualTo("(error) ERR name longer than 1024 bytes");
    assertThat(h.show("COUNTER.QUERY", "c", "*", "1h", "NAMES", "m", "n"))
        .isEqualTo("[[(integer) 0], [(integer) 9223372036854775807]]");
    h.call("BF.ADD", "s", "x");
    assertThat(h.show("COUNTER.INCRBY", "s", "*", "m", "1")).startsWith("(error) WRONGTYPE");
    // A refused first increment makes no table.
    assertThat(h.show("COUNTER.INCRBY", "new", at(T0 - 9 * D), "m", "1")).startsWith("(error)");
    assertThat(h.show("EXISTS", "new")).isEqualTo("(integer) 0");
  }

  @Test
  void query_errors() {
    h.call("COUNTER.INCRBY", "c", "*", "n", "1");
    assertThat(h.show("COUNTER.QUERY", "c", "*", "90s", "NAMES", "n"))
        .isEqualTo(
            "(error) ERR no resolution of the table divides a window of 90s and keeps that long");
    assertThat(h.show("COUNTER.QUERY", "c", "*", "9d", "NAMES", "n"))
        .isEqualTo(
            "(error) ERR no resolution of the table divides a window of 9d and keeps that long");
    assertThat(h.show("COUNTER.QUERY", "c", at(T0 - 2 * D), "7d", "NAMES", "n"))
        .isEqualTo(
            "(error) ERR a window of 7d ending at "
                + (T0 - 2 * D)
                + " reaches back past what the table keeps");
    assertThat(h.show("COUNTER.QUERY", "c", "*", "NAMES", "n"))
        .isEqualTo("(error) ERR wrong number of arguments for 'counter.query' command");
    assertThat(h.show("COUNTER.QUERY", "c", "*", "NAMES", "n", "m"))
        .isEqualTo("(error) ERR syntax error");
    assertThat(h.show("COUNTER.QUERY", "c", "*", "1h", "1d", "n"))
        .isEqualTo("(error) ERR syntax error");
    assertThat(h.show("COUNTER.QUERY", "c", "*", "1h", "x", "NAMES", "n"))
        .isEqualTo(
            "(error) ERR a window must be seconds or a duration such as 90s, 15m, 24h or 7d");
    assertThat(h.show("COUNTER.QUERY", "c", "soon", "1h", "NAMES", "n"))
        .startsWith("(error) ERR time");
    // A name may be anything, NAMES included, once NAMES has been seen.
    assertThat(h.show("COUNTER.QUERY", "c", "*", "1h", "NAMES", "NAMES", "n"))
        .isEqualTo("[[(integer) 0], [(integer) 1]]");
    h.call("BF.ADD", "s", "x");
    assertThat(h.show("COUNTER.QUERY", "s", "*", "1h", "NAMES", "n"))
        .startsWith("(error) WRONGTYPE");
  }

  @Test
  void query_answersAtMostTwentyThousandCounts_forAFreeKeyToo() {
    h.call("COUNTER.INCRBY", "c", "*", "n", "1");
    // 100 windows of one hour (all the same row) times 200 names: 20,000 counts, the most.
    List<String> words = new ArrayList<>(List.of("COUNTER.QUERY", "?", "*"));
    words.addAll(java.util.Collections.nCopies(100, "1h"));
    words.add("NAMES");
    for (int i = 0; i < 200; i++) {
      words.add(i == 0 ? "n" : "m" + i);
    }
    String tooMany = "(error) ERR a query may ask for at most 20000 counts (names x windows)";
    for (String key : List.of("c", "free")) {
      words.set(1, key);
      String reply = h.show(words.toArray(String[]::new));
      assertThat(reply).startsWith("[[(integer) " + (key.equals("c") ? 1 : 0) + ", ");
      assertThat(reply.split("\\(integer\\)")).hasSize(20_001);
      words.add("one-more");
      assertThat(h.show(words.toArray(String[]::new))).isEqualTo(tooMany);
      words.removeLast();
    }
  }

  // ---- expiry, keyspace

  @Test
  void rowsPastTheirRetentionAreDroppedByRange_andTheHoursStillCount() {
    h.call("COUNTER.INCRBY", "c", "*", "n", "1");
    for (int i = 0; i < 100; i++) {
      h.call("COUNTER.INCRBY", "c", "*", "name-" + i, "1");
    }
    long before = diskBytes();
    assertThat(before).isPositive();
    h.engine.runBackground();
    assertThat(diskBytes()).isEqualTo(before);
    // Past the minutes' retention, a row's 64 minutes and the margin: their rows are gone.
    clock.addAndGet(2 * H + 65 * M + 2 * M);
    h.engine.runBackground();
    assertThat(diskBytes()).isLessThan(before).isPositive();
    assertThat(h.show("COUNTER.QUERY", "c", "*", "1d", "NAMES", "n")).isEqualTo("[[(integer) 1]]");
    clock.addAndGet(8 * D + 65 * H);
    h.engine.runBackground();
    assertThat(diskBytes()).isZero();
  }

  @Test
  void aBackgroundRoundVisitsOnlyTheTablesWithRowsDue() {
    for (int i = 0; i < 50; i++) {
      h.call("COUNTER.INCRBY", "t" + i, "*", "n", "1");
    }
    assertThat(h.engine.runBackground()).isEqualTo(50); // each new table once
    assertThat(h.engine.runBackground()).isZero();
    // A minute at a time for three hours: the tables are due together when a row of minutes (64)
    // leaves the retention, two or three times, and once more if a row of hours does; never
    // between.
    assertThat(visitsEachMinute(180)).allMatch(v -> v == 50).hasSizeBetween(2, 4);
    assertThat(h.show("DEL", "t0")).isEqualTo("(integer) 1");
    assertThat(h.show("RENAME", "t1", "t2")).isEqualTo("OK");
    assertThat(visitsEachMinute(130)).allMatch(v -> v == 48).hasSizeBetween(2, 4);
  }

  /** The rounds that visited any table, a round a minute for {@code minutes} minutes. */
  private List<Integer> visitsEachMinute(int minutes) {
    List<Integer> visited = new ArrayList<>();
    for (int i = 0; i < minutes; i++) {
      clock.addAndGet(M);
      int n = h.engine.runBackground();
      if (n != 0) {
        visited.add(n);
      }
    }
    return visited;
  }

  @Test
  void deleteRenameAndExpireTakeTheRowsWithTheTable() {
    h.call("COUNTER.INCRBY", "c", "*", "n", "5");
    assertThat(h.show("RENAME", "c", "d")).isEqualTo("OK");
    assertThat(h.show("COUNTER.QUERY", "d", "*", "1h", "NAMES", "n")).isEqualTo("[[(integer) 5]]");
    assertThat(h.show("DEL", "d")).isEqualTo("(integer) 1");
    h.call("COUNTER.RESERVE", "d");
    assertThat(h.show("COUNTER.QUERY", "d", "*", "1h", "NAMES", "n")).isEqualTo("[[(integer) 0]]");
    assertThat(h.show("PEXPIRE", "d", "1000")).isEqualTo("(integer) 1");
    clock.addAndGet(1001);
    assertThat(h.show("EXISTS", "d")).isEqualTo("(integer) 0");
    assertThat(h.show("SCAN", "0", "TYPE", "counter")).isEqualTo("[\"0\", []]");
  }

  private long diskBytes() {
    return h.engine.read(Harness.bytes("c"), e -> h.engine.rows().approximateBytes(e.id()));
  }
}
