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
 * The crash test's queue controls: QUEUE.MADD, reserves under a lease longer than the test,
 * QUEUE.PROGRESS on held jobs, QUEUE.CANCEL of waiting and of leased jobs, QUEUE.PAUSE and RESUME.
 * After a restart: an acknowledged pause or resume holds; a job cancelled while waiting is gone; a
 * job cancelled while leased still tells its holder (its extend answers -1, then it is gone); every
 * acknowledged progress is the job's progress; no other acknowledged job is lost; the event ring
 * (QUEUE.CONFIG EVENTS) comes back with its ids in a row.
 */
final class QueueControlWorkload extends CrashWorkload {

  private static final String KEY = "controlled";

  private final Set<String> live = new HashSet<>();
  private final Map<String, Long> held = new HashMap<>();
  private final Set<String> gone = new HashSet<>();
  private final Map<String, Long> cancelledHeld = new HashMap<>();
  private final Map<String, String> progress = new HashMap<>();
  private boolean paused;

  /** Sent and not acknowledged before a kill: what the server holds of them is unknown. */
  private final Set<String> unsure = new HashSet<>();

  private boolean pauseUnsure;

  /**
   * Jobs leased by a reserve whose reply a kill cut off: leased, but to no one this model knows.
   */
  private final Set<String> foreign = new HashSet<>();

  private long next;

  QueueControlWorkload() {
    super("QUEUE.MADD, PROGRESS, CANCEL, PAUSE, RESUME");
  }

  @Override
  void create(RespClient c) throws IOException {
    list(c.call("QUEUE.CONFIG", KEY, "EVENTS", "500"), "CONFIG EVENTS");
  }

  private interface Check {
    void reply(Object r);
  }

  @Override
  void batch(RespClient c, Random random) throws IOException {
    List<Check> checks = new ArrayList<>();
    List<String> madd = new ArrayList<>(List.of("QUEUE.MADD", KEY, "ATTEMPTS", "5"));
    List<String> ids = new ArrayList<>();
    for (int i = 0, n = 1 + random.nextInt(8); i < n; i++) {
      String id = "c-" + next++;
      ids.add(id);
      unsure.add(id);
      madd.addAll(List.of("JOB", "payload of " + id, "ID", id));
    }
    c.send(madd.toArray(String[]::new));
    checks.add(
        r -> {
          for (Object one : list(r, "QUEUE.MADD")) {
            assertThat(RespClient.text(((List<?>) one).get(0))).isEqualTo("new");
          }
          live.addAll(ids);
          ids.forEach(unsure::remove);
        });
    c.send("QUEUE.RESERVE", KEY, "COUNT", "3", "LEASE", "1h");
    checks.add(
        r -> {
          for (Object job : list(r, "QUEUE.RESERVE")) {
            List<?> f = (List<?>) job;
            assertThat(paused).as("a reserve of a paused queue leased").isFalse();
            held.put(RespClient.text(f.get(0)), (Long) f.get(2));
          }
        });
    for (Map.Entry<String, Long> e : List.copyOf(held.entrySet())) {
      String id = e.getKey();
      if (unsure.contains(id) || random.nextInt(4) != 0) {
        continue;
      }
      unsure.add(id);
      if (random.nextBoolean()) {
        String value = "step " + next + " of " + id;
        c.send("QUEUE.PROGRESS", KEY, id, Long.toString(e.getValue()), value);
        checks.add(
            r -> {
              assertThat(r).as("QUEUE.PROGRESS %s", id).isEqualTo(1L);
              progress.put(id, value);
              unsure.remove(id);
            });
      } else {
        c.send("QUEUE.CANCEL", KEY, id);
        checks.add(
            r -> {
              assertThat(RespClient.text(list(r, "CANCEL").get(0))).isEqualTo("leased");
              held.remove(id);
              live.remove(id);
              cancelledHeld.put(id, e.getValue());
              unsure.remove(id);
            });
      }
    }
    for (String id : List.copyOf(live)) {
      if (held.containsKey(id)
          || unsure.contains(id)
          || foreign.contains(id)
          || random.nextInt(8) != 0) {
        continue;
      }
      unsure.add(id);
      c.send("QUEUE.CANCEL", KEY, id);
      checks.add(
          r -> {
            Object first = list(r, "CANCEL " + id).get(0);
            // Waiting when sent, unless the reserve in this batch leased it first.
            if (held.containsKey(id)) {
              assertThat(RespClient.text(first)).isEqualTo("leased");
              cancelledHeld.put(id, held.remove(id));
            } else {
              assertThat(RespClient.text(first)).isEqualTo("cancelled");
              gone.add(id);
            }
            live.remove(id);
            unsure.remove(id);
          });
    }
    if (random.nextInt(5) == 0) {
      boolean pause = !paused;
      pauseUnsure = true;
      c.send(pause ? "QUEUE.PAUSE" : "QUEUE.RESUME", KEY);
      checks.add(
          r -> {
            assertThat(r).as(pause ? "PAUSE" : "RESUME").isEqualTo(1L);
            paused = pause;
            pauseUnsure = false;
          });
    }
    c.flush();
    for (Check check : checks) {
      check.reply(c.read());
      acknowledged++;
    }
  }

