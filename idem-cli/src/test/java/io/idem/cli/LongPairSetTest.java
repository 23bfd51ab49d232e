package io.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class LongPairSetTest {

  private record Pair(long h1, long h2) {}

  @Property(tries = 200, seed = "20251122")
  void add_randomPairs_matchesHashSet(
      @ForAll @Size(max = 400) List<@LongRange(min = -3, max = 3) Long> highs,
      @ForAll @Size(max = 400) List<@LongRange(min = -2, max = 2) Long> lows) {
    // Few distinct values: many duplicates, the (0, 0) pair, and long probe chains, since pairs
    // sharing h1 share a home slot.
    LongPairSet set = new LongPairSet(2);
    Set<Pair> model = new HashSet<>();
    int n = Math.min(highs.size(), lows.size());
    for (int i = 0; i < n; i++) {
      long h1 = highs.get(i) << 60 | (i % 7);
      long h2 = lows.get(i);
      assertThat(set.add(h1, h2)).isEqualTo(model.add(new Pair(h1, h2)));
    }
    assertThat(set.size()).isEqualTo(model.size());
    for (Pair p : model) {
      assertThat(set.contains(p.h1(), p.h2())).isTrue();
    }
  }

  @Test
  void add_pastThreeQuarters_doublesAndKeepsEverything() {
    LongPairSet set = new LongPairSet(16);
    for (long i = 1; i <= 100_000; i++) {
      assertThat(set.add(i * 0x9E3779B97F4A7C15L, i)).isTrue();
    }

    assertThat(set.size()).isEqualTo(100_000);
    assertThat(set.slots()).isEqualTo(1 << 18); // 100000 > 0.75 * 2^17
    assertThat(set.sizeInBytes()).isEqualTo((1L << 18) * 16);
    for (long i = 1; i <= 100_000; i++) {
      assertThat(set.add(i * 0x9E3779B97F4A7C15L, i)).isFalse();
    }
  }

  @Test
  void add_zeroPair_isAnOrdinaryMember() {
    LongPairSet set = new LongPairSet(2);

    assertThat(set.contains(0, 0)).isFalse();
    assertThat(set.add(0, 0)).isTrue();
    assertThat(set.add(0, 0)).isFalse();
    assertThat(set.contains(0, 0)).isTrue();
    assertThat(set.contains(0, 1)).isFalse();
    assertThat(set.size()).isEqualTo(1);
  }

  @Test
  void create_notAPowerOfTwo_throws() {
    assertThatThrownBy(() -> new LongPairSet(3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("initial slots (3)");
  }
}
