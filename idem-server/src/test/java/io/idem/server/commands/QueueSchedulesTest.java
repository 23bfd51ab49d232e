package io.idem.server.commands;

import static io.idem.server.commands.Harness.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.commands.CuckooCodecTest.Logged;
import io.idem.server.commands.CuckooCodecTest.Recording;
import io.idem.server.commands.queue.JobQueue;
import io.idem.server.commands.queue.QueueCodec;
import io.idem.server.reply.Replies;
import io.idem.server.reply.Reply;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Repeatable jobs through the commands at a clock the test moves, fired by the engine's background
 * round as a server alone fires them, or asked of a log as a cluster node does.
 */
class QueueSchedulesTest {

  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final Harness h = new Harness(clock::get);

  private static String text(Reply r) {
    return new String(((Reply.Bulk) r).bytes(), StandardCharsets.UTF_8);
  }

  /** Runs the background round, then leases every due job: their ids, in order. */
  private List<String> fireAndTake() {
    h.engine.runBackground();
    List<String> ids = new ArrayList<>();
    Reply r = h.call("QUEUE.RESERVE", "q", "COUNT", "1000", "LEASE", "1h");
    for (Reply job : ((Reply.Array) r).items()) {
      List<Reply> f = ((Reply.Array) job).items();
      ids.add(text(f.get(0)));
      h.call("QUEUE.ACK", "q", text(f.get(0)), Long.toString(((Reply.Int) f.get(2)).value()));
    }
    return ids;
  }

  @Test
  void anIntervalSchedule_addsARunAtEachTime_withItsOwnId() {
    assertThat(h.show("QUEUE.SCHEDULE", "q", "tick", "EVERY", "1s", "report", "PRIORITY", "5"))
        .isEqualTo("\"new\"");
    assertThat(fireAndTake()).containsExactly("tick:1000000"); // due when made
    clock.addAndGet(999);
    assertThat(fireAndTake()).isEmpty();
    clock.addAndGet(1);
    assertThat(fireAndTake()).containsExactly("tick:1001000");
    assertThat(Replies.show(h.call("QUEUE.SCHEDULES", "q")))
        .isEqualTo(
            "[{\"name\"=\"tick\", \"when\"=\"every 1000ms\", \"payload\"=\"report\","
                + " \"next\"=(integer) 1002000, \"done\"=(integer) 0, \"runs\"=(integer) 2,"
                + " \"last-run\"=(integer) 1001000, \"missed\"=\"one\", \"version\"=(integer) 1}]");
    assertThat(h.show("QUEUE.UNSCHEDULE", "q", "tick")).isEqualTo("(integer) 1");
    clock.addAndGet(5_000);
    assertThat(fireAndTake()).isEmpty();
    assertThat(h.show("QUEUE.UNSCHEDULE", "q", "tick")).isEqualTo("(integer) 0");
  }

  @Test
  void missedRuns_afterTenIntervalsDown_followThePolicy() {
    h.call("QUEUE.SCHEDULE", "q", "all", "EVERY", "1s", "a", "MISSED", "ALL", "MAX", "5");
    h.call("QUEUE.SCHEDULE", "q", "one", "EVERY", "1s", "o", "MISSED", "ONE");
    h.call("QUEUE.SCHEDULE", "q", "none", "EVERY", "1s", "n", "MISSED", "NONE");
    h.call("QUEUE.SCHEDULE", "q", "late", "EVERY", "1s", "l", "MISSED", "NONE", "START", "1000500");
    assertThat(fireAndTake())
        .containsExactlyInAnyOrder("all:1000000", "one:1000000", "none:1000000");
    clock.addAndGet(10_000); // down for ten intervals: due at 1001000 .. 1010000
    List<String> runs = fireAndTake();
    assertThat(runs)
        .containsExactlyInAnyOrder(
            "all:1001000",
            "all:1002000",
            "all:1003000",
            "all:1004000",
            "all:1005000",
            "one:1010000", // only the latest
            "none:1010000"); // the latest is on time; late's latest, 1009500, is 500 ms late
    assertThat(fireAndTake())
        .as("ALL catches up five at a time")
        .containsExactly("all:1006000", "all:1007000", "all:1008000", "all:1009000", "all:1010000");
    assertThat(fireAndTake()).isEmpty();
  }

  @Test
  void startEndAndLimit_boundTheRuns() {
    h.call("QUEUE.SCHEDULE", "q", "s", "EVERY", "1s", "x", "START", "1002000", "END", "1004000");
    h.call("QUEUE.SCHEDULE", "q", "l", "EVERY", "1s", "x", "LIMIT", "2");
    h.call("QUEUE.SCHEDULE", "q", "a", "EVERY", "1m", "ALIGN", "x");
    List<String> all = new ArrayList<>();
    for (int i = 0; i < 62; i++) {
      all.addAll(fireAndTake());
      clock.addAndGet(1_000);
    }
    assertThat(all)
        .as(h.show("QUEUE.SCHEDULES", "q"))
        .containsExactlyInAnyOrder(
            "s:1002000", "s:1003000", "s:1004000", "l:1000000", "l:1001000", "a:1020000");
    assertThat(h.show("QUEUE.SCHEDULES", "q"))
        .as(h.show("QUEUE.SCHEDULES", "q"))
        .contains("\"done\"=(integer) 1");
  }

