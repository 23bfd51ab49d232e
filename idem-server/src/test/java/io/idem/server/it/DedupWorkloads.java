package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.dedup.RecentTable;
import io.idem.core.hash.Hash128;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The crash test's workloads for dedup tables, one a mode, and one whose short window drops slices
 * all the time. No acknowledged claim is forgotten, and no id is answered {@code new} twice.
 */
final class DedupWorkloads {

  private DedupWorkloads() {}

  static List<CrashWorkload> all() {
    return List.of(
        new Owned("EXACT"), new Owned("RECENT"), new Filter(), new Slices(), new Transactions());
  }

  /**
   * MULTI, a claim of the same id in two EXACT tables, EXEC, pipelined: after a restart every
   * acknowledged transaction's id is in both tables, and an id whose EXEC was cut off is in both or
   * in neither (a transaction reaches the log whole or not at all).
   */
  static final class Transactions extends CrashWorkload {
    private final Acked acked = new Acked();
    private final List<String> inFlight = new ArrayList<>();
    private int n;

    Transactions() {
      super("MULTI, DEDUP.CLAIM in two tables, EXEC");
    }

    @Override
    void create(RespClient c) throws IOException {
      ok(c.call("DEDUP.RESERVE", "txa", "24h"), "DEDUP.RESERVE txa");
      ok(c.call("DEDUP.RESERVE", "txb", "24h"), "DEDUP.RESERVE txb");
    }

    @Override
    void batch(RespClient c, Random random) throws IOException {
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 32; i++, n++) {
        String id = "t" + cycle + "-" + n;
        ids.add(id);
        c.send("MULTI");
        c.send("DEDUP.CLAIM", "txa", id, "w");
        c.send("DEDUP.CLAIM", "txb", id, "w");
        c.send("EXEC");
      }
      inFlight.addAll(ids);
      c.flush();
      for (String id : ids) {
        assertThat(c.read()).as("MULTI").isEqualTo("OK");
        assertThat(c.read()).as("queued").isEqualTo("QUEUED");
        assertThat(c.read()).as("queued").isEqualTo("QUEUED");
        List<?> replies = list(c.read(), "EXEC " + id);
        assertThat(replies).as("EXEC %s", id).hasSize(2);
        inFlight.remove(id);
        acked.items.add(id);
        acknowledged++;
      }
    }

