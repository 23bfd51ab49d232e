package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Commands run at a fixed time see that time everywhere (expiry, dedup windows), whatever the clock
 * says: what lets every node of a cluster apply a record at its timestamp alike.
 */
class EngineTimeTest {

  // A clock far from the fixed times, so a test that read it instead would fail.
  private final Harness h = new Harness(() -> 5_000_000_000_000L);

  private String at(long millis, String... words) {
    return h.engine.at(millis, () -> h.show(words));
  }

  @Test
  void expiry_followsTheFixedTime() {
    assertThat(at(1_000, "BF.ADD", "k", "x")).isEqualTo("(integer) 1");
    assertThat(at(1_000, "PEXPIRE", "k", "10000")).isEqualTo("(integer) 1");
    assertThat(at(1_000, "PTTL", "k")).isEqualTo("(integer) 10000");
    assertThat(at(10_999, "EXISTS", "k")).isEqualTo("(integer) 1");
    assertThat(at(11_000, "EXISTS", "k")).isEqualTo("(integer) 0");
    assertThat(h.engine.at(7, () -> h.engine.now())).isEqualTo(7L);
    assertThat(h.engine.now()).isEqualTo(5_000_000_000_000L); // outside, the clock again
  }

  /**
   * A record of the cluster's log applies whatever the node's memory: a filter that one node's
   * maxmemory (or heap, or snapshot images in flight) refuses would leave that replica without the
   * item the others hold (finding 8).
   */
  @Test
  void memoryRefusals_doNotApplyToARecordOfTheLog() {
    h.engine.setMaxMemory(1);
    assertThat(h.show("BF.RESERVE", "own", "0.01", "100000")).contains("memory");
    var applier = io.idem.server.dispatch.Session.applier(9);
    for (String[] words :
        List.of(
            new String[] {"BF.RESERVE", "applied", "0.01", "100000"},
            new String[] {"TOPK.RESERVE", "top", "10", "1000", "5", "0.9"},
            new String[] {"CF.RESERVE", "cf", "100000"},
            new String[] {"CMS.INITBYDIM", "cms", "1000", "5"},
            new String[] {"BF.ADD", "auto", "x"})) {
      String reply =
          h.engine.at(
              1_000,
              () ->
                  io.idem.server.reply.Replies.show(
                      h.dispatcher.dispatch(applier, io.idem.server.request.Command.of(words))));
      assertThat(reply).as(words[0]).isIn("OK", "(integer) 1");
    }
  }

  /**
   * On a node with a log, a key's expiry is the log's to apply (finding 6): this node's clock, far
   * ahead of the records (a replica catching up), neither deletes the key on a read nor in the
   * expiry round; it hands the key to the log instead. A record that renews it before its time
   * keeps its items, and EXPIREDUE at a record time past its expiry deletes it. The clock's round
   * deleted it, so the next record made a new, empty filter: a false negative for good.
   */
  private final io.idem.server.dispatch.Session applier =
      io.idem.server.dispatch.Session.applier(9);

  /** A record of the log, applied at its time t. */
  private final java.util.function.BiFunction<Long, String[], String> record =
      (t, words) ->
          h.engine.at(
              t,
              () ->
                  io.idem.server.reply.Replies.show(
                      h.dispatcher.dispatch(applier, io.idem.server.request.Command.of(words))));

  /**
   * A record this node cannot apply because its own log failed is in the cluster's log all the
   * same: its writer is told so, not MISCONF's "refused", which would read as not written (finding
   * 13).
   */
  @Test
  void aRecordThisNodeCannotApply_saysTheWriteIsInTheClustersLog() {
    h.journalFailure = "No space left on device";
    assertThat(h.show("BF.ADD", "k", "x"))
        .isEqualTo(
            "(error) MISCONF Idem cannot write its log, so writes are refused: No space left on"
                + " device");
    assertThat(record.apply(1_000L, new String[] {"BF.ADD", "k", "x"}))
        .startsWith("(error) ERR this node could not apply the write")
        .contains("the write is in the cluster's log");
    assertThat(record.apply(1_000L, new String[] {"BF.EXISTS", "k", "x"})).isEqualTo("(integer) 0");
  }

  /** Makes h's engine a log node's; what it asks the log for, as "KEY@time" or "window KEY". */
  private List<String> logNode() {
    List<String> asked = new java.util.ArrayList<>();
    h.engine.expireByLog(
        new io.idem.server.engine.Engine.DueKeys() {
          @Override
          public boolean due(byte[] key, long atMillis) {
            return asked.add(
                new String(key, java.nio.charset.StandardCharsets.UTF_8) + "@" + atMillis);
          }

          @Override
          public boolean windowDue(byte[] key) {
            return asked.add("window " + new String(key, java.nio.charset.StandardCharsets.UTF_8));
          }

          @Override
          public boolean ask(byte[] key, byte[][] command) {
            List<String> words = new java.util.ArrayList<>();
            for (byte[] w : command) {
              words.add(new String(w, java.nio.charset.StandardCharsets.UTF_8));
            }
            return asked.add(String.join(" ", words));
          }
        });
    return asked;
  }

