package io.idem.core.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.dedup.DedupTable.Claimed;
import io.idem.core.dedup.DedupTable.Mode;
import io.idem.core.dedup.DedupTable.Params;
import io.idem.core.filter.BloomFilter;
import io.idem.core.store.RowChange;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The three modes against a naive model of the window, with no server: random claims, releases,
 * event times (late, early, in the future), a clock that jumps, and an exact table's background
 * write whole or in steps with calls between them. EXACT answers exactly as the model; FILTER never
 * calls a claimed id new (no false negatives); RECENT never calls an unclaimed id a duplicate or a
 * retry (no false positives). Every table made again from its recipe and its recorded operations
 * answers as the live one. Fixed seeds.
 */
class DedupTableTest {

  private static final long WINDOW = 8 * 3_600_000L;
  private static final long SLICE = WINDOW / 8;

  /** The model: who holds each id and the slice it was claimed into. */
  private record Held(String owner, long slice) {}

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A table and its store. */
  private record Table(DedupTable t, MemoryClaimStore store, byte[] recipe) {
    static Table of(Params p, long now) {
      long created = TimeSlices.createdAt(p, now);
      return new Table(
          DedupTable.create(p, created), new MemoryClaimStore(), DedupSnapshot.recipe(p, created));
    }

    List<String> claim(List<String> idsAndOwners, long at, long now) {
      int n = idsAndOwners.size() / 2;
      byte[][] ids = new byte[n][];
      byte[][] owners = new byte[n][];
      for (int i = 0; i < n; i++) {
        ids[i] = b(idsAndOwners.get(2 * i));
        owners[i] = b(idsAndOwners.get(2 * i + 1));
      }
      long[] times = new long[n];
      Arrays.fill(times, at);
      List<Claimed> out = t.claim(store, DedupTable.Ids.of(ids), owners, times, now, x -> true);
      return out.stream().map(c -> c.outcome().name().toLowerCase(java.util.Locale.ROOT)).toList();
    }

    boolean release(String id, String owner, long now) {
      return t.release(store, b(id), b(owner), now);
    }

    /** The table made again from its recipe and what it recorded, over the same rows. */
    DedupTable replayed() throws IOException {
      DedupTable back = DedupSnapshot.fromRecipe(recipe, BloomFilter.Storage.HEAP);
      for (MemoryClaimStore.Op op : store.ops) {
        DedupOps.replay(back, op.op(), op.payload());
      }
      return back;
    }
  }

  @Test
  void exactFilterAndRecent_againstTheModel() throws IOException {
    for (long seed = 1; seed <= 120; seed++) {
      run(seed);
    }
  }