  @Test
  void aFire_appliesOnceToTheStateItWasComputedFor() {
    h.call("QUEUE.SCHEDULE", "q", "t", "EVERY", "1s", "x");
    // Version 1, due at 1000000: a FIRE for that state applies, once.
    assertThat(h.show("QUEUE.FIRE", "q", "t", "1", "1000000", "1001000", "1000000"))
        .isEqualTo("(integer) 1");
    assertThat(h.show("QUEUE.FIRE", "q", "t", "1", "1000000", "1001000", "1000000"))
        .isEqualTo("(integer) 0");
    clock.addAndGet(1_000);
    h.call("QUEUE.SCHEDULE", "q", "t", "EVERY", "1s", "y"); // version 2, due now
    assertThat(h.show("QUEUE.FIRE", "q", "t", "1", "1001000", "1002000", "1001000"))
        .as("an older version")
        .isEqualTo("(integer) 0");
    assertThat(h.show("QUEUE.FIRE", "q", "t", "2", "1001000", "1002000", "1002000"))
        .as("a run later than now")
        .isEqualTo("(integer) 0");
    assertThat(h.show("QUEUE.FIRE", "q", "t", "2", "1001000", "1001000", "1001000"))
        .as("a next due not after the runs")
        .isEqualTo("(integer) 0");
    assertThat(h.show("QUEUE.FIRE", "q", "nope", "1", "1", "2")).isEqualTo("(integer) 0");
    assertThat(h.show("QUEUE.INFO", "q")).startsWith("{\"ready\"=(integer) 1,");
  }

  private long at(String iso, String zone) {
    return ZonedDateTime.of(java.time.LocalDateTime.parse(iso), ZoneId.of(zone))
        .toInstant()
        .toEpochMilli();
  }

  /** The next due time QUEUE.SCHEDULES shows for the first schedule. */
  private long next() {
    List<Reply> f =
        ((Reply.Map) ((Reply.Array) h.call("QUEUE.SCHEDULES", "q")).items().get(0)).keysAndValues();
    return ((Reply.Int) f.get(7)).value();
  }

  @Test
  void aCronSchedule_firesAtItsLocalTime_inWinterAndSummer() {
    clock.set(at("2026-01-12T07:00", "UTC")); // a Monday
    h.call("QUEUE.SCHEDULE", "q", "m", "CRON", "0 9 * * 1-5", "TZ", "Europe/Paris", "x");
    assertThat(fireAndTake()).as("arming fires nothing").isEmpty();
    assertThat(next()).isEqualTo(at("2026-01-12T08:00", "UTC"));
    clock.set(at("2026-01-12T08:00", "UTC"));
    assertThat(fireAndTake()).containsExactly("m:" + at("2026-01-12T08:00", "UTC"));
    clock.set(at("2026-07-10T06:00", "UTC")); // a Friday in summer: MISSED ONE takes the latest
    assertThat(fireAndTake()).containsExactly("m:" + at("2026-07-09T07:00", "UTC"));
    assertThat(next()).isEqualTo(at("2026-07-10T07:00", "UTC"));
    assertThat(h.show("QUEUE.SCHEDULE", "q", "bad", "CRON", "61 * * * *", "x"))
        .contains("a cron expression is five fields");
    assertThat(h.show("QUEUE.SCHEDULE", "q", "bad", "CRON", "0 9 * * *", "TZ", "Mars/Base", "x"))
        .contains("TZ is a time zone id");
  }

  /**
   * Daylight saving days in New York, as cron-utils decides them (pinned here, so a change of the
   * library shows as a failure): 02:30 does not exist on 8 March 2026, and that day has no run;
   * 01:30 happens twice on 1 November, and that day's run happens once.
   */
  @Test
  void daylightSavingDays_runOnce() {
    clock.set(at("2026-03-07T12:00", "America/New_York"));
    h.call("QUEUE.SCHEDULE", "q", "spring", "CRON", "30 2 * * *", "TZ", "America/New_York", "x");
    fireAndTake();
    List<String> runs = new ArrayList<>();
    for (long t = clock.get(); t < at("2026-03-10T12:00", "America/New_York"); t += 600_000) {
      clock.set(t);
      runs.addAll(fireAndTake());
    }
    // The 8th's 02:30 does not exist: cron-utils skips that day's run; the 9th and the 10th run.
    assertThat(runs)
        .containsExactly(
            "spring:" + at("2026-03-09T02:30", "America/New_York"),
            "spring:" + at("2026-03-10T02:30", "America/New_York"));
    h.call("QUEUE.UNSCHEDULE", "q", "spring");
    clock.set(at("2026-10-31T12:00", "America/New_York"));
    h.call("QUEUE.SCHEDULE", "q", "fall", "CRON", "30 1 * * *", "TZ", "America/New_York", "x");
    fireAndTake();
    runs.clear();
    for (long t = clock.get(); t < at("2026-11-02T12:00", "America/New_York"); t += 600_000) {
      clock.set(t);
      runs.addAll(fireAndTake());
    }
    assertThat(runs)
        .as("1 and 2 November, once each")
        .containsExactly(
            "fall:" + at("2026-11-01T01:30", "America/New_York"),
            "fall:" + at("2026-11-02T01:30", "America/New_York"));
  }