  @Override
  void verify(RespClient c, Random random) throws IOException {
    for (String id : unsure) {
      live.remove(id);
      held.remove(id);
      progress.remove(id);
      cancelledHeld.remove(id);
    }
    unsure.clear();
    if (next == 0) {
      return;
    }
    List<?> info = list(c.call("QUEUE.INFO", KEY), "QUEUE.INFO");
    boolean serverPaused = (Long) info.get(9) == 1;
    if (!pauseUnsure) {
      assertThat(serverPaused).as("paused after restart").isEqualTo(paused);
    }
    paused = serverPaused;
    pauseUnsure = false;
    for (String id : gone) {
      assertThat(c.call("QUEUE.JOB", KEY, id)).as("cancelled job %s", id).isNull();
    }
    // The event ring came back whole: ids one after another, each cancel of a gone job in it if
    // the ring still reaches back that far.
    List<?> events = list(c.call("QUEUE.EVENTS", KEY, "COUNT", "10000"), "QUEUE.EVENTS");
    long last = -1;
    for (Object e : events) {
      long id = (Long) ((List<?>) e).get(0);
      assertThat(last < 0 || id == last + 1).as("event %d after %d", id, last).isTrue();
      last = id;
    }
    assertThat(events.size()).isLessThanOrEqualTo(500);
    for (String id : live) {
      List<?> job = list(c.call("QUEUE.JOB", KEY, id), "job " + id + " after restart");
      String state = RespClient.text(job.get(1));
      if (held.containsKey(id)) {
        assertThat(state).as("job %s held under a 1 h lease", id).isEqualTo("leased");
      } else if (state.equals("leased")) {
        foreign.add(id);
      }
      if (progress.containsKey(id)) {
        assertThat(RespClient.text(job.get(15)))
            .as("progress of %s", id)
            .isEqualTo(progress.get(id));
      }
    }
    for (Map.Entry<String, Long> e : List.copyOf(cancelledHeld.entrySet())) {
      String id = e.getKey();
      List<?> job = list(c.call("QUEUE.JOB", KEY, id), "cancelled leased job " + id);
      assertThat(job.get(19)).as("%s cancelled", id).isEqualTo(1L);
      if (random.nextBoolean()) {
        assertThat(c.call("QUEUE.EXTEND", KEY, id, Long.toString(e.getValue()), "1h"))
            .as("the holder of cancelled %s told", id)
            .isEqualTo(-1L);
        assertThat(c.call("QUEUE.JOB", KEY, id)).isNull();
        cancelledHeld.remove(id);
        gone.add(id);
      }
    }
  }
}
