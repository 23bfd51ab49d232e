package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.reply.Replies;
import io.idem.server.reply.Reply;
import java.util.List;
import org.junit.jupiter.api.Test;

/** LATENCY LATEST, HISTORY and RESET with Redis's replies, and latency-monitor-threshold. */
class LatencyTest {

  private final Harness h = new Harness();

  @Test
  void samplesOverTheThreshold_aSecondsWorstEach_latestAndWorst() {
    assertThat(h.show("LATENCY", "LATEST")).isEqualTo("[]");
    h.stats().latency.record("command", 5000); // the monitor is off (threshold 0): nothing
    assertThat(h.show("LATENCY", "LATEST")).isEqualTo("[]");
    h.call("CONFIG", "SET", "latency-monitor-threshold", "100");
    h.stats().latency.record("command", 50); // under the line
    h.stats().latency.record("command", 300);
    h.stats().latency.record("command", 200); // same second: 300 stays its worst
    h.stats().latency.record("fast-command", 120);
    List<Reply> latest = ((Reply.Array) h.call("LATENCY", "LATEST")).items();
    assertThat(latest).hasSize(2);
    List<Reply> command = ((Reply.Array) latest.get(0)).items();
    assertThat(Replies.show(command.get(0))).isEqualTo("\"command\"");
    assertThat(((Reply.Int) command.get(2)).value()).isIn(200L, 300L); // a new second: 200
    assertThat(((Reply.Int) command.get(3)).value()).isEqualTo(300);
    List<Reply> history = ((Reply.Array) h.call("LATENCY", "HISTORY", "command")).items();
    assertThat(history).hasSizeBetween(1, 2);
    assertThat(h.show("LATENCY", "HISTORY", "fork")).isEqualTo("[]");
    assertThat(h.show("LATENCY", "RESET", "command", "fork")).isEqualTo("(integer) 1");
    assertThat(h.show("LATENCY", "RESET")).isEqualTo("(integer) 1");
    assertThat(h.show("LATENCY", "LATEST")).isEqualTo("[]");
  }
}
