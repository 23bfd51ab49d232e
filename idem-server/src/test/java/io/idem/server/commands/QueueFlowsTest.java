package io.idem.server.commands;

import static io.idem.server.commands.Harness.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.commands.CuckooCodecTest.Recording;
import io.idem.server.commands.queue.JobQueue;
import io.idem.server.commands.queue.QueueCodec;
import io.idem.server.reply.Reply;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * QUEUE.FLOW and QUEUE.CHILDREN: a parent due only once its children are done, reading their
 * results; each policy for a child that fails; a cancel that takes the tree; what the log and a
 * snapshot give back. Through the dispatcher, at a clock the test moves.
 */
class QueueFlowsTest {

  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final Harness h = new Harness(clock::get);
  private final Recording journal = new Recording(true);

  /** The token of each job's latest lease, by id. */
  private final Map<String, String> tokens = new HashMap<>();

  QueueFlowsTest() {
    h.engine.attach(journal);
  }

  private List<String> reserve(int count) {
    List<String> out = new ArrayList<>();
    Reply r = h.call("QUEUE.RESERVE", "q", "COUNT", Integer.toString(count), "LEASE", "1m");
    if (!(r instanceof Reply.Array a)) {
      return out;
    }
    for (Reply job : a.items()) {
      List<Reply> f = ((Reply.Array) job).items();
      String id = new String(((Reply.Bulk) f.get(0)).bytes(), StandardCharsets.UTF_8);
      tokens.put(id, Long.toString(((Reply.Int) f.get(2)).value()));
      out.add(id);
    }
    return out;
  }

  private String ack(String id) {
    return h.show("QUEUE.ACK", "q", id, tokens.get(id));
  }

  private String show(String... words) {
    return h.show(words);
  }

  private int rows() {
    return journal.rowCount(journal.of(h, "q").entry().id());
  }

  @Test
  void theParent_isDueOnlyOnceEveryChildIsDone_andReadsTheirResults() {
    assertThat(
            show(
                "QUEUE.FLOW",
                "q",
                "report",
                "ID",
                "r",
                "CHILD",
                "part a",
                "ID",
                "a",
                "CHILD",
                "part b",
                "ID",
                "b",
                "CHILD",
                "part c"))
        .isEqualTo(
            "[[\"new\", \"r\", \"waiting-children\"], [\"new\", \"a\", \"waiting\"],"
                + " [\"new\", \"b\", \"waiting\"], [\"new\", \"4\", \"waiting\"]]");
    assertThat(show("QUEUE.INFO", "q"))
        .contains("\"ready\"=(integer) 3")
        .contains("\"waiting-children\"=(integer) 1");
    assertThat(show("QUEUE.JOB", "q", "r")).startsWith("{\"state\"=\"waiting-children\"");
    assertThat(reserve(10)).containsExactly("a", "b", "4");
    assertThat(show("QUEUE.COMPLETE", "q", "a", tokens.get("a"), "RESULT", "17 rows"))
        .isEqualTo("\"done\"");
    assertThat(ack("b")).isEqualTo("(integer) 1");
    assertThat(reserve(10)).as("one child is still leased").isEmpty();
    assertThat(show("QUEUE.CHILDREN", "q", "r"))
        .isEqualTo(
            "[[\"a\", \"done\", \"17 rows\"], [\"b\", \"done\", (nil)], [\"4\", \"leased\","
                + " (nil)]]");
    clock.addAndGet(1_000);
    assertThat(show("QUEUE.COMPLETE", "q", "4", tokens.get("4"), "RESULT", "3 rows"))
        .isEqualTo("\"done\"");
    assertThat(show("QUEUE.JOB", "q", "r")).startsWith("{\"state\"=\"ready\"");
    assertThat(show("QUEUE.JOB", "q", "r")).contains("\"due\"=(integer) 1001000");
    assertThat(reserve(10)).containsExactly("r");
    assertThat(show("QUEUE.CHILDREN", "q", "r"))
        .isEqualTo(
            "[[\"a\", \"done\", \"17 rows\"], [\"b\", \"done\", (nil)], [\"4\", \"done\","
                + " \"3 rows\"]]");
    assertThat(rows()).isEqualTo(3);
    assertThat(ack("r")).isEqualTo("(integer) 1");
    assertThat(rows()).as("the parent's ack deletes its children's results").isZero();
    assertThat(show("QUEUE.CHILDREN", "q", "r")).isEqualTo("(nil)");
    assertThat(show("QUEUE.INFO", "q")).contains("\"waiting-children\"=(integer) 0");
  }

