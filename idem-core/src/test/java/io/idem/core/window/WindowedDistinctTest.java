package io.idem.core.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.hash.Hash128;
import io.idem.core.sketch.HyperLogLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Windowed distinct counts against the exact sets they estimate: a window's estimate is exactly
 * that of one sketch of the window's members, and within three standard errors of their number.
 */
class WindowedDistinctTest {

  private static final long M = 60_000;
  private static final long H = 60 * M;
  private static final long D = 24 * H;
  private static final Hash128 HASH = new Hash128();

  private record Event(int name, long member, long time, boolean[] countedAt) {}

  private static byte[] name(int i) {
    return ("ip-" + i).getBytes(StandardCharsets.UTF_8);
  }

  private static long hash(long member) {
    return HASH.hashLong(member).h1();
  }

  @Test
  void estimatesAreTheSketchOfTheWindowsMembers_underLateEventsAndDrops() throws IOException {
    for (long seed = 1; seed <= 4; seed++) {
      SplittableRandom r = new SplittableRandom(seed);
      List<Resolution> res = List.of(new Resolution(M, 3 * H), new Resolution(H, 2 * D));
      int p = seed % 2 == 0 ? 12 : 14;
      WindowedDistinct t = new WindowedDistinct(res, p, new int[] {0, 8, 4096}[(int) seed % 3]);
      MemoryRows store = new MemoryRows();
      List<Event> events = new ArrayList<>();
      long now = 1_700_000_000_000L + r.nextLong(D);
      int names = 1 + r.nextInt(6);
      int checks = 0;
      int within = 0;
      for (int step = 0; step < 6000; step++) {
        now += r.nextLong(10_000);
        if (r.nextInt(100) == 0) {
          store.drop(t.drop(now));
        }
        long time =
            switch (r.nextInt(10)) {
              case 0 -> now - r.nextLong(3 * D);
              case 1, 2 -> now - r.nextLong(4 * H);
              case 3 -> now + r.nextLong(H);
              default -> now - r.nextLong(M);
            };
        int n = r.nextInt(names);
        // Members repeat: a few thousand users across all names.
        long member = r.nextLong(r.nextBoolean() ? 50 : 5000);
        boolean[] at = new boolean[res.size()];
        int keeping = 0;
        for (int i = 0; i < res.size(); i++) {
          at[i] = res.get(i).bucket(time) >= res.get(i).firstKept(now);
          keeping += at[i] ? 1 : 0;
        }
        assertThat(t.keeping(time, now)).isEqualTo(keeping);
        WindowedDistinct.Additions add = t.additions(store::get, now);
        boolean rose = add.add(name(n), time, hash(member));
        assertThat(add.changedAny()).isEqualTo(rose);
        if (keeping == 0) {
          assertThat(rose).isFalse();
        }
        add.writeTo(store);
        events.add(new Event(n, member, time, at));

        if (step % 50 == 0) {
          long[] windows = {M, 30 * M, H, 3 * H, 6 * H, D, 2 * D, 7 * M, 90_000};
          long end = now - (r.nextBoolean() ? 0 : r.nextLong(2 * H));
          List<Long> kept = new ArrayList<>();
          List<Integer> keptRes = new ArrayList<>();
          for (long w : windows) {
            int chosen = t.resolve(w, end, now);
            if (chosen >= 0) {
              kept.add(w);
              keptRes.add(chosen);
            }
          }
          long[] ms = kept.stream().mapToLong(Long::longValue).toArray();
          int[] rs = keptRes.stream().mapToInt(Integer::intValue).toArray();
          int q = r.nextInt(names);
          double[][] got =
              t.estimates(store::get, new byte[][] {name(q), name(q + 1)}, ms, rs, end);
          for (int w = 0; w < ms.length; w++) {
            Resolution rr = res.get(rs[w]);
            long last = rr.bucket(end);
            long first = last - ms[w] / rr.bucketMillis() + 1;
            Set<Long> members = new HashSet<>();
            HyperLogLog direct = HyperLogLog.create(p);
            for (Event e : events) {
              long b = rr.bucket(e.time());
              if (e.name() == q && e.countedAt()[rs[w]] && b >= first && b <= last) {
                members.add(e.member());
                direct.add(hash(e.member()));
              }
            }
            String where = "seed " + seed + " step " + step + " window " + ms[w];
            assertThat(got[0][w]).as(where).isEqualTo(direct.estimate());
            // The sketch's own error (HyperLogLogTest measures it): 3 standard errors for nearly
            // every window, and none past 5.
            double error = Math.abs(got[0][w] - members.size());
            double sigma = t.relativeStandardError() * members.size();
            assertThat(error).as(where).isLessThanOrEqualTo(5 * sigma + 2);
            checks++;
            within += error <= 3 * sigma + 1 ? 1 : 0;
          }
          if (names <= q + 1) {
            assertThat(got[1]).containsOnly(0.0);
          }
        }
      }
      assertThat((double) within / checks).isGreaterThanOrEqualTo(0.99);
      // Drops took every row past its retention.
      store.drop(t.drop(now));
      for (byte[] key : store.rows.keySet()) {
        int resolution = key[0];
        long bucket =
            ((key[1] & 0xFFL) << 24)
                | ((key[2] & 0xFF) << 16)
                | ((key[3] & 0xFF) << 8)
                | (key[4] & 0xFF);
        assertThat(bucket).isGreaterThanOrEqualTo(res.get(resolution).firstKept(now));
      }
    }
  }

