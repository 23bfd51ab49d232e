package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** DISTINCT.* through the dispatcher, on a clock the test moves: replies, errors and expiry. */
class DistinctCommandsTest {

  private static final long M = 60_000;
  private static final long H = 60 * M;
  private static final long D = 24 * H;

  /** 40 seconds into a minute. */
  private static final long T0 = 1_700_000_080_000L;

  private final AtomicLong clock = new AtomicLong(T0);
  private final Harness h = new Harness(clock::get);

  private static String at(long t) {
    return Long.toString(t);
  }

  /** DISTINCT.ADD of one name and the members user-from to user-(to - 1), at one time. */
  private String add(String key, long time, String name, int from, int to) {
    List<String> words = new ArrayList<>(List.of("DISTINCT.ADD", key, at(time)));
    for (int i = from; i < to; i++) {
      words.add(name);
      words.add("user-" + i);
    }
    return h.show(words.toArray(String[]::new));
  }

  @Test
  void reserve_withDefaultsOrGiven_andInfoShowsThem() {
    assertThat(h.show("DISTINCT.RESERVE", "d")).isEqualTo("OK");
    assertThat(h.show("DISTINCT.INFO", "d"))
        .isEqualTo(
            "{Resolutions=[[(integer) 60000, (integer) 7200000], [(integer) 3600000, (integer)"
                + " 691200000]], Precision=(integer) 14, Relative standard error=(double)"
                + " 0.008125, Row format=(integer) 1, Memory bytes=(integer) 192, Disk"
                + " bytes=(integer) 0}");
    assertThat(
            h.show(
                "DISTINCT.RESERVE",
                "e",
                "RESOLUTION",
                "1d",
                "90d",
                "PRECISION",
                "10",
                "resolution",
                "5m",
                "1h"))
        .isEqualTo("OK");
    assertThat(h.show("DISTINCT.INFO", "e"))
        .startsWith(
            "{Resolutions=[[(integer) 300000, (integer) 3600000], [(integer) 86400000, (integer)"
                + " 7776000000]], Precision=(integer) 10, Relative standard error=(double) 0.0325,");
    assertThat(h.show("TYPE", "e")).isEqualTo("distinct");
  }

  @Test
  void reserve_errors() {
    h.call("DISTINCT.RESERVE", "d");
    h.call("BF.ADD", "s", "x");
    assertThat(h.show("DISTINCT.RESERVE", "d")).isEqualTo("(error) ERR item exists");
    assertThat(h.show("DISTINCT.RESERVE", "s")).startsWith("(error) WRONGTYPE");
    for (String bad : new String[] {"3", "17", "x", "14.0", ""}) {
      assertThat(h.show("DISTINCT.RESERVE", "n", "PRECISION", bad))
          .as(bad)
          .isEqualTo("(error) ERR precision must be an integer from 4 to 16");
    }
    assertThat(h.show("DISTINCT.RESERVE", "n", "PRECISION")).isEqualTo("(error) ERR syntax error");
    assertThat(h.show("DISTINCT.RESERVE", "n", "RESOLUTION", "30s", "1h"))
        .isEqualTo("(error) ERR a distinct table's bucket must be at least 1m");
    assertThat(h.show("DISTINCT.RESERVE", "n", "RESOLUTION", "1h", "1m"))
        .isEqualTo("(error) ERR a retention must be from one bucket to 3650d");
    assertThat(h.show("DISTINCT.RESERVE", "n", "RESOLUTION", "1m", "1h", "RESOLUTION", "60", "2h"))
        .isEqualTo("(error) ERR two resolutions with the same bucket");
    assertThat(h.show("EXISTS", "n")).isEqualTo("(integer) 0");
  }

  /** The integers of a reply, in order, nested arrays flattened. */
  private static long[] integers(String shown) {
    return java.util.regex.Pattern.compile("\\(integer\\) (-?\\d+)")
        .matcher(shown)
        .results()
        .mapToLong(m -> Long.parseLong(m.group(1)))
        .toArray();
  }