  @Test
  void underFail_aDeadChildKillsTheParent_withItsError() {
    h.call("QUEUE.FLOW", "q", "p", "ID", "p", "CHILD", "c1", "ID", "c1", "CHILD", "c2", "ID", "c2");
    reserve(2);
    assertThat(show("QUEUE.FAIL", "q", "c1", tokens.get("c1"), "disk full"))
        .isEqualTo("[\"dead\", (nil)]");
    assertThat(show("QUEUE.JOB", "q", "p"))
        .startsWith("{\"state\"=\"dead\"")
        .contains("\"errors\"=[\"child c1 failed: disk full\"]");
    // The other child runs on; its result is still kept while the parent is here.
    assertThat(ack("c2")).isEqualTo("(integer) 1");
    assertThat(show("QUEUE.CHILDREN", "q", "p"))
        .isEqualTo("[[\"c1\", \"dead\", (nil)], [\"c2\", \"done\", (nil)]]");
    assertThat(rows()).isEqualTo(1);
    assertThat(show("QUEUE.PURGE", "q")).isEqualTo("(integer) 2");
    assertThat(rows()).as("a purged parent's children's results go").isZero();
  }

  @Test
  void aLeaseEndingOnItsLastAttempt_failsTheParentToo() {
    h.call("QUEUE.FLOW", "q", "p", "ID", "p", "CHILD", "c", "ID", "c");
    reserve(1);
    clock.addAndGet(60_000);
    assertThat(reserve(1)).isEmpty();
    assertThat(show("QUEUE.JOB", "q", "p"))
        .contains("\"errors\"=[\"child c failed: lease expired at 1060000\"]");
  }

  @Test
  void underHold_theParentWaits_untilTheChildIsReplayedAndDone() {
    h.call(
        "QUEUE.FLOW",
        "q",
        "p",
        "ID",
        "p",
        "ONCHILDFAIL",
        "HOLD",
        "CHILD",
        "c1",
        "ID",
        "c1",
        "CHILD",
        "c2",
        "ID",
        "c2");
    reserve(2);
    h.call("QUEUE.FAIL", "q", "c1", tokens.get("c1"), "timeout");
    ack("c2");
    assertThat(show("QUEUE.JOB", "q", "p")).startsWith("{\"state\"=\"waiting-children\"");
    assertThat(reserve(5)).isEmpty();
    assertThat(show("QUEUE.REPLAY", "q", "c1")).isEqualTo("(integer) 1");
    assertThat(reserve(5)).containsExactly("c1");
    ack("c1");
    assertThat(reserve(5)).containsExactly("p");
  }

  @Test
  void underIgnore_aFailedOrCancelledChild_countsAsDone() {
    h.call(
        "QUEUE.FLOW",
        "q",
        "p",
        "ID",
        "p",
        "ONCHILDFAIL",
        "IGNORE",
        "CHILD",
        "c1",
        "ID",
        "c1",
        "CHILD",
        "c2",
        "ID",
        "c2",
        "CHILD",
        "c3",
        "ID",
        "c3",
        "DELAY",
        "1h");
    reserve(2);
    h.call("QUEUE.FAIL", "q", "c1", tokens.get("c1"), "bad input");
    ack("c2");
    assertThat(show("QUEUE.CANCEL", "q", "c3")).isEqualTo("[\"cancelled\"]");
    assertThat(reserve(5)).containsExactly("p");
    assertThat(show("QUEUE.CHILDREN", "q", "p"))
        .isEqualTo(
            "[[\"c1\", \"dead\", (nil)], [\"c2\", \"done\", (nil)], [\"c3\", \"gone\", (nil)]]");
  }

