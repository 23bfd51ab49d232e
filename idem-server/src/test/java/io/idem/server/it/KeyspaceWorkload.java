package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The crash test's keyspace workload: BF.INSERT, DEL, RENAME, EXPIRE, PERSIST, PEXPIRE (keys that
 * expire) and FLUSHALL over a few keys, on a server of its own (FLUSHALL takes every key). One
 * connection orders every command, so the keyspace after a restart must be the state after some
 * command from the last acknowledged one to the last sent: the model keeps each of those states and
 * the check looks for the one the server shows (each key's presence, its items and whether it has a
 * time to live). A key given a short time to live must be gone.
 */
final class KeyspaceWorkload extends CrashWorkload {

  private static final int KEYS = 8;
  private static final int MOST_ITEMS = 40;
  private static final long SHORT_TTL = 150;

  enum Ttl {
    NONE,
    LONG,
    /** A short time to live: gone by the next check, and left alone till then. */
    DOOMED
  }

  record Key(Set<String> items, Ttl ttl) {}

  /** The keyspace as the commands sent so far leave it: key name to state, absent keys left out. */
  private final Map<String, Key> current = new HashMap<>();

  /** The keyspace after the last acknowledged command, then after each later command sent. */
  private final ArrayDeque<Map<String, Key>> states = new ArrayDeque<>();

  /**
   * When each doomed key's PEXPIRE was acknowledged: past that and its time to live, it is gone.
   */
  private final Map<String, Long> doomedAt = new HashMap<>();

  private int item;

  /** The last command sent, for the messages. */
  private String last;

  private void send(RespClient c, String... words) throws IOException {
    last = String.join(" ", words);
    c.send(words);
  }

  KeyspaceWorkload() {
    super("DEL, RENAME, EXPIRE, PERSIST, expiry, FLUSHALL");
    states.add(Map.of());
  }

  @Override
  void create(RespClient c) {}

  private static String key(int i) {
    return "k" + i;
  }

  private List<String> live() {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, Key> e : current.entrySet()) {
      if (e.getValue().ttl() != Ttl.DOOMED) {
        out.add(e.getKey());
      }
    }
    out.sort(null);
    return out;
  }

  /** A key that is not doomed, present or not. */
  private String usable(Random random) {
    for (int tries = 0; tries < 32; tries++) {
      String k = key(random.nextInt(KEYS));
      Key state = current.get(k);
      if (state == null || state.ttl() != Ttl.DOOMED) {
        return k;
      }
    }
    return null;
  }

  @Override
  void batch(RespClient c, Random random) throws IOException {
    long now = System.currentTimeMillis();
    for (Map.Entry<String, Long> e : new ArrayList<>(doomedAt.entrySet())) {
      if (now > e.getValue() + SHORT_TTL + 50) {
        current.remove(e.getKey()); // expired: every later state has it absent
        doomedAt.remove(e.getKey());
      }
    }
    List<Object> expected = new ArrayList<>();
    List<String> sent = new ArrayList<>();
    List<String> doomedBy = new ArrayList<>();
    for (int op = 0; op < 32; op++) {
      double r = random.nextDouble();
      List<String> live = live();
      String k = usable(random);
      String doom = null;
      if (r < 0.004) {
        send(c, "FLUSHALL");
        expected.add("OK");
        current.clear();
        doomedAt.clear(); // gone either way
        doomedBy.replaceAll(ignored -> null); // and a key doomed earlier in the batch may come back
      } else if (k == null) {
        continue;
      } else if (r < 0.15) {
        send(c, "DEL", k);
        expected.add(current.remove(k) == null ? 0L : 1L);
      } else if (r < 0.27 && !live.isEmpty()) {
        String from = live.get(random.nextInt(live.size()));
        if (from.equals(k)) {
          continue;
        }
        send(c, "RENAME", from, k);
        expected.add("OK");
        current.put(k, current.remove(from));
      } else if (r < 0.37) {
        send(c, "EXPIRE", k, "3600");
        Key state = current.get(k);
        expected.add(state == null ? 0L : 1L);
        if (state != null) {
          current.put(k, new Key(state.items(), Ttl.LONG));
        }
      } else if (r < 0.45) {
        send(c, "PERSIST", k);
        Key state = current.get(k);
        expected.add(state != null && state.ttl() == Ttl.LONG ? 1L : 0L);
        if (state != null) {
          current.put(k, new Key(state.items(), Ttl.NONE));
        }
      } else if (r < 0.47 && current.containsKey(k)) {
        send(c, "PEXPIRE", k, Long.toString(SHORT_TTL));
        expected.add(1L);
        current.put(k, new Key(current.get(k).items(), Ttl.DOOMED));
        doom = k;
      } else {
        Key state = current.get(k);
        if (state != null && state.items().size() >= MOST_ITEMS) {
          send(c, "DEL", k);
          expected.add(1L);
          current.remove(k);
        } else {
          String it = "i" + item++;
          send(c, "BF.INSERT", k, "CAPACITY", "1000", "ERROR", "0.000001", "ITEMS", it);
          expected.add(List.of(1L));
          Set<String> items = new HashSet<>(state == null ? Set.of() : state.items());
          items.add(it);
          current.put(k, new Key(Set.copyOf(items), state == null ? Ttl.NONE : state.ttl()));
        }
      }
      doomedBy.add(doom);
      sent.add(last);
      states.add(Map.copyOf(current));
    }
    c.flush();
    for (int i = 0; i < expected.size(); i++) {
      assertThat(c.read()).as("reply to %s", sent.get(i)).isEqualTo(expected.get(i));
      states.removeFirst(); // the first state is now this command's
      acknowledged++;
      if (doomedBy.get(i) != null) {
        doomedAt.put(doomedBy.get(i), System.currentTimeMillis());
      }
    }
  }

  @Override
  void verify(RespClient c, Random random) throws IOException {
    Set<String> universe = new LinkedHashSet<>();
    for (Map<String, Key> state : states) {
      for (Key k : state.values()) {
        universe.addAll(k.items());
      }
    }
    List<String> every = new ArrayList<>(universe);
    Map<String, Key> seen = new HashMap<>();
    for (int i = 0; i < KEYS; i++) {
      String k = key(i);
      long ttl = (Long) c.call("TTL", k);
      if (ttl == -2) {
        continue;
      }
      assertThat(ttl).as("TTL %s after restart", k).isNotIn(0L).isGreaterThanOrEqualTo(-1L);
      Set<String> items = new HashSet<>();
      if (!every.isEmpty()) {
        List<String> w = new ArrayList<>(List.of("BF.MEXISTS", k));
        w.addAll(every);
        List<?> answers = list(c.call(words(w)), "BF.MEXISTS " + k);
        for (int j = 0; j < every.size(); j++) {
          if (answers.get(j).equals(1L)) {
            items.add(every.get(j));
          }
        }
      }
      seen.put(k, new Key(Set.copyOf(items), ttl == -1 ? Ttl.NONE : Ttl.LONG));
    }
    Map<String, Key> match = null;
    for (Map<String, Key> state : states) {
      Map<String, Key> expect = new HashMap<>(state);
      expect.values().removeIf(k -> k.ttl() == Ttl.DOOMED);
      if (expect.equals(seen)) {
        match = expect;
        break;
      }
    }
    assertThat(match)
        .as(
            "the keyspace after restart %s is the state after one of the commands from the last"
                + " acknowledged one: %s",
            seen, states)
        .isNotNull();
    current.clear();
    current.putAll(match);
    doomedAt.clear();
    states.clear();
    states.add(Map.copyOf(current));
  }
}
