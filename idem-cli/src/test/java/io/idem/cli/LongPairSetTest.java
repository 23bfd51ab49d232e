package io.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.hash.Hash128;
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
  void add_manyHashes_growsAndKeepsEverythingAtHighLoad() {
    LongPairSet set = new LongPairSet(16);
    Hash128 h = new Hash128();
    for (long i = 1; i <= 200_000; i++) {
      h.hashLong(i);
      assertThat(set.add(h.h1(), h.h2())).isTrue();
    }

    assertThat(set.size()).isEqualTo(200_000);
    // Segments grow by a fifth past 9/10 full: the table stays between 75% and 90% full.
    double load = 200_000.0 / set.slots();
    assertThat(load).isBetween(0.74, 0.9);
    assertThat(set.sizeInBytes()).isEqualTo(set.slots() * 16);
    for (long i = 1; i <= 200_000; i++) {
      h.hashLong(i);
      assertThat(set.add(h.h1(), h.h2())).isFalse();
    }
    assertThat(set.contains(1, 2)).isFalse();
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
  void create_noSlots_throws() {
    assertThatThrownBy(() -> new LongPairSet(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("initial slots (0) must be >= 1");
  }
}