  @Test
  void cancellingTheRoot_takesTheWholeTree_andItsResults() {
    // root -> a -> (a1, a2 -> a2x), root -> b
    h.call(
        "QUEUE.FLOW",
        "q",
        "root",
        "ID",
        "root",
        "CHILD",
        "a",
        "ID",
        "a",
        "CHILD",
        "b",
        "ID",
        "b",
        "CHILD",
        "a1",
        "ID",
        "a1",
        "PARENT",
        "a",
        "CHILD",
        "a2",
        "ID",
        "a2",
        "PARENT",
        "a",
        "CHILD",
        "a2x",
        "ID",
        "a2x",
        "PARENT",
        "a2");
    assertThat(reserve(10)).containsExactlyInAnyOrder("b", "a1", "a2x");
    ack("a2x");
    assertThat(reserve(10)).containsExactly("a2");
    ack("b");
    assertThat(rows()).isEqualTo(2);
    assertThat(show("QUEUE.INFO", "q")).contains("\"waiting-children\"=(integer) 2");
    assertThat(show("QUEUE.CANCEL", "q", "root")).isEqualTo("[\"cancelled\"]");
    for (String id : List.of("root", "a", "b", "a2x")) {
      assertThat(show("QUEUE.JOB", "q", id)).as(id).isEqualTo("(nil)");
    }
    for (String id : List.of("a1", "a2")) {
      assertThat(show("QUEUE.JOB", "q", id))
          .as("%s: leased, its holder still to be told", id)
          .startsWith("{\"state\"=\"leased\"")
          .contains("\"cancelled\"=(integer) 1");
    }
    assertThat(show("QUEUE.ACK", "q", "a1", tokens.get("a1"))).isEqualTo("(integer) 0");
    assertThat(rows()).isZero();
    assertThat(show("QUEUE.INFO", "q")).contains("\"waiting-children\"=(integer) 0");
    assertThat(show("QUEUE.FLOW", "q", "again", "ID", "root", "CHILD", "x", "ID", "a"))
        .as("the cancelled ids are free again")
        .startsWith("[[\"new\", \"root\"");
  }

  @Test
  void aFlow_isAllOrNothing() {
    h.call("QUEUE.ADD", "q", "x", "ID", "taken");
    assertThat(show("QUEUE.FLOW", "q", "p", "ID", "p", "CHILD", "c", "ID", "taken"))
        .isEqualTo("(error) ERR job id taken is taken: a flow's jobs must all be new");
    assertThat(show("QUEUE.FLOW", "q", "p", "ID", "p", "CHILD", "c", "ID", "p"))
        .contains("job id p is taken");
    assertThat(show("QUEUE.JOB", "q", "p")).isEqualTo("(nil)");
    assertThat(show("QUEUE.FLOW", "q", "p", "ID", "x")).contains("QUEUE.FLOW needs a CHILD");
    assertThat(show("QUEUE.FLOW", "q", "p", "ID", "x", "CHILD")).contains("CHILD needs a payload");
    assertThat(show("QUEUE.FLOW", "q", "p", "CHILD", "c", "PARENT", "nobody"))
        .contains("PARENT names no earlier job");
    assertThat(show("QUEUE.FLOW", "q", "p", "ONCHILDFAIL", "MAYBE", "CHILD", "c"))
        .contains("ONCHILDFAIL is FAIL, HOLD or IGNORE");
    assertThat(show("QUEUE.FLOW", "q", "p", "PARENT", "x", "CHILD", "c")).contains("syntax");
    assertThat(show("QUEUE.INFO", "q")).contains("\"ready\"=(integer) 1");
    List<String> big = new ArrayList<>(List.of("QUEUE.FLOW", "q", "p"));
    for (int i = 0; i < 10_000; i++) {
      big.addAll(List.of("CHILD", "c"));
    }
    assertThat(show(big.toArray(String[]::new))).contains("at most 10000 jobs a flow");
  }

