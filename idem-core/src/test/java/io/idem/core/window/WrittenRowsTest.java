package io.idem.core.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The writers' rows against a map of what was last written: never a stale row, bytes bounded. */
class WrittenRowsTest {

  @Test
  void aHitIsAlwaysTheLastRowWritten_andTheBytesStayWithinTheBudget() {
    for (long seed = 1; seed <= 12; seed++) {
      SplittableRandom r = new SplittableRandom(seed);
      int slots = 4 << r.nextInt(5);
      long budget = WrittenRows.SLOT_BYTES * slots + 50 + r.nextInt(4000);
      WrittenRows w = new WrittenRows(slots, budget);
      Map<String, byte[]> last = new HashMap<>();
      int keys = 1 + r.nextInt(4 * slots);
      int hits = 0;
      for (int step = 0; step < 20_000; step++) {
        String k = "row-" + r.nextInt(keys);
        byte[] key = k.getBytes(StandardCharsets.UTF_8);
        switch (r.nextInt(10)) {
          case 0 -> {
            w.clear();
            last.clear();
          }
          case 1, 2, 3, 4 -> {
            byte[] row =
                r.nextInt(8) == 0 ? null : new byte[1 + r.nextInt(r.nextInt(5) == 0 ? 400 : 8)];
            if (row != null) {
              r.nextBytes(row);
            }
            w.put(key.clone(), row);
            last.put(k, row);
          }
          default -> {
            Object got = w.get(key);
            if (got != RowCache.MISS) {
              hits++;
              assertThat(last).containsKey(k);
              assertThat((byte[]) got).isEqualTo(last.get(k));
            }
          }
        }
        assertThat(w.bytes()).isLessThanOrEqualTo(budget);
      }
      assertThat(hits).as("seed %d: some reads hit", seed).isPositive();
    }
  }

  @Test
  void theBytesCountTheRowsHeld() {
    WrittenRows w = new WrittenRows(8, 1 << 20);
    assertThat(w.bytes()).isZero(); // nothing allocated before the first row
    w.put(new byte[] {1, 2}, new byte[10]);
    assertThat(w.bytes()).isEqualTo(8L * WrittenRows.SLOT_BYTES + WrittenRows.ROW_BYTES + 12);
    w.put(new byte[] {1, 2}, new byte[3]);
    assertThat(w.bytes()).isEqualTo(8L * WrittenRows.SLOT_BYTES + WrittenRows.ROW_BYTES + 5);
    w.put(new byte[] {1, 2}, null);
    assertThat(w.get(new byte[] {1, 2})).isNull(); // written as absent: no store read needed
    w.clear();
    assertThat(w.get(new byte[] {1, 2})).isSameAs(RowCache.MISS);
    assertThat(w.bytes()).isEqualTo(8L * WrittenRows.SLOT_BYTES);
    assertThatThrownBy(() -> new WrittenRows(6, 100)).hasMessageContaining("power of two");
  }

  @Test
  void incrementsReadARowFromTheStoreOnce_thenFromWhatTheyWrote() throws Exception {
    long m = 60_000;
    WindowedCounters c =
        new WindowedCounters(
            List.of(new Resolution(m, 120 * m), new Resolution(60 * m, 192 * 60 * m)), 1 << 10);
    MemoryRows store = new MemoryRows();
    int[] reads = {0};
    long now = 1_700_000_000_000L;
    c.startAt(now);
    for (int i = 0; i < 100; i++) {
      WindowedCounters.Increments inc =
          c.increments(
              key -> {
                reads[0]++;
                return store.get(key);
              },
              now);
      inc.add("clicks".getBytes(StandardCharsets.UTF_8), now, 1);
      inc.writeTo(store);
    }
    assertThat(reads[0]).as("one read of each resolution's row").isEqualTo(2);
    long[] sums =
        c.sums(
            store::get,
            "clicks".getBytes(StandardCharsets.UTF_8),
            new long[] {m, 60 * m},
            new int[] {0, 1},
            now);
    assertThat(sums).containsExactly(100, 100);
  }
}