  private static void run(long seed) throws IOException {
    Random r = new Random(seed);
    long now = 1_700_000_000_000L + r.nextInt(1_000_000);
    Table e = Table.of(new Params(Mode.EXACT, WINDOW, 8, 1_000_000, 0.01, 0), now);
    Table f = Table.of(new Params(Mode.FILTER, WINDOW, 8, 100, 0.01, 0), now);
    Table rt = Table.of(new Params(Mode.RECENT, WINDOW, 8, 1_000_000, 0.01, 64), now);
    ExactTable exact = (ExactTable) e.t();
    Map<String, Held> model = new HashMap<>();
    Map<String, Held> filterModel = new HashMap<>();
    Map<String, Held> recentModel = new HashMap<>();
    List<RowChange> writing = null; // a background write started and not finished
    for (int step = 0; step < 400; step++) {
      long floor = Math.floorDiv(now - WINDOW, SLICE);
      model.values().removeIf(held -> held.slice() < floor);
      filterModel.values().removeIf(held -> held.slice() < floor);
      recentModel.values().removeIf(held -> held.slice() < floor);
      int what = r.nextInt(12);
      if (what == 10) {
        // The background, whole or in steps with calls between them.
        if (writing != null) {
          e.store().apply(writing);
          e.store().record(DedupOps.ROWS, new byte[0], exact.finishFlush());
          writing = null;
        } else if (r.nextBoolean()) {
          e.t().advance(e.store(), now);
          e.store().flush(exact, now);
        } else {
          writing = exact.startFlush(now, true);
        }
      } else if (what == 11) {
        continue;
      } else if (what == 0) {
        now += r.nextInt(4) == 0 ? r.nextLong(3 * WINDOW) : r.nextLong(SLICE);
      } else if (what == 1) {
        String id = "id" + r.nextInt(40);
        String owner = "o" + r.nextInt(3);
        Held held = model.get(id);
        boolean mine = held != null && held.owner().equals(owner);
        assertThat(e.release(id, owner, now))
            .as("seed %d step %d release %s", seed, step, id)
            .isEqualTo(mine);
        if (mine) {
          model.remove(id);
        }
        Held inRecent = recentModel.get(id);
        if (rt.release(id, owner, now)) {
          assertThat(inRecent).as("seed %d step %d recent released %s", seed, step, id).isNotNull();
          assertThat(inRecent.owner()).isEqualTo(owner);
          recentModel.remove(id);
        }
      } else {
        int n = 1 + r.nextInt(r.nextBoolean() ? 4 : 16); // 8 and more: the batch path
        long at = now + (r.nextInt(3) == 0 ? -r.nextLong(2 * WINDOW) : r.nextLong(SLICE)) - SLICE;
        List<String> pairs = new java.util.ArrayList<>();
        List<String> expected = new java.util.ArrayList<>();
        Map<String, Held> after = new HashMap<>(model);
        long t = Math.min(Math.max(at, now - WINDOW), now);
        long slice = Math.floorDiv(t, SLICE);
        for (int i = 0; i < n; i++) {
          String id = "id" + r.nextInt(40);
          String owner = "o" + r.nextInt(3);
          pairs.add(id);
          pairs.add(owner);
          Held held = after.get(id);
          if (held == null) {
            after.put(id, new Held(owner, slice));
            expected.add("new");
          } else {
            expected.add(held.owner().equals(owner) ? "retry" : "duplicate");
          }
        }
        assertThat(e.claim(pairs, at, now))
            .as("seed %d step %d exact %s", seed, step, pairs)
            .isEqualTo(expected);
        List<String> filter = f.claim(pairs, at, now);
        List<String> recent = rt.claim(pairs, at, now);
        for (int i = 0; i < n; i++) {
          String id = pairs.get(2 * i);
          String owner = pairs.get(2 * i + 1);
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
    if (writing != null) {
      e.store().apply(writing);
      e.store().record(DedupOps.ROWS, new byte[0], exact.finishFlush());
    }
    for (Table table : List.of(e, f, rt)) {
      DedupTable back = table.replayed();
      for (int i = 0; i < 40; i++) {
        byte[] id = b("id" + i);
        assertThat(back.contains(table.store(), id, now))
            .as("seed %d replayed %s id%d", seed, table.t().params().mode(), i)
            .isEqualTo(table.t().contains(table.store(), id, now));
      }
      assertThat(back.items()).isEqualTo(table.t().items());
      if (!(table.t() instanceof ExactTable)) {
        assertThat(snapshot(back)).isEqualTo(snapshot(table.t()));
      }
    }
  }

  @Test
  void aClaimPastTheBudget_isRefused_andTheClaimsBeforeItStay() {
    Table f = Table.of(new Params(Mode.FILTER, WINDOW, 8, 100, 0.01, 0), 1_700_000_000_000L);
    long now = 1_700_000_000_000L;
    // The first claim makes the slice; the budget then refuses the next slice.
    long[] allowed = {1};
    byte[][] ids = {b("a"), b("b")};
    long[] times = {now, now - 3 * SLICE};
    try {
      f.t()
          .claim(
              f.store(),
              DedupTable.Ids.of(ids),
              new byte[][] {b(""), b("")},
              times,
              now,
              bytes -> allowed[0]-- > 0);
      throw new AssertionError("a claim past the budget was made");
    } catch (TableFullException expected) {
      assertThat(expected.reason()).isEqualTo(TableFullException.Reason.MEMORY);
    }
    assertThat(f.t().contains(f.store(), b("a"), now)).isTrue();
    assertThat(f.t().contains(f.store(), b("b"), now)).isFalse();
    assertThat(f.store().ops).hasSize(1); // the claim made was recorded
  }

  @Test
  void filterTables_keepNoOwners() {
    Table f = Table.of(new Params(Mode.FILTER, WINDOW, 8, 100, 0.01, 0), 1_700_000_000_000L);
    assertThat(f.t().releases()).isFalse();
    long now = 1_700_000_000_000L;
    assertThat(f.claim(List.of("x", "o1", "x", "o1"), now, now))
        .containsExactly("new", "duplicate");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> f.release("x", "o1", now))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  /** Logs and changelogs hold these numbers: they never change meaning. */
  @Test
  void operationNumbers_arePinned() {
    assertThat(List.of(DedupOps.CLAIM, DedupOps.RELEASE, DedupOps.ADVANCE, DedupOps.ROWS))
        .containsExactly((byte) 1, (byte) 2, (byte) 3, (byte) 4);
  }

  static byte[] snapshot(DedupTable t) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    DedupSnapshot.write(t, out, true);
    return out.toByteArray();
  }
}
