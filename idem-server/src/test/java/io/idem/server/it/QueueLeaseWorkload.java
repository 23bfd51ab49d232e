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
 * The crash test's queue under every lease change: adds, reserves under leases that end within the
 * test (200 ms) or outlast it (1 h), acks, releases, failures, REPLAY ALL, PURGE, and stale tokens
 * replayed on purpose, half of each batch's lease changes sent from a new connection (a worker that
 * reconnected). Checks, as it goes and after each restart: no token handed out twice; a stale token
 * never acks, fails or releases anything; a job held under a 1 h lease is still held under its
 * token, and handed to no one else; and no job is lost, unless a purge may have taken it (it could
 * have died: it failed, or a lease of it could end).
 */
final class QueueLeaseWorkload extends CrashWorkload {

  private static final String KEY = "leases";

  /** A job this worker holds: its lease's token, and whether that lease outlasts the test. */
  private record Held(long token, boolean longLease) {}

  private final Map<String, Held> held = new HashMap<>();

  /** Tokens of acknowledged reserves: every one new. */
  private final Set<Long> tokens = new HashSet<>();

  /** Tokens that no longer hold their job (acked, released, failed), with the job's id. */
  private final Map<Long, String> stale = new HashMap<>();

  /** Jobs whose add was acknowledged; those that may be gone by a purge; those acked. */
  private final Set<String> added = new HashSet<>();

  private final Set<String> mayBePurged = new HashSet<>();
  private final Set<String> done = new HashSet<>();

  /** Jobs whose fate is unknown: a change to them was sent and not acknowledged before a kill. */
  private final Set<String> unsure = new HashSet<>();

  private long next;

  QueueLeaseWorkload() {
    super("QUEUE.* with ending leases, releases, failures, replays, purges");
  }

  @Override
  void create(RespClient c) {}

  private static String text(Object reply) {
    return RespClient.text(reply);
  }

  /** One lease change, its job, and the reply that must come. */
  private record Change(String id, long token, String[] command, Object expected) {}

