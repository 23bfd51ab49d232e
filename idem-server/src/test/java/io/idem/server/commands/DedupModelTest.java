package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.store.RowChange;
import io.idem.server.commands.dedup.BackgroundSteps;
import io.idem.server.reply.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The three modes against a naive model of the window under random claims, releases, event times
 * (late, early, in the future) and a clock that jumps: EXACT answers exactly as the model; FILTER
 * never calls a claimed id new (no false negatives); RECENT never calls an unclaimed id a duplicate
 * or a retry (no false positives). Fixed seeds.
 */
class DedupModelTest {

  private static final long WINDOW = 8 * 3_600_000L;
  private static final long SLICE = WINDOW / 8;

  /** The model: who holds each id and the slice it was claimed into. */
  private record Held(String owner, long slice) {}

  @Test
  void exactFilterAndRecent_againstTheModel() {
    for (long seed = 1; seed <= 120; seed++) {
      run(seed);
    }
  }

  private static void run(long seed) {
    Random r = new Random(seed);
    AtomicLong clock = new AtomicLong(1_700_000_000_000L + r.nextInt(1_000_000));
    Harness h = new Harness(clock::get);
    h.call("DEDUP.RESERVE", "e", "8h");
    h.call("DEDUP.RESERVE", "f", "8h", "FILTER", "0.01", "100");
    h.call("DEDUP.RESERVE", "r", "8h", "RECENT", "64");
    Map<String, Held> model = new HashMap<>();
    Map<String, Held> filterModel = new HashMap<>();
    Map<String, Held> recentModel = new HashMap<>();
    List<RowChange> writing = null; // a background write started and not finished
    for (int step = 0; step < 400; step++) {
      long now = clock.get();
      long floor = Math.floorDiv(now - WINDOW, SLICE);
      model.values().removeIf(held -> held.slice() < floor);
      filterModel.values().removeIf(held -> held.slice() < floor);
      recentModel.values().removeIf(held -> held.slice() < floor);
      int what = r.nextInt(12);
      if (what == 10) {
        // The background, whole or in steps with commands between them.
        if (writing != null) {
          BackgroundSteps.finish(h.engine, "e", writing);
          writing = null;
        } else if (r.nextBoolean()) {
          h.engine.runBackground();
        } else {
          writing = BackgroundSteps.start(h.engine, "e");
        }
      } else if (what == 11) {
        continue;
      } else if (what == 0) {
        clock.addAndGet(r.nextInt(4) == 0 ? r.nextLong(3 * WINDOW) : r.nextLong(SLICE));
      } else if (what == 1) {
        String id = "id" + r.nextInt(40);
        String owner = "o" + r.nextInt(3);
        Held held = model.get(id);
        boolean mine = held != null && held.owner().equals(owner);
        assertThat(h.show("DEDUP.RELEASE", "e", id, owner))
            .as("seed %d step %d release %s", seed, step, id)
            .isEqualTo(mine ? "(integer) 1" : "(integer) 0");
        if (mine) {
          model.remove(id);
        }
        Held inRecent = recentModel.get(id);
        if (h.show("DEDUP.RELEASE", "r", id, owner).equals("(integer) 1")) {
          assertThat(inRecent).as("seed %d step %d recent released %s", seed, step, id).isNotNull();
          assertThat(inRecent.owner()).isEqualTo(owner);
          recentModel.remove(id);
        }
      } else {
        int n = 1 + r.nextInt(r.nextBoolean() ? 4 : 16); // 8 and more: the batch path
        long at = now + (r.nextInt(3) == 0 ? -r.nextLong(2 * WINDOW) : r.nextLong(SLICE)) - SLICE;
        List<String> words =
            new ArrayList<>(List.of("DEDUP.MCLAIM", "?", "AT", Long.toString(at), "ITEMS"));
        List<String> expected = new ArrayList<>();
        Map<String, Held> after = new HashMap<>(model);
        for (int i = 0; i < n; i++) {
          String id = "id" + r.nextInt(40);
          String owner = "o" + r.nextInt(3);
          words.add(id);
          words.add(owner);
          Held held = after.get(id);
          if (held == null) {
            long t = Math.min(Math.max(at, now - WINDOW), now);
            after.put(id, new Held(owner, Math.floorDiv(t, SLICE)));
            expected.add("new");
          } else {
            expected.add(held.owner().equals(owner) ? "retry" : "duplicate");
          }
        }
        words.set(1, "e");
        List<String> exact = statuses(h.call(words.toArray(String[]::new)));
        assertThat(exact).as("seed %d step %d exact %s", seed, step, words).isEqualTo(expected);
        words.set(1, "f");
        List<String> filter = statuses(h.call(words.toArray(String[]::new)));
        words.set(1, "r");
        List<String> recent = statuses(h.call(words.toArray(String[]::new)));
        long t = Math.min(Math.max(at, now - WINDOW), now);
        long slice = Math.floorDiv(t, SLICE);
        for (int i = 0; i < n; i++) {
          String id = words.get(5 + 2 * i);
          String owner = words.get(6 + 2 * i);
          if (filterModel.containsKey(id)) {
            assertThat(filter.get(i))
                .as("seed %d step %d filter false negative", seed, step)
                .isEqualTo("duplicate");
          } else if (filter.get(i).equals("new")) {
            filterModel.put(id, new Held(owner, slice));
          }
          Held inRecent = recentModel.get(id);
          switch (recent.get(i)) {
            case "new" -> recentModel.put(id, new Held(owner, slice));
            case "retry" -> {
              assertThat(inRecent)
                  .as("seed %d step %d recent false positive", seed, step)
                  .isNotNull();
              assertThat(inRecent.owner()).isEqualTo(owner);
            }
            default ->
                assertThat(inRecent)
                    .as("seed %d step %d recent false positive", seed, step)
                    .isNotNull();
          }
        }
        model = after;
      }
    }
  }

  private static List<String> statuses(Reply reply) {
    List<String> out = new ArrayList<>();
    for (Reply item : ((Reply.Array) reply).items()) {
      Reply status = ((Reply.Array) item).items().getFirst();
      out.add(((Reply.Simple) status).text());
    }
    return out;
  }

  static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
