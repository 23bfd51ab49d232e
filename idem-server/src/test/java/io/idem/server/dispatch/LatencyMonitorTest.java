package io.idem.server.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class LatencyMonitorTest {

  @Test
  void aSecondsWorst_theNewest160Seconds_andTheWorstEver() {
    LatencyMonitor m = new LatencyMonitor();
    m.threshold(10);
    for (long second = 1; second <= 200; second++) {
      m.record("command", 10 + second % 7, second);
      m.record("command", 9, second); // under the line
      m.record("command", 10, second); // not the second's worst
    }
    m.record("command", 500, 50); // a second long gone: its worst counts, its sample does not
    LatencyMonitor.Event e = m.events().get("command");
    List<LatencyMonitor.Sample> history = e.history();
    assertThat(history).hasSize(160);
    assertThat(history.get(0).unixSeconds()).isEqualTo(41);
    assertThat(history.get(159)).isEqualTo(new LatencyMonitor.Sample(200, 10 + 200 % 7));
    assertThat(e.max()).isEqualTo(500);
    assertThat(m.reset(List.of("command"))).isEqualTo(1);
    assertThat(m.events()).isEmpty();
  }
}
