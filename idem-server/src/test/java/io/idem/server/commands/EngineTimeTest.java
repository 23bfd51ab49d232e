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
                      h.dispatcher.dispatch(applier, io.idem.server.dispatch.Command.of(words))));
      assertThat(reply).as(words[0]).isIn("OK", "(integer) 1");
    }
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
