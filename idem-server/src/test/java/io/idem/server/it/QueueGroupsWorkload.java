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
 * The crash test's grouped queue: every group may hold at most three leases at once (QUEUE.CONFIG
 * GROUP-CONCURRENCY 3), one group has a weight of 4 and another a rate; jobs are added in groups by
 * QUEUE.MADD, reserved under leases longer than the test, and some acked. After a restart: the
 * limits are as set; every job leased to this worker is still leased, every acked one gone; and no
 * group has more than three leased, neither on the server's count nor in what reserves handed out.
 */
final class QueueGroupsWorkload extends CrashWorkload {

  private static final String KEY = "grouped";
  private static final int LIMIT = 3;
  private static final int GROUPS = 5;

  /** Jobs leased to this worker (acknowledged reserves): id to [group, token]. */
  private final Map<String, String[]> held = new HashMap<>();

  private final Set<String> added = new HashSet<>();
  private final Set<String> acked = new HashSet<>();

  /** Ids whose add or ack was sent and not acknowledged before a kill. */
  private final Set<String> unsure = new HashSet<>();

  private long next;

  QueueGroupsWorkload() {
    super("QUEUE.MADD with GROUP, QUEUE.CONFIG, QUEUE.GROUP, limited reserves");
  }

  @Override
  void create(RespClient c) throws IOException {
    list(c.call("QUEUE.CONFIG", KEY, "GROUP-CONCURRENCY", Integer.toString(LIMIT)), "CONFIG");
    list(c.call("QUEUE.GROUP", KEY, "g0", "WEIGHT", "4"), "GROUP g0");
    list(c.call("QUEUE.GROUP", KEY, "g1", "RATE", "1000", "1s", "BURST", "10"), "GROUP g1");
  }

  private Map<String, Integer> heldByGroup() {
    Map<String, Integer> n = new HashMap<>();
    for (String[] h : held.values()) {
      n.merge(h[0], 1, Integer::sum);
    }
    return n;
  }

  @Override
  void batch(RespClient c, Random random) throws IOException {
    List<String> ids = new ArrayList<>();
    List<String> madd = new ArrayList<>(List.of("QUEUE.MADD", KEY));
    for (int i = 0, n = 1 + random.nextInt(10); i < n; i++) {
      String id = "g-" + next++;
      ids.add(id);
      unsure.add(id);
      String group = "g" + random.nextInt(GROUPS);
      madd.addAll(List.of("JOB", group, "ID", id, "GROUP", group)); // the payload names the group
    }
    c.send(madd.toArray(String[]::new));
    c.send("QUEUE.RESERVE", KEY, "COUNT", "5", "LEASE", "1h");
    List<String> toAck = new ArrayList<>();
    for (String id : held.keySet()) {
      if (random.nextInt(3) == 0) {
        toAck.add(id);
        unsure.add(id);
        c.send("QUEUE.ACK", KEY, id, held.get(id)[1]);
      }
    }
    c.flush();
    for (Object r : list(c.read(), "QUEUE.MADD")) {
      assertThat(RespClient.text(((List<?>) r).get(0))).isEqualTo("new");
    }
    added.addAll(ids);
    ids.forEach(unsure::remove);
    acknowledged++;
    for (Object job : list(c.read(), "QUEUE.RESERVE")) {
      List<?> f = (List<?>) job;
      held.put(
          RespClient.text(f.get(0)),
          new String[] {RespClient.text(f.get(1)), Long.toString((Long) f.get(2))});
    }
    for (Map.Entry<String, Integer> e : heldByGroup().entrySet()) {
      assertThat(e.getValue())
          .as("leases of group %s handed out", e.getKey())
          .isLessThanOrEqualTo(LIMIT);
    }
    acknowledged++;
    for (String id : toAck) {
      assertThat(c.read()).as("QUEUE.ACK %s", id).isEqualTo(1L);
      held.remove(id);
      acked.add(id);
      unsure.remove(id);
      acknowledged++;
    }
  }

  @Override
  void verify(RespClient c, Random random) throws IOException {
    for (String id : unsure) {
      held.remove(id);
      added.remove(id);
      acked.remove(id);
    }
    unsure.clear();
    List<?> config = list(c.call("QUEUE.CONFIG", KEY), "QUEUE.CONFIG after restart");
    assertThat(config.get(7)).as("group-concurrency after restart").isEqualTo((long) LIMIT);
    for (Object g : list(c.call("QUEUE.GROUPS", KEY), "QUEUE.GROUPS after restart")) {
      List<?> f = (List<?>) g;
      String name = RespClient.text(f.get(1));
      assertThat((Long) f.get(13))
          .as("leased in group %s after restart", name)
          .isLessThanOrEqualTo(LIMIT);
      if (name.equals("g0")) {
        assertThat(f.get(3)).as("g0's weight").isEqualTo(4L);
      }
    }
    for (Map.Entry<String, String[]> e : held.entrySet()) {
      List<?> job = list(c.call("QUEUE.JOB", KEY, e.getKey()), "held " + e.getKey());
      assertThat(RespClient.text(job.get(1))).as("held job %s", e.getKey()).isEqualTo("leased");
    }
    for (String id : acked) {
      assertThat(c.call("QUEUE.JOB", KEY, id)).as("acked job %s", id).isNull();
    }
    for (String id : added) {
      if (!acked.contains(id)) {
        assertThat(c.call("QUEUE.JOB", KEY, id)).as("added job %s", id).isNotNull();
      }
    }
    // What is due now is this worker's too (its later batches ack it), within the limits.
    Object r = c.call("QUEUE.RESERVE", KEY, "COUNT", "100", "LEASE", "1h");
    for (Object job : list(r, "QUEUE.RESERVE after restart")) {
      List<?> f = (List<?>) job;
      held.put(
          RespClient.text(f.get(0)),
          new String[] {RespClient.text(f.get(1)), Long.toString((Long) f.get(2))});
    }
    for (Map.Entry<String, Integer> e : heldByGroup().entrySet()) {
      assertThat(e.getValue())
          .as("leases of %s after restart", e.getKey())
          .isLessThanOrEqualTo(LIMIT);
    }
  }
}
