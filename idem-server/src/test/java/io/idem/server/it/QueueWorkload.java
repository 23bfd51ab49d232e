package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The crash test's queue: QUEUE.ADD (or one QUEUE.MADD) of unique jobs, QUEUE.RESERVE under a lease
 * longer than the test, QUEUE.ACK of some of them, pipelined. After a restart: no job whose add was
 * acknowledged is lost (adding its id again answers "duplicate", never "new"), a job whose ack was
 * acknowledged is done, a job leased to this worker is still leased to it, and no reserve hands it
 * to another.
 */
final class QueueWorkload extends CrashWorkload {

  private static final String KEY = "jobs";

  /** Jobs whose add was acknowledged. */
  private final Set<String> added = new HashSet<>();

  /** Jobs leased to this worker (an acknowledged reserve), with their lease token. */
  private final Map<String, Long> leased = new HashMap<>();

  /** Jobs whose ack was sent, and those whose ack was acknowledged. */
  private final Set<String> ackSent = new HashSet<>();

  private final Set<String> done = new HashSet<>();
  private long next;

  QueueWorkload() {
    super("QUEUE.ADD, QUEUE.MADD, QUEUE.RESERVE, QUEUE.ACK");
  }

  @Override
  void create(RespClient c) {}

  private static String text(Object reply) {
    return RespClient.text(reply);
  }

  @Override
  void batch(RespClient c, Random random) throws IOException {
    int adds = 1 + random.nextInt(20);
    List<String> ids = new ArrayList<>();
    boolean bulk = random.nextBoolean(); // one QUEUE.MADD for them all
    List<String> madd = new ArrayList<>(List.of("QUEUE.MADD", KEY, "UNIQUE", "1d"));
    for (int i = 0; i < adds; i++) {
      String id = "j-" + next++;
      ids.add(id);
      if (bulk) {
        madd.addAll(List.of("JOB", "payload of " + id, "ID", id));
      } else {
        c.send("QUEUE.ADD", KEY, "payload of " + id, "ID", id, "UNIQUE", "1d");
      }
    }
    if (bulk) {
      c.send(madd.toArray(String[]::new));
    }
    c.send("QUEUE.RESERVE", KEY, "COUNT", Integer.toString(1 + random.nextInt(10)), "LEASE", "1h");
    List<Map.Entry<String, Long>> toAck = new ArrayList<>();
    for (Map.Entry<String, Long> e : leased.entrySet()) {
      if (!ackSent.contains(e.getKey()) && random.nextBoolean()) {
        toAck.add(e);
      }
    }
    for (Map.Entry<String, Long> e : toAck) {
      ackSent.add(e.getKey());
      c.send("QUEUE.ACK", KEY, e.getKey(), Long.toString(e.getValue()));
    }
    c.flush();
    List<?> bulkReply = bulk ? list(c.read(), "QUEUE.MADD") : null;
    for (int i = 0; i < ids.size(); i++) {
      String id = ids.get(i);
      List<?> r = bulk ? (List<?>) bulkReply.get(i) : list(c.read(), "QUEUE.ADD " + id);
      assertThat(text(r.get(0))).isEqualTo("new");
      added.add(id);
      acknowledged++;
    }
    for (Object job : list(c.read(), "QUEUE.RESERVE")) {
      List<?> f = (List<?>) job;
      String id = text(f.get(0));
      assertThat(leased).as("a job leased twice to this worker").doesNotContainKey(id);
      leased.put(id, (Long) f.get(2));
      acknowledged++;
    }
    for (Map.Entry<String, Long> e : toAck) {
      assertThat(c.read()).as("QUEUE.ACK " + e.getKey()).isEqualTo(1L);
      done.add(e.getKey());
      acknowledged++;
    }
  }

  @Override
  void verify(RespClient c, Random random) throws IOException {
    if (added.isEmpty()) {
      return;
    }
    List<String> ids = new ArrayList<>(added);
    for (String id : ids) {
      c.send("QUEUE.ADD", KEY, "again", "ID", id, "UNIQUE", "1d");
    }
    c.flush();
    for (String id : ids) {
      List<?> r = list(c.read(), "QUEUE.ADD again " + id);
      assertThat(text(r.get(0))).as("job %s after restart", id).isEqualTo("duplicate");
      String state = text(r.get(2));
      if (done.contains(id)) {
        assertThat(state).as("acked job %s", id).isEqualTo("done");
      } else if (leased.containsKey(id) && !ackSent.contains(id)) {
        assertThat(state).as("job %s leased to this worker", id).isEqualTo("leased");
      }
      if (state.equals("done")) {
        done.add(id);
      }
    }
    // No reserve hands out a job still leased to this worker.
    Object r = c.call("QUEUE.RESERVE", KEY, "COUNT", "1000", "LEASE", "1h");
    for (Object job : list(r, "QUEUE.RESERVE after restart")) {
      String id = text(((List<?>) job).get(0));
      assertThat(leased.containsKey(id) && !done.contains(id) && !ackSent.contains(id))
          .as("job %s handed out while leased to this worker", id)
          .isFalse();
      leased.put(id, (Long) ((List<?>) job).get(2));
    }
    // What the server shows is the truth from here: an ack sent but cut off may not have applied.
    ackSent.retainAll(done);
  }
}