  /** A flow's numbered jobs skip the ids its own later jobs give. */
  @Test
  void aFlowsNumberedJobs_skipItsOwnExplicitIds() {
    assertThat(show("QUEUE.FLOW", "q", "root", "CHILD", "c", "ID", "1", "CHILD", "d", "ID", "3"))
        .isEqualTo(
            "[[\"new\", \"2\", \"waiting-children\"], [\"new\", \"1\", \"waiting\"],"
                + " [\"new\", \"3\", \"waiting\"]]");
    assertThat(show("QUEUE.CHILDREN", "q", "2")).startsWith("[[\"1\", \"ready\"");
  }

  /** Flows replay from the log, and from a snapshot plus the rest, byte for byte. */
  @Test
  void flows_replayFromTheLog_andFromASnapshot() throws IOException {
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(4646);
    String[] policies = {"FAIL", "HOLD", "IGNORE"};
    List<String> held = new ArrayList<>();
    byte[] snapshot = null;
    int snapshotOps = 0;
    int seq = 0;
    for (int step = 0; step < 2000; step++) {
      clock.addAndGet(rnd.nextInt(3000));
      int op = rnd.nextInt(12);
      if (op < 2) {
        List<String> flow =
            new ArrayList<>(
                List.of(
                    "QUEUE.FLOW",
                    "q",
                    "root",
                    "ID",
                    "f" + seq++,
                    "ONCHILDFAIL",
                    policies[rnd.nextInt(3)],
                    "ATTEMPTS",
                    "2"));
        List<String> ids = new ArrayList<>(List.of(flow.get(4)));
        for (int i = 0, n = 1 + rnd.nextInt(5); i < n; i++) {
          String id = "f" + seq++;
          flow.addAll(List.of("CHILD", "c", "ID", id, "ATTEMPTS", "2"));
          flow.addAll(List.of("PARENT", ids.get(rnd.nextInt(ids.size()))));
          flow.addAll(List.of("ONCHILDFAIL", policies[rnd.nextInt(3)]));
          ids.add(id);
        }
        h.call(flow.toArray(String[]::new));
      } else if (op < 5) {
        held.addAll(reserve(3));
      } else if (op == 5) {
        h.call("QUEUE.CANCEL", "q", "f" + rnd.nextInt(Math.max(1, seq)));
      } else if (op == 6) {
        h.call("QUEUE.REPLAY", "q", "ALL");
      } else if (op == 7 && rnd.nextInt(4) == 0) {
        h.call("QUEUE.PURGE", "q");
      } else if (!held.isEmpty()) {
        String id = held.remove(rnd.nextInt(held.size()));
        switch (op % 3) {
          case 0 -> ack(id);
          case 1 -> h.call("QUEUE.COMPLETE", "q", id, tokens.get(id), "RESULT", "r" + step);
          default -> h.call("QUEUE.FAIL", "q", id, tokens.get(id), "e" + step);
        }
      }
      if (step == 1000) {
        snapshot = CuckooCodecTest.written(QueueCodec.INSTANCE, live());
        snapshotOps = journal.of(h, "q").ops().size();
      }
    }
    assertThat(show("QUEUE.INFO", "q")).doesNotContain("\"waiting-children\"=(integer) 0");
    byte[] live = QueueReplay.check(live(), journal.of(h, "q"), snapshot, snapshotOps, clock.get());
    assertThat(live[0]).as("a version 3 snapshot").isEqualTo((byte) 3);
  }

  private JobQueue live() {
    return h.engine.read(bytes("q"), e -> e.valueAs(QueueCodec.INSTANCE));
  }
}
