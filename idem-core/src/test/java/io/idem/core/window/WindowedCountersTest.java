package io.idem.core.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Windowed counters against a naive model, and their bucket, retention and drop rules. */
class WindowedCountersTest {

  private static final long S = 1000;
  private static final long M = 60 * S;
  private static final long H = 60 * M;
  private static final long D = 24 * H;

  private record Event(int name, long time, long delta, boolean[] countedAt) {}

  private static byte[] name(int i) {
    return ("name-" + i).getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void nextDropAt_isTheFirstTimeADropIsDue_asDropsMoveIt() {
    for (long seed = 1; seed <= 20; seed++) {
      SplittableRandom r = new SplittableRandom(seed);
      List<Resolution> res =
          List.of(
              new Resolution((1 + r.nextInt(30)) * S, (1 + r.nextInt(60)) * M),
              new Resolution(M, (2 + r.nextInt(5)) * H));
      WindowedCounters c = new WindowedCounters(res, new int[] {0, 8, 4096}[(int) seed % 3]);
      long now = 1_700_000_000_000L + r.nextLong(D);
      c.startAt(now);
      for (int step = 0; step < 200; step++) {
        long at = c.nextDropAt();
        assertThat(at).isGreaterThan(now);
        assertThat(c.dropDue(at - 1)).isFalse();
        assertThat(c.dropDue(at)).isTrue();
        long probe = now + r.nextLong(Math.max(1, 2 * (at - now)));
        assertThat(c.dropDue(probe)).isEqualTo(probe >= at);
        now = r.nextInt(3) == 0 ? at : probe; // sometimes exactly on time, sometimes late or early
        if (c.dropDue(now)) {
          c.drop(now);
        }
      }
    }
  }

  @Test
  void sumsEqualANaiveModel_underRandomTimesAmountsLateEventsAndDrops() throws IOException {
    for (long seed = 1; seed <= 6; seed++) {
      SplittableRandom r = new SplittableRandom(seed);
      List<Resolution> res =
          List.of(new Resolution(10 * S, 20 * M), new Resolution(M, 3 * H), new Resolution(H, D));
      // Without a row cache, with a tiny one (rows evict each other), and with a roomy one.
      WindowedCounters c = new WindowedCounters(res, new int[] {0, 8, 4096}[(int) seed % 3]);
      MemoryRows store = new MemoryRows();
      List<Event> events = new ArrayList<>();
      long now = 1_700_000_000_000L + r.nextLong(D);
      int names = 1 + r.nextInt(20);
      for (int step = 0; step < 3000; step++) {
        now += r.nextLong(20 * S);
        if (r.nextInt(50) == 0) {
          store.drop(c.drop(now));
        }
        // Mostly now, some late (some past every retention), a few ahead.
        long time =
            switch (r.nextInt(10)) {
              case 0 -> now - r.nextLong(2 * D);
              case 1, 2 -> now - r.nextLong(4 * H);
              case 3 -> now + r.nextLong(H);
              default -> now - r.nextLong(M);
            };
        int n = r.nextInt(names);
        long delta = r.nextInt(7) == 0 ? -r.nextLong(1, 5) : r.nextLong(1, 1000);
        boolean[] at = new boolean[res.size()];
        int keeping = 0;
        for (int i = 0; i < res.size(); i++) {
          at[i] = res.get(i).bucket(time) >= res.get(i).firstKept(now);
          keeping += at[i] ? 1 : 0;
        }
        assertThat(c.keeping(time, now)).isEqualTo(keeping);
        WindowedCounters.Increments inc = c.increments(store.rows::get, now);
        inc.add(name(n), time, delta);
        inc.writeTo(store);
        events.add(new Event(n, time, delta, at));

        if (step % 10 == 0) {
          long[] windows = {10 * S, M, 20 * M, H, 3 * H, 6 * H, D, 7 * M, 90 * S};
          long end = now - (r.nextBoolean() ? 0 : r.nextLong(2 * H));
          int[] chosen = new int[windows.length];
          List<Long> kept = new ArrayList<>();
          List<Integer> keptRes = new ArrayList<>();
          for (int w = 0; w < windows.length; w++) {
            chosen[w] = c.resolve(windows[w], end, now);
            if (chosen[w] >= 0) {
              kept.add(windows[w]);
              keptRes.add(chosen[w]);
            }
          }
          long[] ms = kept.stream().mapToLong(Long::longValue).toArray();
          int[] rs = keptRes.stream().mapToInt(Integer::intValue).toArray();
          // One name alone, or up to three in one call (rows name-major); the last may be a name
          // never incremented.
          int q = r.nextInt(names);
          int asked = 1 + r.nextInt(3);
          byte[][] askedNames = new byte[asked][];
          for (int a = 0; a < asked; a++) {
            askedNames[a] = name(q + a);
          }
          long[] sums =
              asked == 1 && r.nextBoolean()
                  ? c.sums(store.rows::get, name(q), ms, rs, end)
                  : c.sums(store.rows::get, askedNames, ms, rs, end);
          assertThat(sums).hasSize(asked * ms.length);
          for (int a = 0; a < asked; a++) {
            for (int w = 0; w < ms.length; w++) {
              Resolution rr = res.get(rs[w]);
              long last = rr.bucket(end);
              long first = last - ms[w] / rr.bucketMillis() + 1;
              long expected = 0;
              for (Event e : events) {
                long b = rr.bucket(e.time());
                if (e.name() == q + a && e.countedAt()[rs[w]] && b >= first && b <= last) {
                  expected += e.delta();
                }
              }
              assertThat(sums[a * ms.length + w])
                  .as(
                      "seed %d step %d name %d window %d at resolution %d",
                      seed, step, q + a, ms[w], rs[w])
                  .isEqualTo(expected);
            }
          }
        }
      }
      // Drops took every row that holds only buckets past their retention.
      store.drop(c.drop(now));
      for (byte[] key : store.rows.keySet()) {
        int ri = key[0];
        long epoch = Integer.toUnsignedLong(java.nio.ByteBuffer.wrap(key, 1, 4).getInt());
        long lastBucket = epoch * WindowedCounters.SLOTS + WindowedCounters.SLOTS - 1;
        assertThat(lastBucket).isGreaterThanOrEqualTo(res.get(ri).firstKept(now));
      }
    }
  }

  @Test
  void resolve_picksTheFinestResolutionThatDividesAndStillKeepsTheWindow() {
    WindowedCounters c =
        new WindowedCounters(List.of(new Resolution(M, 2 * H), new Resolution(H, 8 * D)));
    long now = 1_700_000_000_000L;
    assertThat(c.resolve(H, now, now)).isEqualTo(0);
    assertThat(c.resolve(2 * H, now, now)).isEqualTo(0);
    assertThat(c.resolve(3 * H, now, now)).isEqualTo(1);
    assertThat(c.resolve(D, now, now)).isEqualTo(1);
    assertThat(c.resolve(7 * D, now, now)).isEqualTo(1);
    assertThat(c.resolve(90 * S, now, now)).isEqualTo(WindowedCounters.NO_RESOLUTION);
    assertThat(c.resolve(9 * D, now, now)).isEqualTo(WindowedCounters.NO_RESOLUTION);
    // An hour ending 90 minutes ago reaches past the minutes' two hours: hours take it.
    assertThat(c.resolve(H, now - 90 * M, now)).isEqualTo(1);
    assertThat(c.resolve(7 * D, now - 2 * D, now)).isEqualTo(WindowedCounters.NOT_KEPT);
    // Ending in the future is fine.
    assertThat(c.resolve(H, now + D, now)).isEqualTo(0);
  }

  @Test
  void aWindowIsWholeBucketsEndingWithTheOneHoldingItsEnd() throws IOException {
    WindowedCounters c = new WindowedCounters(List.of(new Resolution(M, 2 * H)));
    MemoryRows store = new MemoryRows();
    long t0 = 1_700_000_080_000L; // 40 s into a minute
    long minute = Math.floorDiv(t0, M) * M;
    WindowedCounters.Increments inc = c.increments(store.rows::get, t0);
    inc.add(name(1), minute - H, 1); // the minute an hour before: outside
    inc.add(name(1), minute - H + M, 10); // the first minute inside
    inc.add(name(1), minute + 59 * S, 100); // the end's own minute, later in it: inside
    inc.writeTo(store);
    long[] sums = c.sums(store.rows::get, name(1), new long[] {H, M}, new int[] {0, 0}, t0);
    assertThat(sums).containsExactly(110, 100);
  }

  @Test
  void eventsPastEveryRetentionAreNotKept_andDroppedRowsTakeNoMore() throws IOException {
    WindowedCounters c =
        new WindowedCounters(List.of(new Resolution(M, 2 * H), new Resolution(H, 8 * D)));
    long now = 1_700_000_000_000L;
    assertThat(c.keeping(now, now)).isEqualTo(2);
    assertThat(c.keeping(now - 3 * H, now)).isEqualTo(1);
    assertThat(c.keeping(now - 9 * D, now)).isZero();

    MemoryRows store = new MemoryRows();
    WindowedCounters.Increments inc = c.increments(store.rows::get, now);
    inc.add(name(1), now - 100 * M, 5);
    inc.writeTo(store);
    assertThat(store.rows).hasSize(2);
    // Two days later the minute row is past its retention, the hour row is not. The first drop
    // has a range for each resolution, from epoch 0: it also takes what an earlier run left.
    long later = now + 2 * D;
    List<byte[][]> ranges = c.drop(later);
    assertThat(ranges).hasSize(2);
    assertThat(ranges.get(0)[0]).containsExactly(0, 0, 0, 0, 0);
    assertThat(ranges.get(1)[0]).containsExactly(1, 0, 0, 0, 0);
    store.drop(ranges);
    assertThat(store.rows.keySet())
        .singleElement()
        .satisfies(k -> assertThat(k[0]).isEqualTo((byte) 1));
    WindowedCounters.Increments late = c.increments(store.rows::get, later);
    late.add(name(1), now - 100 * M, 1);
    late.writeTo(store);
    assertThat(store.rows).hasSize(1);
    assertThat(c.drop(later)).isEmpty();
    assertThat(c.droppedBelow(0)).isEqualTo(Math.floorDiv(Math.floorDiv(later - 2 * H, M), 64));
  }

  @Test
  void increments_areAllOrNothing_anOverflowWritesNothing() throws IOException {
    WindowedCounters c = new WindowedCounters(List.of(new Resolution(M, H)));
    MemoryRows store = new MemoryRows();
    long now = 1_700_000_000_000L;
    WindowedCounters.Increments inc = c.increments(store.rows::get, now);
    inc.add(name(1), now, Long.MAX_VALUE);
    inc.writeTo(store);
    WindowedCounters.Increments next = c.increments(store.rows::get, now);
    next.add(name(2), now, 1);
    assertThatThrownBy(() -> next.add(name(1), now, 1)).isInstanceOf(ArithmeticException.class);
    // The caller drops `next`: the store is as it was.
    assertThat(store.rows).hasSize(1);
    // A count back to zero deletes its row.
    WindowedCounters.Increments back = c.increments(store.rows::get, now);
    back.add(name(1), now, -Long.MAX_VALUE);
    back.writeTo(store);
    assertThat(store.rows).isEmpty();
  }

  @Test
  void sumsThatOverflowThrow() throws IOException {
    WindowedCounters c = new WindowedCounters(List.of(new Resolution(M, H)));
    MemoryRows store = new MemoryRows();
    long now = 1_700_000_000_000L;
    WindowedCounters.Increments inc = c.increments(store.rows::get, now);
    inc.add(name(1), now, Long.MAX_VALUE);
    inc.add(name(1), now - M, 1);
    inc.writeTo(store);
    assertThatThrownBy(() -> c.sums(store.rows::get, name(1), new long[] {H}, new int[] {0}, now))
        .isInstanceOf(ArithmeticException.class);
  }

  @Test
  void resolutionsAreChecked() {
    assertThat(Resolution.problem(500, H)).contains("whole number of seconds");
    assertThat(Resolution.problem(1500, H)).contains("whole number of seconds");
    assertThat(Resolution.problem(H, M)).contains("retention");
    assertThat(Resolution.problem(S, 3651 * D)).contains("retention");
    assertThat(Resolution.problem(S, 2 * D)).contains("at most 131072 buckets");
    assertThat(Resolution.problem(M, 8 * D)).isNull();
    assertThatThrownBy(
            () -> new WindowedCounters(List.of(new Resolution(H, D), new Resolution(M, H))))
        .hasMessageContaining("finest to coarsest");
    assertThatThrownBy(() -> new WindowedCounters(List.of())).hasMessageContaining("from 1 to 8");
  }
}