    @Override
    void verify(RespClient c, Random random) throws IOException {
      expectEach(c, acked.toCheck(random), 1L, "DEDUP.EXISTS", "txa");
      expectEach(c, acked.toCheck(random), 1L, "DEDUP.EXISTS", "txb");
      acked.checked();
      for (String id : inFlight) {
        Object a = c.call("DEDUP.EXISTS", "txa", id);
        Object b = c.call("DEDUP.EXISTS", "txb", id);
        assertThat(b)
            .as("the cut-off transaction %s: in both tables or in neither", id)
            .isEqualTo(a);
        if (a.equals(1L)) {
          acked.items.add(id); // it was applied: the truth from now on
        }
      }
      inFlight.clear();
    }
  }

  /**
   * DEDUP.MCLAIM of new ids and of ids claimed earlier by other owners, and DEDUP.RELEASE of a few,
   * in an EXACT or RECENT table. In-flight: an earlier id is a {@code retry} for its owner, a
   * {@code duplicate} naming it (EXACT) for anyone else. After a restart: every acknowledged claim
   * is a {@code retry} for its owner, every acknowledged release is gone. Once a cycle the client
   * pauses so the server writes the EXACT table's pending claims as rows, and kills land during and
   * after those writes. The RECENT table's ids are chosen so that no two share a slot: it then
   * forgets nothing, and a forgotten claim is a lost one.
   */
  static final class Owned extends CrashWorkload {
    private static final long SLOTS = 1 << 20;
    private final String mode;
    private final String key;
    private final Map<String, String> claims = new LinkedHashMap<>();
    private final Set<String> released = new LinkedHashSet<>();
    private final List<String> mine = new ArrayList<>();
    private final List<String> sinceCheck = new ArrayList<>();
    private final List<String> everClaimed = new ArrayList<>();
    private final BitSet usedSlots = new BitSet();
    private int n;
    private int batches;

    Owned(String mode) {
      super("DEDUP.MCLAIM, DEDUP.RELEASE in " + mode);
      this.mode = mode;
      this.key = mode.equals("EXACT") ? "dd" : "dr";
    }

    @Override
    void create(RespClient c) throws IOException {
      Object reply =
          mode.equals("EXACT")
              ? c.call("DEDUP.RESERVE", key, "24h")
              : c.call("DEDUP.RESERVE", key, "24h", "RECENT", Long.toString(SLOTS));
      ok(reply, "DEDUP.RESERVE " + mode);
    }

    /** A new id; in a RECENT table, one whose slot no earlier id took. */
    private String newId() {
      while (true) {
        String id = "id-" + cycle + "-" + n++;
        if (mode.equals("EXACT")) {
          return id;
        }
        long h1 = new Hash128().hash(id.getBytes(StandardCharsets.UTF_8)).h1();
        int slot = RecentTable.slot(h1, SLOTS);
        if (!usedSlots.get(slot)) {
          usedSlots.set(slot);
          return id;
        }
      }
    }

    @Override
    void batch(RespClient c, Random random) throws IOException {
      if (batches == 0) {
        mine.clear(); // another cycle: another owner
      }
      String owner = "owner-" + cycle;
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 48; i++) {
        ids.add(newId());
      }
      for (int i = 0; i < 8 && !everClaimed.isEmpty(); i++) {
        String id = everClaimed.get(random.nextInt(everClaimed.size()));
        if (claims.containsKey(id) && !ids.contains(id)) {
          ids.add(id); // held (not released since): a retry or a duplicate
        }
      }
      List<String> claim = new ArrayList<>(List.of("DEDUP.MCLAIM", key, "ITEMS"));
      for (String id : ids) {
        claim.add(id);
        claim.add(owner);
      }
      c.send(words(claim));
      List<String> releases = new ArrayList<>();
      if (++batches % 10 == 0) {
        for (int i = 0; i < 4 && !mine.isEmpty(); i++) {
          String id = mine.remove(random.nextInt(mine.size()));
          claims.remove(id); // unknown until acknowledged: checked no further
          releases.add(id);
          c.send("DEDUP.RELEASE", key, id, owner);
        }
      }
      c.flush();
      List<?> answers = list(c.read(), "DEDUP.MCLAIM");
      for (int i = 0; i < ids.size(); i++) {
        String id = ids.get(i);
        List<?> answer = (List<?>) answers.get(i);
        String first = claims.get(id);
        if (first == null) {
          assertThat(answer.getFirst()).as("claim of %s", id).isEqualTo("new");
          claims.put(id, owner);
          mine.add(id);
          sinceCheck.add(id);
          everClaimed.add(id);
        } else if (first.equals(owner)) {
          assertThat(answer.getFirst()).as("claim of %s by its owner", id).isEqualTo("retry");
        } else {
          assertThat(answer.getFirst())
              .as("claim of %s, first by %s", id, first)
              .isEqualTo("duplicate");
          if (mode.equals("EXACT")) {
            assertThat(new String((byte[]) answer.get(1), StandardCharsets.UTF_8)).isEqualTo(first);
          }
        }
      }
      acknowledged++;
      for (String id : releases) {
        assertThat(c.read()).as("release of %s", id).isEqualTo(1L);
        released.add(id);
        acknowledged++;
      }
      if (batches == 20 && mode.equals("EXACT")) {
        pause(1200); // the server writes the pending claims as rows
      }
    }

    @Override
    void verify(RespClient c, Random random) throws IOException {
      batches = 0;
      expectEach(c, new ArrayList<>(released), 0L, "DEDUP.EXISTS", key);
      released.clear();
      // The claims since the last check, and a sample of the older ones.
      List<Map.Entry<String, String>> all = new ArrayList<>();
      for (String id : sinceCheck) {
        if (claims.containsKey(id)) {
          all.add(Map.entry(id, claims.get(id)));
        }
      }
      List<Map.Entry<String, String>> older = new ArrayList<>(claims.entrySet());
      for (int i = 0; i < Math.min(Acked.SAMPLE, older.size()); i++) {
        all.add(older.get(random.nextInt(older.size())));
      }
      sinceCheck.clear();
      for (int from = 0; from < all.size(); from += 1000) {
        List<Map.Entry<String, String>> chunk =
            all.subList(from, Math.min(all.size(), from + 1000));
        List<String> w = new ArrayList<>(List.of("DEDUP.MCLAIM", key, "ITEMS"));
        for (Map.Entry<String, String> e : chunk) {
          w.add(e.getKey());
          w.add(e.getValue());
        }
        List<?> answers = list(c.call(words(w)), "DEDUP.MCLAIM");
        for (int i = 0; i < chunk.size(); i++) {
          assertThat(((List<?>) answers.get(i)).getFirst())
              .as("claim of %s by %s after restart", chunk.get(i).getKey(), chunk.get(i).getValue())
              .isEqualTo("retry");
        }
      }
    }
  }

  /**
   * DEDUP.MCLAIM in a FILTER table: a new id is {@code new} (or, at the table's error rate, a false
   * {@code duplicate}, then not counted as claimed); an id claimed earlier is a {@code duplicate}.
   * After a restart every acknowledged claim exists.
   */
  static final class Filter extends CrashWorkload {
    private final Acked claimed = new Acked();
    private int n;

    Filter() {
      super("DEDUP.MCLAIM in FILTER");
    }

    @Override
    void create(RespClient c) throws IOException {
      ok(c.call("DEDUP.RESERVE", "df", "24h", "FILTER", "0.001", "2000000"), "DEDUP.RESERVE");
    }

    @Override
    void batch(RespClient c, Random random) throws IOException {
      List<String> fresh = new ArrayList<>();
      for (int i = 0; i < 56; i++) {
        fresh.add("f-" + cycle + "-" + n++);
      }
      List<String> again = new ArrayList<>();
      for (int i = 0; i < 8 && !claimed.items.isEmpty(); i++) {
        again.add(claimed.items.get(random.nextInt(claimed.items.size())));
      }
      List<String> w = new ArrayList<>(List.of("DEDUP.MCLAIM", "df", "ITEMS"));
      for (String id : fresh) {
        w.add(id);
        w.add("o");
      }
      for (String id : again) {
        w.add(id);
        w.add("o");
      }
      c.send(words(w));
      c.flush();
      List<?> answers = list(c.read(), "DEDUP.MCLAIM");
      for (int i = 0; i < fresh.size(); i++) {
        Object status = ((List<?>) answers.get(i)).getFirst();
        assertThat(status).as("claim of new %s", fresh.get(i)).isIn("new", "duplicate");
        if (status.equals("new")) {
          claimed.items.add(fresh.get(i));
        }
      }
      for (int i = 0; i < again.size(); i++) {
        assertThat(((List<?>) answers.get(fresh.size() + i)).getFirst())
            .as("claim again of %s", again.get(i))
            .isEqualTo("duplicate");
      }
      acknowledged++;
    }

    @Override
    void verify(RespClient c, Random random) throws IOException {
      expectEach(c, claimed.toCheck(random), 1L, "DEDUP.EXISTS", "df");
      claimed.checked();
    }
  }

  /**
   * DEDUP.CLAIM into a table with a 4-second window in 4 slices, so the server drops a slice every
   * second, kills included. A claim sent at s and acknowledged at a is held for at least the window
   * after s and at most the window and a slice after a: after a restart, an id is checked to exist
   * where its window surely still covers the check, to be gone where it surely no longer does.
   */
  static final class Slices extends CrashWorkload {
    private static final long WINDOW = 4000;
    private static final long SLICE = 1000;

    private record Claim(String id, long sentAt, long ackedAt) {}

    private final List<Claim> claims = new ArrayList<>();
    private int n;

    Slices() {
      super("DEDUP.CLAIM with slice drops");
    }

    @Override
    void create(RespClient c) throws IOException {
      ok(c.call("DEDUP.RESERVE", "ds", "4s", "SLICES", "4"), "DEDUP.RESERVE");
    }

    @Override
    void batch(RespClient c, Random random) throws IOException {
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        String id = "t-" + cycle + "-" + n++;
        ids.add(id);
        c.send("DEDUP.CLAIM", "ds", id, "o");
      }
      long sentAt = System.currentTimeMillis();
      c.flush();
      for (String id : ids) {
        assertThat(list(c.read(), "DEDUP.CLAIM").getFirst()).as("claim of %s", id).isEqualTo("new");
        claims.add(new Claim(id, sentAt, System.currentTimeMillis()));
        acknowledged++;
      }
      pause(20); // claims spread over the slices
    }

    @Override
    void verify(RespClient c, Random random) throws IOException {
      if (claims.isEmpty()) {
        return; // all gone at an earlier check, and no claim since (two restarts in a row)
      }
      int held = 0;
      int gone = 0;
      for (Iterator<Claim> it = claims.iterator(); it.hasNext(); ) {
        Claim claim = it.next();
        long before = System.currentTimeMillis();
        Object exists = c.call("DEDUP.EXISTS", "ds", claim.id());
        long after = System.currentTimeMillis();
        if (after < claim.sentAt() + WINDOW) {
          assertThat(exists)
              .as("DEDUP.EXISTS %s, inside its window, after restart", claim)
              .isEqualTo(1L);
          held++;
        } else if (before > claim.ackedAt() + WINDOW + SLICE) {
          assertThat(exists)
              .as("DEDUP.EXISTS %s, past its window and a slice", claim)
              .isEqualTo(0L);
          gone++;
          it.remove();
        }
      }
      if (held + gone == 0) {
        // Every claim was between its surely-held and surely-gone times (a slow restart): wait
        // until the first of them is surely gone, rather than check nothing this cycle.
        Claim first = claims.getFirst();
        pause(Math.max(0, first.ackedAt() + WINDOW + SLICE + 1 - System.currentTimeMillis()));
        assertThat(c.call("DEDUP.EXISTS", "ds", first.id()))
            .as("DEDUP.EXISTS %s, past its window and a slice", first)
            .isEqualTo(0L);
        claims.removeFirst();
        gone++;
      }
      assertThat(held + gone).as("claims whose state was certain").isPositive();
    }
  }

  private static void pause(long millis) throws IOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }
}
