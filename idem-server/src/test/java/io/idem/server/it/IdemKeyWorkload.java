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
 * The crash test's idempotency keys: begins under leases that end within the test (200 ms) or
 * outlast it (1 h), completions with a result of their own, abandons, and stale tokens on purpose.
 * Checks after each restart: every acknowledged completion answers a begin with its result byte for
 * byte (and another fingerprint with mismatch); every key held under a 1 h lease is still in
 * progress and its token still completes it; a stale token completes nothing; no token is ever
 * handed out twice.
 */
final class IdemKeyWorkload extends CrashWorkload {

  private static final String KEY = "idemkeys";

  private final Map<String, Long> heldLong = new HashMap<>();
  private final Map<String, String> done = new HashMap<>();
  private final Map<Long, String> stale = new HashMap<>();
  private final Set<Long> tokens = new HashSet<>();

  /** Keys a change was sent to and not acknowledged before a kill: what they hold is unknown. */
  private final Set<String> unsure = new HashSet<>();

  private long next;

  IdemKeyWorkload() {
    super("IDEMKEY.* begins, completions, abandons and leases");
  }

  @Override
  void create(RespClient c) throws IOException {
    ok(c.call("IDEMKEY.RESERVE", KEY, "1d", "MAXRESULT", "4096"), "IDEMKEY.RESERVE");
  }

  private static String fp(String id) {
    return "fp-" + id;
  }

  private static String result(String id) {
    return "result of " + id + " " + "x".repeat(id.length() * 7 % 300);
  }

  private record Change(String id, long token, String[] command, long expected) {}

  @Override
  void batch(RespClient c, Random random) throws IOException {
    List<String> ids = new ArrayList<>();
    boolean longLease = random.nextBoolean();
    for (int i = 0, n = 1 + random.nextInt(6); i < n; i++) {
      String id = "ik-" + next++;
      ids.add(id);
      unsure.add(id);
      c.send("IDEMKEY.BEGIN", KEY, id, "FINGERPRINT", fp(id), "LEASE", longLease ? "1h" : "200ms");
    }
    c.flush();
    for (String id : ids) {
      List<?> r = list(c.read(), "IDEMKEY.BEGIN " + id);
      assertThat(RespClient.text(r.get(0))).as("BEGIN %s", id).isEqualTo("started");
      long token = (Long) r.get(1);
      assertThat(tokens.add(token)).as("token %d handed out twice", token).isTrue();
      unsure.remove(id);
      if (longLease) {
        heldLong.put(id, token); // a short lease's token may or may not complete: not checked
      }
      acknowledged++;
    }
    List<Change> changes = new ArrayList<>();
    for (Map.Entry<String, Long> e : List.copyOf(heldLong.entrySet())) {
      if (random.nextInt(3) != 0) {
        continue;
      }
      String id = e.getKey();
      String t = Long.toString(e.getValue());
      changes.add(
          random.nextInt(4) == 0
              ? new Change(id, e.getValue(), new String[] {"IDEMKEY.ABANDON", KEY, id, t}, 1)
              : new Change(
                  id, e.getValue(), new String[] {"IDEMKEY.COMPLETE", KEY, id, t, result(id)}, 1));
    }
    for (Map.Entry<Long, String> e : stale.entrySet()) {
      if (random.nextInt(4) == 0) {
        String id = e.getValue();
        changes.add(
            new Change(
                id,
                -1,
                new String[] {"IDEMKEY.COMPLETE", KEY, id, Long.toString(e.getKey()), "late"},
                0));
      }
    }
    for (Change ch : changes) {
      if (ch.token() > 0) {
        unsure.add(ch.id());
      }
      c.send(ch.command());
    }
    c.flush();
    for (Change ch : changes) {
      String what = ch.command()[0] + " " + ch.id() + " " + ch.command()[3];
      assertThat(c.read()).as(what).isEqualTo(ch.expected());
      if (ch.token() > 0) {
        heldLong.remove(ch.id());
        stale.put(ch.token(), ch.id());
        unsure.remove(ch.id());
        if (ch.command()[0].equals("IDEMKEY.COMPLETE")) {
          done.put(ch.id(), result(ch.id()));
        }
      }
      acknowledged++;
    }
  }

  @Override
  void verify(RespClient c, Random random) throws IOException {
    // A key whose change was sent but not acknowledged before the kill holds either state (a held
    // key may be done): it is left alone from here on, and checked by no rule below.
    for (String id : unsure) {
      heldLong.remove(id);
      done.remove(id);
      stale.values().removeIf(id::equals);
    }
    unsure.clear();
    for (Map.Entry<String, String> e : done.entrySet()) {
      String id = e.getKey();
      List<?> r = list(c.call("IDEMKEY.BEGIN", KEY, id, "FINGERPRINT", fp(id)), id);
      assertThat(RespClient.text(r.get(0))).as("completed %s after restart", id).isEqualTo("done");
      assertThat(RespClient.text(r.get(1))).as("its result").isEqualTo(e.getValue());
      List<?> other = list(c.call("IDEMKEY.BEGIN", KEY, id, "FINGERPRINT", "another"), id);
      assertThat(RespClient.text(other.get(0))).isEqualTo("mismatch");
    }
    for (Map.Entry<String, Long> e : heldLong.entrySet()) {
      String id = e.getKey();
      List<?> r = list(c.call("IDEMKEY.BEGIN", KEY, id, "FINGERPRINT", fp(id)), id);
      assertThat(RespClient.text(r.get(0)))
          .as("%s, held under a 1 h lease, after restart", id)
          .isEqualTo("in_progress");
    }
    for (Map.Entry<Long, String> e : stale.entrySet()) {
      assertThat(c.call("IDEMKEY.COMPLETE", KEY, e.getValue(), Long.toString(e.getKey()), "x"))
          .as("stale token %d of %s after restart", e.getKey(), e.getValue())
          .isEqualTo(0L);
    }
    // A held token still completes: those keys are done now, with their results.
    for (Map.Entry<String, Long> e : List.copyOf(heldLong.entrySet())) {
      if (random.nextInt(4) == 0) {
        String id = e.getKey();
        assertThat(c.call("IDEMKEY.COMPLETE", KEY, id, Long.toString(e.getValue()), result(id)))
            .as("%s completed by its token after restart", id)
            .isEqualTo(1L);
        heldLong.remove(id);
        stale.put(e.getValue(), id);
        done.put(id, result(id));
      }
    }
  }
}