  @Test
  void aMemberAddedTwiceRaisesNothing_andManyBucketsUnionToOneSketchsError() throws IOException {
    WindowedDistinct t =
        new WindowedDistinct(List.of(new Resolution(M, 2 * H), new Resolution(H, 8 * D)), 14, 0);
    MemoryRows store = new MemoryRows();
    long now = 1_700_000_000_000L;
    WindowedDistinct.Additions a = t.additions(store::get, now);
    assertThat(a.add(name(1), now, hash(7))).isTrue();
    assertThat(a.add(name(1), now, hash(7))).isFalse();
    a.writeTo(store);
    assertThat(store.rows).hasSize(2); // one row a resolution
    WindowedDistinct.Additions again = t.additions(store::get, now);
    assertThat(again.add(name(1), now, hash(7))).isFalse();
    assertThat(again.changedAny()).isFalse();
    // 100 k members, each seen in many hours of a week: the week counts each once.
    WindowedDistinct.Additions week = t.additions(store::get, now);
    for (long i = 0; i < 200_000; i++) {
      week.add(name(2), now - (i % 168) * H, hash(i % 100_000));
    }
    week.writeTo(store);
    double[] got =
        t.estimates(
                store::get, new byte[][] {name(2)}, new long[] {7 * D, H}, new int[] {1, 1}, now)[
            0];
    assertThat(got[0]).isBetween(100_000 * (1 - 3 * 0.0081), 100_000 * (1 + 3 * 0.0081));
    // The last hour holds every member whose i % 168 was 0.
    long lastHour = 0;
    Set<Long> seen = new HashSet<>();
    for (long i = 0; i < 200_000; i += 168) {
      if (seen.add(i % 100_000)) {
        lastHour++;
      }
    }
    assertThat(got[1]).isBetween(lastHour * (1 - 3 * 0.0081), lastHour * (1 + 3 * 0.0081));
  }

  @Test
  void limits_andCorruptRows() throws IOException {
    assertThatThrownBy(() -> new WindowedDistinct(List.of(new Resolution(30_000, H)), 14, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a distinct table's bucket must be at least 1m");
    assertThatThrownBy(() -> new WindowedDistinct(List.of(new Resolution(M, H)), 3, 0))
        .isInstanceOf(IllegalArgumentException.class);
    WindowedDistinct t = new WindowedDistinct(List.of(new Resolution(M, H)), 12, 0);
    long now = 1_700_000_000_000L;
    MemoryRows store = new MemoryRows();
    store.rows.put(WindowedTable.rowKey(0, now / M, name(1)), new byte[] {12, 9});
    assertThatThrownBy(() -> t.additions(store::get, now).add(name(1), now, 5))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("encoding 9");
    store.rows.put(WindowedTable.rowKey(0, now / M, name(1)), new byte[] {14, 1});
    assertThatThrownBy(
            () ->
                t.estimates(store::get, new byte[][] {name(1)}, new long[] {M}, new int[] {0}, now))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("precision 14, the table's is 12");
  }
}
