package io.idem.core.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.format.Golden;
import java.io.IOException;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The row format: pinned bytes, round trips, and what a reader refuses. */
class CounterRowTest {

  private static long[] counts(long... slotAndCount) {
    long[] c = new long[WindowedCounters.SLOTS];
    for (int i = 0; i < slotAndCount.length; i += 2) {
      c[(int) slotAndCount[i]] = slotAndCount[i + 1];
    }
    return c;
  }

  @Test
  void format1_isPinned() throws IOException {
    long[] c = counts(0, 1, 1, -1, 7, 300, 62, Long.MIN_VALUE, 63, Long.MAX_VALUE);
    byte[] row = CounterRow.encode(c);
    Golden.assertMatches("counter-row-v1.bin", row);
    // slot 0 count 1 is zigzag 2: two bytes; a name seen once costs that.
    assertThat(CounterRow.encode(counts(0, 1))).containsExactly(0, 2);
    long[] back = new long[WindowedCounters.SLOTS];
    CounterRow.decode(Golden.read("counter-row-v1.bin"), back);
    assertThat(back).containsExactly(c);
  }

  @Test
  void randomRows_roundTrip() throws IOException {
    SplittableRandom r = new SplittableRandom(5);
    long[] back = new long[WindowedCounters.SLOTS];
    for (int i = 0; i < 20_000; i++) {
      long[] c = new long[WindowedCounters.SLOTS];
      int n = r.nextInt(WindowedCounters.SLOTS + 1);
      for (int j = 0; j < n; j++) {
        c[r.nextInt(WindowedCounters.SLOTS)] =
            switch (r.nextInt(3)) {
              case 0 -> r.nextLong();
              case 1 -> r.nextLong(-300, 300);
              default -> r.nextLong(1, 1L << r.nextInt(1, 63));
            };
      }
      byte[] row = CounterRow.encode(c);
      if (row == null) {
        assertThat(c).containsOnly(0);
        continue;
      }
      assertThat(row.length).isLessThanOrEqualTo(CounterRow.MAX_BYTES);
      CounterRow.decode(row, back);
      assertThat(back).containsExactly(c);
    }
    assertThat(CounterRow.encode(new long[WindowedCounters.SLOTS])).isNull();
  }

  @Test
  void decode_refusesWhatIsNotARow() {
    long[] into = new long[WindowedCounters.SLOTS];
    byte[][] bad = {
      {},
      {64, 2},
      {3, 2, 3, 4},
      {3, 2, 2, 4},
      {3},
      {3, (byte) 0x82},
      {3, 0},
      {3, (byte) 0x82, 0},
      {
        3,
        (byte) 0xFF,
        (byte) 0xFF,
        (byte) 0xFF,
        (byte) 0xFF,
        (byte) 0xFF,
        (byte) 0xFF,
        (byte) 0xFF,
        (byte) 0xFF,
        (byte) 0xFF,
        2
      },
      new byte[CounterRow.MAX_BYTES + 1],
    };
    for (byte[] b : bad) {
      assertThatThrownBy(() -> CounterRow.decode(b, into))
          .as("%s", java.util.Arrays.toString(b))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("counter row");
      // A sum checks the whole row, not only the slots it adds.
      assertThatThrownBy(() -> CounterRow.sum(b, 0, 0, 0))
          .as("%s", java.util.Arrays.toString(b))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("counter row");
    }
  }

  @Test
  void sum_refusesAPartialSumThatOverflows_butABadRowFirst() throws IOException {
    byte[] row = CounterRow.encode(counts(0, Long.MAX_VALUE, 1, 1, 2, -2));
    // MAX + 1 overflows before -2 would bring it back: refused, as adding bucket by bucket was.
    assertThatThrownBy(() -> CounterRow.sum(row, 0, 2, 0)).isInstanceOf(ArithmeticException.class);
    assertThat(CounterRow.sum(row, 1, 2, 0)).isEqualTo(-1);
    assertThat(CounterRow.sum(row, 0, 0, -1)).isEqualTo(Long.MAX_VALUE - 1);
    // A row that overflows the sum and then stops being a row: the bad row is what is reported.
    byte[] bad = java.util.Arrays.copyOf(row, row.length + 2);
    bad[row.length] = 1; // slot 1 again, after slot 2
    bad[row.length + 1] = 2;
    assertThatThrownBy(() -> CounterRow.sum(bad, 0, 63, 1)).isInstanceOf(IOException.class);
  }

  @Test
  void sum_addsTheDecodedCountsOfItsSlots_inSlotOrder() throws IOException {
    SplittableRandom r = new SplittableRandom(13);
    long[] back = new long[WindowedCounters.SLOTS];
    int overflows = 0;
    for (int i = 0; i < 20_000; i++) {
      long[] c = new long[WindowedCounters.SLOTS];
      for (int j = r.nextInt(1, 20); j > 0; j--) {
        c[r.nextInt(WindowedCounters.SLOTS)] =
            r.nextBoolean() ? r.nextLong(-1000, 1000) : r.nextLong() >> r.nextInt(64);
      }
      byte[] row = CounterRow.encode(c);
      if (row == null) {
        continue;
      }
      CounterRow.decode(row, back);
      int from = r.nextInt(WindowedCounters.SLOTS);
      int to = r.nextInt(from, WindowedCounters.SLOTS);
      long acc = r.nextLong(-1_000_000, 1_000_000);
      Long expected = acc;
      try {
        for (int s = from; s <= to; s++) {
          expected = Math.addExact(expected, back[s]);
        }
      } catch (ArithmeticException overflow) {
        expected = null;
      }
      if (expected == null) {
        overflows++;
        assertThatThrownBy(() -> CounterRow.sum(row, from, to, acc))
            .isInstanceOf(ArithmeticException.class);
      } else {
        assertThat(CounterRow.sum(row, from, to, acc)).isEqualTo(expected);
      }
    }
    assertThat(overflows).isPositive().isLessThan(20_000 / 2);
  }

  @Test
  void randomBytes_decodeOrThrowIOException() {
    SplittableRandom r = new SplittableRandom(9);
    long[] into = new long[WindowedCounters.SLOTS];
    int decoded = 0;
    for (int i = 0; i < 200_000; i++) {
      byte[] b = new byte[r.nextInt(1, 24)];
      for (int j = 0; j < b.length; j++) {
        b[j] = (byte) (j % 2 == 0 ? r.nextInt(70) : r.nextInt(256));
      }
      try {
        CounterRow.decode(b, into);
        decoded++;
        // What decodes encodes back to the same bytes: one spelling per row.
        assertThat(CounterRow.encode(into)).containsExactly(b);
      } catch (IOException expected) {
        assertThat(expected.getMessage()).contains("counter row");
      }
    }
    assertThat(decoded).isPositive();
  }
}