  /**
   * On a node with a log, windows move at records' times (WINDOWDUE) only: this node's clock, far
   * ahead of the records, drops no dedup slice and no counter row in the background round; it asks
   * the log instead, and the record drops them at its own time.
   */
  @Test
  void onANodeWithALog_theClockMovesNoWindow_recordsDo() {
    List<String> asked = logNode();
    long t = 1_000_000_000L;
    assertThat(record.apply(t, new String[] {"DEDUP.RESERVE", "d", "60", "EXACT"})).isEqualTo("OK");
    assertThat(record.apply(t, new String[] {"DEDUP.CLAIM", "d", "id-1", "a"}))
        .isEqualTo("[new, \"a\"]");
    assertThat(
            record.apply(
                t,
                new String[] {
                  "COUNTER.INCRBY", "c", Long.toString(t), "n", "5"
                })) // its two resolutions
        .isEqualTo("(integer) 2");
    h.engine.runBackground();
    assertThat(asked).containsExactlyInAnyOrder("window d", "window c");
    // Nothing dropped by the clock: the claim and the count hold at the records' time.
    assertThat(record.apply(t + 1_000, new String[] {"DEDUP.EXISTS", "d", "id-1"}))
        .isEqualTo("(integer) 1");
    assertThat(
            record.apply(
                t + 1_000,
                new String[] {"COUNTER.QUERY", "c", Long.toString(t + 1_000), "1h", "NAMES", "n"}))
        .isEqualTo("[[(integer) 5]]");
    // Records: not due yet at t + 1 s; due once the window and the retention have passed.
    assertThat(record.apply(t + 1_000, new String[] {"WINDOWDUE", "d"})).isEqualTo("(integer) 0");
    assertThat(record.apply(t + 1_000, new String[] {"WINDOWDUE", "c"})).isEqualTo("(integer) 0");
    long later = t + 400L * 24 * 3_600_000; // past every default retention
    assertThat(record.apply(later, new String[] {"WINDOWDUE", "d"})).isEqualTo("(integer) 1");
    assertThat(record.apply(later, new String[] {"WINDOWDUE", "c"})).isEqualTo("(integer) 1");
    assertThat(record.apply(later, new String[] {"WINDOWDUE", "free"})).isEqualTo("(integer) 0");
    assertThat(record.apply(later, new String[] {"DEDUP.EXISTS", "d", "id-1"}))
        .isEqualTo("(integer) 0");
  }

  @Test
  void onANodeWithALog_theClockExpiresNothing_recordsDo() {
    List<String> asked = logNode();
    assertThat(record.apply(1_000L, new String[] {"BF.ADD", "seen", "x"})).isEqualTo("(integer) 1");
    assertThat(record.apply(1_000L, new String[] {"PEXPIRE", "seen", "600000"}))
        .isEqualTo("(integer) 1");
    // By this node's clock the key is long gone: reads say so, and nothing is deleted.
    assertThat(h.show("EXISTS", "seen")).isEqualTo("(integer) 0");
    assertThat(h.engine.expireDue(1000)).isZero();
    assertThat(asked).containsExactly("seen@601000");
    // The records, at their own times: renewed before its end, the filter keeps its items.
    assertThat(record.apply(500_000L, new String[] {"BF.ADD", "seen", "y"}))
        .isEqualTo("(integer) 1");
    assertThat(record.apply(500_000L, new String[] {"PEXPIRE", "seen", "600000"}))
        .isEqualTo("(integer) 1");
    assertThat(record.apply(900_000L, new String[] {"BF.EXISTS", "seen", "x"}))
        .isEqualTo("(integer) 1");
    assertThat(record.apply(900_000L, new String[] {"EXPIREDUE", "seen"}))
        .isEqualTo("(integer) 0"); // renewed: not due at the record's time
    assertThat(record.apply(1_100_000L, new String[] {"EXPIREDUE", "seen"}))
        .isEqualTo("(integer) 1");
    assertThat(record.apply(1_100_000L, new String[] {"EXISTS", "seen"})).isEqualTo("(integer) 0");
    assertThat(h.show("DBSIZE")).isEqualTo("(integer) 0"); // deleted by the record
  }

  @Test
  void dedupWindows_followTheFixedTime() {
    assertThat(at(0, "DEDUP.RESERVE", "d", "60")).isEqualTo("OK");
    assertThat(at(1_000, "DEDUP.CLAIM", "d", "id-1", "worker-a")).isEqualTo("[new, \"worker-a\"]");
    assertThat(at(30_000, "DEDUP.CLAIM", "d", "id-1", "worker-b"))
        .isEqualTo("[duplicate, \"worker-a\"]");
    // Past the window and its slice's share, at the fixed time: the id is free again.
    assertThat(at(200_000, "DEDUP.CLAIM", "d", "id-1", "worker-b"))
        .isEqualTo("[new, \"worker-b\"]");
  }
}