  @Test
  void onANodeWithALog_theBackgroundAsksForAFire_andTheRecordAddsTheRuns() {
    List<String[]> asked = new ArrayList<>();
    h.engine.expireByLog(
        new io.idem.server.engine.Engine.DueKeys() {
          @Override
          public boolean due(byte[] key, long atMillis) {
            return false;
          }

          @Override
          public boolean windowDue(byte[] key) {
            return false;
          }

          @Override
          public boolean ask(byte[] key, byte[][] command) {
            String[] words = new String[command.length];
            for (int i = 0; i < command.length; i++) {
              words[i] = new String(command[i], StandardCharsets.UTF_8);
            }
            return asked.add(words);
          }
        });
    h.call("QUEUE.SCHEDULE", "q", "t", "EVERY", "1s", "x");
    clock.addAndGet(2_500);
    h.engine.runBackground();
    assertThat(h.show("QUEUE.INFO", "q"))
        .as("nothing added by the clock")
        .startsWith("{\"ready\"=(integer) 0");
    assertThat(asked).hasSize(1);
    assertThat(String.join(" ", asked.get(0)))
        .isEqualTo("QUEUE.FIRE q t 1 1000000 1003000 1002000");
    assertThat(h.call(asked.get(0))).isEqualTo(Reply.integer(1)); // the record, applied
    assertThat(h.call(asked.get(0))).isEqualTo(Reply.integer(0)); // asked twice: once
    assertThat(h.show("QUEUE.JOB", "q", "t:1002000")).contains("\"state\"=\"ready\"");
  }

  /** FIRE and SCHEDULE replay without the cron library: the times are in the op. */
  @Test
  void aReplay_takesTheTimesFromTheLog() throws IOException {
    Recording journal = new Recording();
    h.engine.attach(journal);
    SplittableRandom rnd = new SplittableRandom(1046);
    h.call("QUEUE.CONFIG", "q", "EVENTS", "40"); // the ring replays too
    byte[] snapshot = null;
    int snapshotOps = 0;
    for (int step = 0; step < 1500; step++) {
      clock.addAndGet(rnd.nextInt(400));
      int op = rnd.nextInt(10);
      String name = "s" + rnd.nextInt(4);
      switch (op) {
        case 0 ->
            h.call(
                "QUEUE.SCHEDULE",
                "q",
                name,
                "EVERY",
                (200 + rnd.nextInt(800)) + "ms",
                "p",
                "MISSED",
                List.of("ONE", "ALL", "NONE").get(rnd.nextInt(3)),
                "UNIQUE",
                "1s");
        case 1 ->
            h.call("QUEUE.SCHEDULE", "q", name, "CRON", "*/2 * * * *", "TZ", "Asia/Kolkata", "c");
        case 2 -> h.call("QUEUE.UNSCHEDULE", "q", name);
        default -> fireAndTake();
      }
      if (step == 700) {
        snapshot = CuckooCodecTest.written(QueueCodec.INSTANCE, live());
        snapshotOps = journal.of(h, "q").ops().size();
      }
    }
    Logged logged = journal.of(h, "q");
    assertThat(logged.ops().stream().filter(o -> o.op() == 21).count()).isGreaterThan(50);
    byte[] live = QueueReplay.check(live(), logged, snapshot, snapshotOps, clock.get());
    // A schedule op whose cron text no parser would take still applies: apply never parses it.
    JobQueue q = QueueCodec.INSTANCE.create(new byte[] {1});
    for (CuckooCodecTest.Op op : logged.ops()) {
      byte[] p = op.payload();
      if (op.op() == 19) {
        String s = new String(p, StandardCharsets.ISO_8859_1).replace("*/2 * * * *", "?? garbage!");
        p = s.getBytes(StandardCharsets.ISO_8859_1);
      }
      QueueCodec.INSTANCE.apply(q, op.op(), p);
    }
    // Every run and due time came from the ops: the queue is the live one but for the text.
    String garbled =
        new String(CuckooCodecTest.written(QueueCodec.INSTANCE, q), StandardCharsets.ISO_8859_1);
    assertThat(garbled.replace("?? garbage!", "*/2 * * * *").getBytes(StandardCharsets.ISO_8859_1))
        .isEqualTo(live);
  }

  private JobQueue live() {
    return h.engine.read(bytes("q"), e -> e.valueAs(QueueCodec.INSTANCE));
  }
}