  /** Within 1 % (1.2 standard errors at p = 14), as these small counts are. */
  private static void near(long[] got, long... expected) {
    assertThat(got).hasSameSizeAs(expected);
    for (int i = 0; i < got.length; i++) {
      assertThat((double) got[i]).as("value %d", i).isCloseTo(expected[i], within(expected[i]));
    }
  }

  private static org.assertj.core.data.Offset<Double> within(long expected) {
    return org.assertj.core.data.Offset.offset(Math.max(0.5, 0.01 * expected));
  }

  /**
   * An ADD of n new members to a fresh bucket: a pair raises nothing only when an earlier one holds
   * its register at a rank as high, about n² / 3m of them.
   */
  private static void rose(String reply, int n) {
    long[] got = integers(reply);
    assertThat(got).hasSize(1);
    assertThat(got[0]).isBetween(n - (long) n * n / 16384 - 1, (long) n);
  }

  @Test
  void add_countsMembersOncePerWindow_andCountReadsManyNamesAndWindows() {
    // ip:1 sees users 0-99 now, 50-149 two hours ago, 0-999 three days ago; ip:2 sees 0-9 now.
    // ADD replies the pairs that raised a register: nearly all of a fresh bucket's, then none.
    rose(add("d", T0, "ip:1", 0, 100), 100);
    assertThat(add("d", T0, "ip:1", 0, 100)).isEqualTo("(integer) 0");
    rose(add("d", T0 - 2 * H, "ip:1", 50, 150), 100);
    rose(add("d", T0 - 3 * D, "ip:1", 0, 1000), 1000);
    assertThat(add("d", T0 - 3 * D, "ip:1", 0, 1000)).isEqualTo("(integer) 0");
    rose(add("d", T0, "ip:2", 0, 10), 10);
    assertThat(h.show("TYPE", "d")).isEqualTo("distinct"); // made with the defaults
    String shown =
        h.show(
            "DISTINCT.COUNT",
            "d",
            "*",
            "1m",
            "1h",
            "3h",
            "1d",
            "7d",
            "NAMES",
            "ip:1",
            "ip:2",
            "ip:3");
    assertThat(shown).matches("\\[(\\[[^\\[\\]]*\\], ){2}\\[[^\\[\\]]*\\]\\]"); // 3 arrays
    near(integers(shown), 100, 100, 150, 150, 1000, 10, 10, 10, 10, 10, 0, 0, 0, 0, 0);
    // Ending two hours ago: only the hour then.
    near(integers(h.show("DISTINCT.COUNT", "d", at(T0 - 2 * H), "1h", "NAMES", "ip:1")), 100);
    // A free key counts zero.
    assertThat(h.show("DISTINCT.COUNT", "free", "*", "1h", "7d", "NAMES", "a"))
        .isEqualTo("[[(integer) 0, (integer) 0]]");
    assertThat(h.show("EXISTS", "free")).isEqualTo("(integer) 0");
  }

