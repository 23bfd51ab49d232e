package io.idem.server.commands.queue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Drives a queue to its end, for tests that compare two queues by what they do rather than by the
 * bytes they write (a field a snapshot drops can write and read back alike).
 */
public final class QueueProbe {

  private QueueProbe() {}

  /**
   * From {@code now} on, an hour a round, replays the dead, reserves everything due and acks it,
   * until nothing is left or 100 rounds; what each round leased, and the queue's counts at the end.
   */
  public static List<String> drain(JobQueue q, long now) {
    List<String> out = new ArrayList<>();
    for (int round = 0; round < 100 && q.jobs().size() > 0; round++) {
      now += 3_600_000;
      q.replay(now, null);
      StringBuilder leased = new StringBuilder();
      for (JobQueue.Job j : q.reserve(now, 100_000, now + 60_000)) {
        leased.append(new String(j.id(), StandardCharsets.UTF_8)).append(' ');
        q.ack(now, j.id(), j.token);
      }
      out.add(leased.toString());
    }
    out.add(java.util.Arrays.toString(q.counts(now)) + " left " + q.jobs().size());
    return out;
  }
}