  @Override
  void batch(RespClient c, Random random) throws IOException {
    List<String> ids = new ArrayList<>();
    for (int i = 0, n = 1 + random.nextInt(4); i < n; i++) {
      String id = "l-" + next++;
      ids.add(id);
      c.send("QUEUE.ADD", KEY, "p", "ID", id, "UNIQUE", "1d", "ATTEMPTS", "3");
    }
    boolean longLease = random.nextBoolean();
    c.send("QUEUE.RESERVE", KEY, "COUNT", "3", "LEASE", longLease ? "1h" : "200ms");
    c.flush();
    for (String id : ids) {
      assertThat(text(list(c.read(), "QUEUE.ADD " + id).get(0))).isEqualTo("new");
      added.add(id);
      acknowledged++;
    }
    for (Object job : list(c.read(), "QUEUE.RESERVE")) {
      List<?> f = (List<?>) job;
      String id = text(f.get(0));
      long token = (Long) f.get(2);
      assertThat(tokens.add(token)).as("token %d handed out twice", token).isTrue();
      Held before = held.get(id);
      assertThat(before == null || !before.longLease())
          .as("job %s handed out while held under a 1 h lease", id)
          .isTrue();
      if (before != null) {
        stale.put(before.token(), id); // its short lease ended: that token is stale now
      }
      held.put(id, new Held(token, longLease));
      if (!longLease) {
        mayBePurged.add(id); // the lease may end on its last attempt: dead, then purged
      }
      acknowledged++;
    }
    // Lease changes on the long leases this worker holds, and stale tokens on purpose.
    List<Change> changes = new ArrayList<>();
    for (Map.Entry<String, Held> e : List.copyOf(held.entrySet())) {
      String id = e.getKey();
      Held h = e.getValue();
      if (!h.longLease() || unsure.contains(id) || random.nextInt(3) != 0) {
        continue;
      }
      String t = Long.toString(h.token());
      switch (random.nextInt(3)) {
        case 0 ->
            changes.add(new Change(id, h.token(), new String[] {"QUEUE.ACK", KEY, id, t}, 1L));
        case 1 ->
            changes.add(new Change(id, h.token(), new String[] {"QUEUE.RELEASE", KEY, id, t}, 1L));
        default ->
            changes.add(
                new Change(id, h.token(), new String[] {"QUEUE.FAIL", KEY, id, t, "boom"}, null));
      }
    }
    for (Map.Entry<Long, String> e : stale.entrySet()) {
      if (random.nextInt(4) == 0) {
        String t = Long.toString(e.getKey());
        String id = e.getValue();
        changes.add(new Change(id, -1, new String[] {"QUEUE.ACK", KEY, id, t}, 0L));
        changes.add(new Change(id, -1, new String[] {"QUEUE.RELEASE", KEY, id, t}, 0L));
      }
    }
    if (changes.isEmpty()) {
      return;
    }
    // Half of the time from a new connection: a worker that reconnected.
    try (RespClient other = random.nextBoolean() ? new RespClient(port) : null) {
      RespClient w = other == null ? c : other;
      for (Change ch : changes) {
        if (ch.token() >= 0) {
          unsure.add(ch.id());
        }
        w.send(ch.command());
      }
      int counts = 0;
      if (random.nextInt(5) == 0) {
        w.send("QUEUE.REPLAY", KEY, "ALL");
        counts++;
      }
      if (random.nextInt(5) == 0) {
        w.send("QUEUE.PURGE", KEY);
        counts++;
      }
      w.flush();
      for (Change ch : changes) {
        Object r = w.read();
        String what = String.join(" ", ch.command());
        if (ch.command()[0].equals("QUEUE.FAIL")) {
          assertThat(text(list(r, what).get(0))).as(what).isIn("retry", "dead");
          mayBePurged.add(ch.id());
        } else {
          assertThat(r).as(what).isEqualTo(ch.expected());
        }
        if (ch.token() >= 0) {
          held.remove(ch.id());
          stale.put(ch.token(), ch.id());
          unsure.remove(ch.id());
          if (ch.command()[0].equals("QUEUE.ACK")) {
            done.add(ch.id());
          }
        }
        acknowledged++;
      }
      for (int i = 0; i < counts; i++) {
        assertThat(w.read()).as("REPLAY's or PURGE's count").isInstanceOf(Long.class);
      }
    }
  }

  @Override
  void verify(RespClient c, Random random) throws IOException {
    // Every token this worker holds under a 1 h lease is still its own.
    for (Map.Entry<String, Held> e : held.entrySet()) {
      if (e.getValue().longLease() && !unsure.contains(e.getKey())) {
        assertThat(
                c.call("QUEUE.EXTEND", KEY, e.getKey(), Long.toString(e.getValue().token()), "1h"))
            .as("job %s under its token after restart", e.getKey())
            .isEqualTo(1L);
      }
    }
    // A stale token holds nothing.
    for (Map.Entry<Long, String> e : stale.entrySet()) {
      assertThat(c.call("QUEUE.ACK", KEY, e.getValue(), Long.toString(e.getKey())))
          .as("stale token %d of %s after restart", e.getKey(), e.getValue())
          .isEqualTo(0L);
    }
    // No job lost: its id is still held, or done.
    for (String id : added) {
      if (mayBePurged.contains(id) || unsure.contains(id)) {
        continue;
      }
      List<?> r = list(c.call("QUEUE.ADD", KEY, "again", "ID", id, "UNIQUE", "1d"), id);
      assertThat(text(r.get(0))).as("job %s after restart", id).isEqualTo("duplicate");
      if (done.contains(id)) {
        assertThat(text(r.get(2))).as("acked job %s", id).isEqualTo("done");
      }
    }
    // What was unsure is settled by what the server holds now: leave those jobs alone.
    for (String id : unsure) {
      held.remove(id);
      mayBePurged.add(id);
    }
    unsure.clear();
  }
}
