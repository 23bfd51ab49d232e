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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * QUEUE.PAUSE and RESUME, QUEUE.CANCEL, QUEUE.PROGRESS, QUEUE.JOB and QUEUE.MADD through the
 * dispatcher at a clock the test moves, and what their log and snapshot give back.
 */
class QueueControlTest {

  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final Harness h = new Harness(clock::get);

  /** The token of each job's latest lease, by id. */
  private final Map<String, String> tokens = new HashMap<>();

  private List<String> reserve(String... words) {
    List<String> out = new ArrayList<>();
    Reply r = h.call(words);
    if (!(r instanceof Reply.Array a)) {
      return out;
    }
    for (Reply job : a.items()) {
      List<Reply> f = ((Reply.Array) job).items();
      tokens.put(text(f.get(0)), Long.toString(((Reply.Int) f.get(2)).value()));
      out.add(text(f.get(0)));
    }
    return out;
  }

  private static String text(Reply r) {
    return new String(((Reply.Bulk) r).bytes(), StandardCharsets.UTF_8);
  }

  private String show(String... words) {
    return h.show(words);
  }

  private JobQueue live() {
    return h.engine.read(bytes("q"), e -> e.valueAs(QueueCodec.INSTANCE));
  }

  @Test
  void aPausedQueue_leasesNothing_whileAddsAndLeaseEndsGoOn() {
    show("QUEUE.ADD", "q", "a", "ID", "a", "ATTEMPTS", "2");
    assertThat(reserve("QUEUE.RESERVE", "q", "LEASE", "1s")).containsExactly("a");
    assertThat(show("QUEUE.PAUSE", "q")).isEqualTo("(integer) 1");
    assertThat(show("QUEUE.PAUSE", "q")).isEqualTo("(integer) 0");
    show("QUEUE.ADD", "q", "b", "ID", "b");
    clock.addAndGet(2_000); // a's lease ends while paused: due again
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "5")).isEmpty();
    assertThat(show("QUEUE.INFO", "q"))
        .isEqualTo(
            "{\"ready\"=(integer) 2, \"delayed\"=(integer) 0, \"leased\"=(integer) 0,"
                + " \"dead\"=(integer) 0, \"paused\"=(integer) 1, \"groups\"=(integer) 0,"
                + " \"waiting-children\"=(integer) 0}");
    // The holder's calls go on while paused: its lease ended, so its ack counts 0.
    assertThat(show("QUEUE.ACK", "q", "a", tokens.get("a"))).isEqualTo("(integer) 0");
    assertThat(show("QUEUE.RESUME", "q")).isEqualTo("(integer) 1");
    assertThat(show("QUEUE.RESUME", "q")).isEqualTo("(integer) 0");
    // b was due when added; a when its lease ended, later.
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "5")).containsExactly("b", "a");
    assertThat(show("QUEUE.RESUME", "free")).isEqualTo("(error) ERR no such queue");
    assertThat(show("QUEUE.PAUSE", "new")).isEqualTo("(integer) 1"); // made, paused, empty
    assertThat(show("TYPE", "new")).isEqualTo("queue");
  }

  @Test
  void aBlockedReserve_sleepsWhilePaused_andWakesOnResume() throws Exception {
    Harness real = new Harness();
    real.call("QUEUE.ADD", "q", "job");
    real.call("QUEUE.PAUSE", "q");
    var waiting = ((Reply.Deferred) real.call("QUEUE.RESERVE", "q", "BLOCK", "10s")).future();
    Thread.sleep(200);
    assertThat(waiting).isNotDone();
    real.call("QUEUE.ADD", "q", "another"); // an add wakes it, and it finds the queue paused
    Thread.sleep(200);
    assertThat(waiting).isNotDone();
    real.call("QUEUE.RESUME", "q");
    assertThat(Replies.show(waiting.get(5, TimeUnit.SECONDS))).startsWith("[[\"1\", \"job\"");
  }

  @Test
  void cancel_takesOutWaitingDelayedAndDeadJobs_andFreesTheirIds() {
    show("QUEUE.ADD", "q", "w", "ID", "w", "UNIQUE", "1h");
    show("QUEUE.ADD", "q", "d", "ID", "d", "DELAY", "1h");
    show("QUEUE.ADD", "q", "x", "ID", "x");
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "2")).containsExactly("w", "x");
    show("QUEUE.FAIL", "q", "x", tokens.get("x"), "boom"); // x is dead
    show("QUEUE.RELEASE", "q", "w", tokens.get("w")); // w waits again
    assertThat(show("QUEUE.CANCEL", "q", "w", "d", "x", "nope"))
        .isEqualTo("[\"cancelled\", \"cancelled\", \"cancelled\", (nil)]");
    assertThat(show("QUEUE.INFO", "q"))
        .startsWith("{\"ready\"=(integer) 0, \"delayed\"=(integer) 0,");
    assertThat(show("QUEUE.DEAD", "q")).isEqualTo("[]");
    assertThat(show("QUEUE.ADD", "q", "w again", "ID", "w")).startsWith("[\"new\"");
    assertThat(show("QUEUE.CANCEL", "free", "w")).isEqualTo("(error) ERR no such queue");
  }

  @Test
  void aCancelledLeasedJob_tellsItsHolder_atItsNextCall_andLeaves() {
    for (String id : List.of("e", "p", "a", "f", "r", "l")) {
      show("QUEUE.ADD", "q", id, "ID", id, "ATTEMPTS", "5");
    }
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "6", "LEASE", "10s")).hasSize(6);
    assertThat(show("QUEUE.CANCEL", "q", "e", "p", "a", "f", "r", "l"))
        .isEqualTo("[\"leased\", \"leased\", \"leased\", \"leased\", \"leased\", \"leased\"]");
    assertThat(show("QUEUE.CANCEL", "q", "e")).isEqualTo("[\"leased\"]"); // still to be told
    assertThat(show("QUEUE.JOB", "q", "e")).contains("\"cancelled\"=(integer) 1");
    assertThat(show("QUEUE.EXTEND", "q", "e", tokens.get("e"), "10s")).isEqualTo("(integer) -1");
    assertThat(show("QUEUE.PROGRESS", "q", "p", tokens.get("p"), "50%")).isEqualTo("(integer) -1");
    assertThat(show("QUEUE.ACK", "q", "a", tokens.get("a"))).isEqualTo("(integer) 0");
    assertThat(show("QUEUE.FAIL", "q", "f", tokens.get("f"), "x"))
        .isEqualTo("[\"cancelled\", (nil)]");
    assertThat(show("QUEUE.RELEASE", "q", "r", tokens.get("r"))).isEqualTo("(integer) -1");
    for (String id : List.of("e", "p", "a", "f", "r")) {
      assertThat(show("QUEUE.JOB", "q", id)).as(id).isEqualTo("(nil)");
      // Told once: the job is gone, so the token holds nothing now.
      assertThat(show("QUEUE.EXTEND", "q", id, tokens.get(id), "1s")).isEqualTo("(integer) 0");
    }
    // l's holder says nothing: its lease's end takes it out, not back to waiting.
    assertThat(show("QUEUE.JOB", "q", "l")).contains("\"state\"=\"leased\"");
    clock.addAndGet(10_000);
    assertThat(show("QUEUE.JOB", "q", "l")).isEqualTo("(nil)");
    assertThat(show("QUEUE.INFO", "q"))
        .startsWith(
            "{\"ready\"=(integer) 0, \"delayed\"=(integer) 0, \"leased\"=(integer) 0, \"dead\"=(integer) 0");
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "6")).isEmpty();
    assertThat(show("QUEUE.INFO", "q")).startsWith("{\"ready\"=(integer) 0");
  }

  @Test
  void progress_isKeptForItsHolder_andShownByJob() {
    show("QUEUE.ADD", "q", "work", "ID", "j", "PRIORITY", "3", "ATTEMPTS", "2", "DELAY", "1s");
    assertThat(show("QUEUE.JOB", "q", "j"))
        .isEqualTo(
            "{\"state\"=\"delayed\", \"payload\"=\"work\", \"priority\"=(integer) 3,"
                + " \"attempts\"=(integer) 0, \"max-attempts\"=(integer) 2,"
                + " \"due\"=(integer) 1001000, \"lease-until\"=(nil), \"progress\"=(nil),"
                + " \"errors\"=[], \"cancelled\"=(integer) 0, \"group\"=(nil)}");
    clock.addAndGet(1_000);
    assertThat(show("QUEUE.JOB", "q", "j")).startsWith("{\"state\"=\"ready\"");
    reserve("QUEUE.RESERVE", "q", "LEASE", "5s");
    String token = tokens.get("j");
    assertThat(show("QUEUE.PROGRESS", "q", "j", token, "{\"done\":40}")).isEqualTo("(integer) 1");
    assertThat(show("QUEUE.PROGRESS", "q", "j", "12345", "stale")).isEqualTo("(integer) 0");
    assertThat(show("QUEUE.JOB", "q", "j"))
        .contains("\"state\"=\"leased\"")
        .contains("\"lease-until\"=(integer) 1006000")
        .contains("\"progress\"=\"{\"done\":40}\"");
    assertThat(show("QUEUE.PROGRESS", "q", "j", token, "x".repeat(4097)))
        .contains("at most 4096 bytes");
    clock.addAndGet(5_000); // the lease ended: due again as of now, with its error
    assertThat(show("QUEUE.JOB", "q", "j")).startsWith("{\"state\"=\"ready\"");
    reserve("QUEUE.RESERVE", "q");
    show("QUEUE.FAIL", "q", "j", tokens.get("j"), "second");
    assertThat(show("QUEUE.JOB", "q", "j"))
        .startsWith("{\"state\"=\"dead\"")
        .contains("\"errors\"=[\"lease expired at 1006000\", \"second\"]");
    assertThat(show("QUEUE.JOB", "q", "none")).isEqualTo("(nil)");
    assertThat(show("QUEUE.JOB", "free", "j")).isEqualTo("(error) ERR no such queue");
  }

  @Test
  void madd_addsEveryJobInOneWrite_withDefaults_andAnswersEachAsAdd() {
    show("QUEUE.ADD", "q", "held", "ID", "taken");
    assertThat(
            show(
                "QUEUE.MADD",
                "q",
                "PRIORITY",
                "2",
                "ATTEMPTS",
                "3",
                "JOB",
                "one",
                "JOB",
                "JOB",
                "ID",
                "taken",
                "JOB",
                "three",
                "ID",
                "t3",
                "PRIORITY",
                "9",
                "DELAY",
                "1s",
                "JOB",
                "four",
                "ID",
                "t3"))
        .isEqualTo(
            "[[\"new\", \"2\", \"waiting\"], [\"duplicate\", \"taken\", \"waiting\"],"
                + " [\"new\", \"t3\", \"waiting\"], [\"duplicate\", \"t3\", \"waiting\"]]");
    assertThat(show("QUEUE.JOB", "q", "2"))
        .contains("\"payload\"=\"one\"")
        .contains("\"priority\"=(integer) 2")
        .contains("\"max-attempts\"=(integer) 3");
    assertThat(show("QUEUE.JOB", "q", "t3"))
        .contains("\"priority\"=(integer) 9")
        .contains("\"due\"=(integer) 1001000");
    // A default DELAY, and a job's AT that replaces it.
    show(
        "QUEUE.MADD",
        "q",
        "DELAY",
        "1h",
        "JOB",
        "late",
        "ID",
        "late",
        "JOB",
        "at",
        "ID",
        "at",
        "AT",
        "5");
    assertThat(show("QUEUE.JOB", "q", "late")).contains("\"due\"=(integer) 4600000");
    assertThat(show("QUEUE.JOB", "q", "at")).contains("\"due\"=(integer) 5");
  }

  @Test
  void aMalformedMadd_addsNothing() {
    for (String[] words :
        List.of(
            new String[] {"QUEUE.MADD", "q", "JOB", "a", "JOB", "b", "PRIORITY", "x"},
            new String[] {"QUEUE.MADD", "q", "JOB", "a", "JOB"},
            new String[] {"QUEUE.MADD", "q", "ID", "x", "JOB", "a"},
            new String[] {"QUEUE.MADD", "q", "PRIORITY", "1", "LEASE"},
            new String[] {"QUEUE.MADD", "q", "JOB", "a", "UNIQUE", "1h"},
            new String[] {"QUEUE.MADD", "q", "JOB", "a", "DELAY", "1s", "AT", "1"})) {
      assertThat(show(words)).as(String.join(" ", words)).startsWith("(error)");
    }
    assertThat(show("QUEUE.MADD", "q")).contains("wrong number of arguments");
    assertThat(show("EXISTS", "q")).isEqualTo("(integer) 0");
    List<String> many = new ArrayList<>(List.of("QUEUE.MADD", "q"));
    for (int i = 0; i <= 10_000; i++) {
      many.add("JOB");
      many.add("p");
    }
    assertThat(show(many.toArray(String[]::new))).contains("at most 10000 jobs");
    assertThat(show("EXISTS", "q")).isEqualTo("(integer) 0");
  }

  /**
   * The new commands' changes replay: the log alone, and a snapshot (version 3 while something
   * holds a section) plus the rest, give the live queue byte for byte.
   */
  @Test
  void pauseCancelProgressAndMadd_replayFromTheLog_andFromASnapshot() throws IOException {
    Recording journal = new Recording();
    h.engine.attach(journal);
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(46);
    List<String[]> held = new ArrayList<>();
    byte[] snapshot = null;
    int snapshotOps = 0;
    int seq = 0;
    for (int step = 0; step < 3000; step++) {
      clock.addAndGet(rnd.nextInt(300));
      int op = rnd.nextInt(16);
      if (op < 3) {
        List<String> madd = new ArrayList<>(List.of("QUEUE.MADD", "q", "ATTEMPTS", "2"));
        for (int i = 0, n = 1 + rnd.nextInt(4); i < n; i++) {
          madd.addAll(List.of("JOB", "p" + step, "ID", "j" + seq++));
          if (rnd.nextBoolean()) {
            madd.addAll(List.of("DELAY", rnd.nextInt(1000) + "ms"));
          }
        }
        h.call(madd.toArray(String[]::new));
      } else if (op < 6) {
        for (Reply job :
            ((Reply.Array) h.call("QUEUE.RESERVE", "q", "COUNT", "3", "LEASE", "1s")).items()) {
          List<Reply> f = ((Reply.Array) job).items();
          held.add(new String[] {text(f.get(0)), Long.toString(((Reply.Int) f.get(2)).value())});
        }
      } else if (op == 6) {
        h.call("QUEUE.PAUSE", "q");
      } else if (op == 7) {
        h.call("QUEUE.RESUME", "q");
      } else if (op == 8) {
        h.call("QUEUE.CANCEL", "q", "j" + rnd.nextInt(Math.max(1, seq)));
      } else if (op == 9) {
        h.call("QUEUE.PURGE", "q");
      } else if (!held.isEmpty()) {
        String[] j = held.get(rnd.nextInt(held.size()));
        switch (op) {
          case 10, 11 -> h.call("QUEUE.PROGRESS", "q", j[0], j[1], "at " + step);
          case 12 -> h.call("QUEUE.ACK", "q", j[0], j[1]);
          case 13 -> h.call("QUEUE.FAIL", "q", j[0], j[1], "e" + step);
          case 14 -> h.call("QUEUE.RELEASE", "q", j[0], j[1]);
          default -> h.call("QUEUE.EXTEND", "q", j[0], j[1], "1s");
        }
        if (op >= 12 && op <= 14) {
          held.remove(j);
        }
      }
      if (step == 1500) {
        snapshot = CuckooCodecTest.written(QueueCodec.INSTANCE, live());
        snapshotOps = journal.of(h, "q").ops().size();
      }
    }
    // End with something in every section: paused, a cancelled lease, a progress.
    h.call("QUEUE.PAUSE", "q");
    h.call("QUEUE.RESUME", "q");
    h.call("QUEUE.MADD", "q", "JOB", "c", "ID", "end-c", "JOB", "p", "ID", "end-p");
    List<String> last = reserve("QUEUE.RESERVE", "q", "COUNT", "1000", "LEASE", "1h");
    assertThat(last).contains("end-c", "end-p");
    h.call("QUEUE.CANCEL", "q", "end-c");
    h.call("QUEUE.PROGRESS", "q", "end-p", tokens.get("end-p"), "half");
    h.call("QUEUE.PAUSE", "q");
    Logged logged = journal.of(h, "q");
    byte[] live = QueueReplay.check(live(), logged, snapshot, snapshotOps, clock.get());
    assertThat(live[0]).as("a version 3 snapshot").isEqualTo((byte) 3);
    // Resumed, with no cancelled lease or progress left (every job cancelled and its lease
    // ended), it writes version 2 again.
    h.call("QUEUE.RESUME", "q");
    List<String> cancel = new ArrayList<>(List.of("QUEUE.CANCEL", "q", "end-c", "end-p"));
    for (int i = 0; i < seq; i++) {
      cancel.add("j" + i);
    }
    h.call(cancel.toArray(String[]::new));
    clock.addAndGet(3_600_000);
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "1000")).isEmpty();
    assertThat(CuckooCodecTest.written(QueueCodec.INSTANCE, live())[0]).isEqualTo((byte) 2);
  }
}