  @Test
  void add_errorsChangeNothing() {
    h.call("DISTINCT.RESERVE", "d");
    assertThat(h.show("DISTINCT.ADD", "d", at(T0 - 9 * D), "n", "u"))
        .isEqualTo("(error) ERR the event is older than the retention of every resolution");
    assertThat(h.show("DISTINCT.ADD", "d", at(T0 + 9 * D), "n", "u"))
        .isEqualTo(
            "(error) ERR the event is further ahead of the server's clock than the longest"
                + " retention");
    assertThat(h.show("DISTINCT.ADD", "d", "-1", "n", "u"))
        .isEqualTo(
            "(error) ERR time must be * or a Unix time in milliseconds, from 0 to the end of year"
                + " 9999");
    assertThat(h.show("DISTINCT.ADD", "d", "*", "n", "u", "m"))
        .isEqualTo("(error) ERR wrong number of arguments for 'distinct.add' command");
    assertThat(h.show("DISTINCT.ADD", "d", "*", "x".repeat(1025), "u"))
        .isEqualTo("(error) ERR name longer than 1024 bytes");
    assertThat(h.show("DISTINCT.ADD", "new", "-1", "n", "u")).startsWith("(error) ERR time");
    assertThat(h.show("EXISTS", "new")).isEqualTo("(integer) 0");
    h.call("BF.ADD", "s", "x");
    assertThat(h.show("DISTINCT.ADD", "s", "*", "n", "u")).startsWith("(error) WRONGTYPE");
    assertThat(h.show("DISTINCT.COUNT", "s", "*", "1h", "NAMES", "n"))
        .startsWith("(error) WRONGTYPE");
    assertThat(h.show("DISTINCT.COUNT", "d", "*", "1h", "7d", "NAMES", "n"))
        .isEqualTo("[[(integer) 0, (integer) 0]]");
    assertThat(h.show("DISTINCT.COUNT", "d", "*", "90s", "NAMES", "n"))
        .isEqualTo(
            "(error) ERR no resolution of the table divides a window of 90s and keeps that long");
    assertThat(h.show("DISTINCT.COUNT", "d", "*", "1h", "NAMES"))
        .isEqualTo("(error) ERR wrong number of arguments for 'distinct.count' command");
    assertThat(h.show("DISTINCT.COUNT", "d", "*", "1h", "n", "m"))
        .isEqualTo("(error) ERR syntax error");
    assertThat(h.show("DISTINCT.INFO", "free")).isEqualTo("(error) ERR not found");
    // Nothing refused was written: no rows, and no count where the refused events were.
    assertThat(diskBytes()).isZero();
    assertThat(h.show("DISTINCT.COUNT", "d", at(T0 + 9 * D), "1h", "NAMES", "n"))
        .isEqualTo("[[(integer) 0]]");
  }

  @Test
  void aCommandsRows_areBounded() {
    // 2049 names at two resolutions: 4098 rows, over the 4096 one ADD may touch. Nothing is made.
    List<String> words = new ArrayList<>(List.of("DISTINCT.ADD", "d", "*"));
    for (int i = 0; i < 2049; i++) {
      words.add("name-" + i);
      words.add("u");
    }
    assertThat(h.show(words.toArray(String[]::new)))
        .isEqualTo("(error) ERR a command may touch at most 4096 rows of a distinct table");
    assertThat(h.show("EXISTS", "d")).isEqualTo("(integer) 0");
    words.subList(words.size() - 2, words.size()).clear();
    assertThat(integers(h.show(words.toArray(String[]::new)))[0]).isEqualTo(2048);
    // A 91-day window of minutes is 131,040 rows a name: over the 20,000 a query may read.
    h.call("DISTINCT.RESERVE", "big", "RESOLUTION", "1m", "91d");
    String tooLarge =
        "(error) ERR a query may read at most 20000 rows (names x the rows of their windows): ask"
            + " for fewer names or shorter windows";
    assertThat(h.show("DISTINCT.COUNT", "big", "*", "91d", "NAMES", "a")).isEqualTo(tooLarge);
    // 6 days: 8,640 rows a name, so two names may be asked and three may not.
    assertThat(h.show("DISTINCT.COUNT", "big", "*", "6d", "NAMES", "a", "b"))
        .isEqualTo("[[(integer) 0], [(integer) 0]]");
    assertThat(h.show("DISTINCT.COUNT", "big", "*", "6d", "NAMES", "a", "b", "c"))
        .isEqualTo(tooLarge);
  }

  @Test
  void rowsPastTheirRetentionAreDroppedByRange_andTheHoursStillCount() {
    for (int i = 0; i < 50; i++) {
      add("d", T0, "ip-" + i, 0, 20);
    }
    long before = diskBytes();
    assertThat(before).isPositive();
    h.engine.runBackground();
    assertThat(diskBytes()).isEqualTo(before);
    // Past the minutes' retention and the margin: their rows are gone, the hours' stay.
    clock.addAndGet(2 * H + 3 * M);
    h.engine.runBackground();
    assertThat(diskBytes()).isLessThan(before).isPositive();
    assertThat(h.show("DISTINCT.COUNT", "d", "*", "1d", "NAMES", "ip-7"))
        .isEqualTo("[[(integer) 20]]");
    clock.addAndGet(8 * D + 2 * H);
    h.engine.runBackground();
    assertThat(diskBytes()).isZero();
  }

  private long diskBytes() {
    return h.engine.read(Harness.bytes("d"), e -> h.engine.rows().approximateBytes(e.id()));
  }
}
