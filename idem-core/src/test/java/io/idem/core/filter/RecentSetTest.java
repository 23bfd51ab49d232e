package io.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.hash.Hash128;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLongArray;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class RecentSetTest {

  @Test
  void add_checksAndAdds() {
    RecentSet s = RecentSet.create(1000);
    Hash128 h = new Hash128().hash("message-1");
    assertThat(s.mightContain(h)).isFalse();
    assertThat(s.add(h)).isTrue();
    assertThat(s.add(h)).isFalse();
    assertThat(s.mightContain(h)).isTrue();
    assertThat(s.itemCount()).isEqualTo(1);
  }

  @Test
  void add_collidingItem_forgetsTheOlderOneAndNeverClaimsIt() {
    RecentSet s = RecentSet.create(1); // every item shares the one slot
    Items items = new Items(1);
    assertThat(items.add(s, 1)).isTrue();
    assertThat(items.add(s, 2)).isTrue();
    assertThat(items.mightContain(s, 1)).isFalse(); // forgotten, not a false positive
    assertThat(items.mightContain(s, 2)).isTrue();
    assertThat(items.add(s, 1)).isTrue();
  }

  @Property(seed = "42", tries = 100)
  void mightContain_neverTrueForAnItemNotAdded(
      @ForAll @LongRange(min = 1, max = 5000) long slots, @ForAll @LongRange(max = 99) long seed) {
    RecentSet s = RecentSet.create(slots);
    Items added = new Items(seed);
    Items never = new Items(seed + 1000);
    for (int i = 0; i < 3 * slots; i++) {
      added.add(s, i);
    }
    for (int i = 0; i < 3 * slots; i++) {
      assertThat(never.mightContain(s, i)).isFalse();
    }
  }

  @Test
  void remove_onlyIfStillHeld() {
    RecentSet s = RecentSet.create(1);
    Items items = new Items(2);
    items.add(s, 1);
    Hash128 one = new Items(2).item(1);
    Hash128 other = new Items(2).item(2);
    assertThat(s.remove(other.h1(), other.h2())).isFalse();
    assertThat(s.remove(one.h1(), one.h2())).isTrue();
    assertThat(s.mightContain(one.h1(), one.h2())).isFalse();
    assertThat(s.itemCount()).isZero();
    // After another item replaced it, removing the first must not erase the second.
    items.add(s, 1);
    items.add(s, 2);
    assertThat(s.remove(one.h1(), one.h2())).isFalse();
    assertThat(items.mightContain(s, 2)).isTrue();
  }

  @Test
  void add_zeroDigest_isStoredNotMistakenForEmpty() {
    RecentSet s = RecentSet.create(8);
    assertThat(s.add(0, 0)).isTrue();
    assertThat(s.mightContain(0, 0)).isTrue();
    assertThat(s.add(0, 0)).isFalse();
    assertThat(s.remove(0, 0)).isTrue();
    assertThat(s.mightContain(0, 0)).isFalse();
  }

  @Test
  void add_concurrentSameItems_exactlyOneThreadSeesEachAsNew() throws Exception {
    int threads = 4;
    int n = 20_000;
    // Item i's h1 is i * 2^44, which maps it to slot i of 2^20: no item overwrites another.
    RecentSet s = RecentSet.create(1 << 20);
    AtomicLongArray wins = new AtomicLongArray(n);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      done.add(
          pool.submit(
              () -> {
                start.await();
                for (int i = 0; i < n; i++) {
                  if (s.add((long) i << 44, i * 0x9E3779B97F4A7C15L)) {
                    wins.incrementAndGet(i);
                  }
                }
                return null;
              }));
    }
    start.countDown();
    for (Future<?> f : done) {
      f.get();
    }
    pool.shutdown();
    for (int i = 0; i < n; i++) {
      assertThat(wins.get(i)).as("item %s", i).isEqualTo(1);
    }
  }

  @Test
  void rememberProbability_seedsExampleOf100Buckets() {
    // Seed 002: with 100 buckets, after 459 further messages we are 99% certain to have lost it.
    assertThat(RecentSet.rememberProbability(100, 459)).isLessThan(0.01);
    assertThat(RecentSet.rememberProbability(100, 458)).isGreaterThan(0.01);
  }

  @Test
  void slotsToRemember_seedsHourAtThousandPerSecond() {
    long x = 1000L * 60 * 60;
    // The seed's arithmetic solves 0.1 = (1 - 1/N)^x: a 10% chance of still remembering.
    assertThat(RecentSet.slotsToRemember(x, 0.1)).isEqualTo(1_563_461);
    // What its text asks for, a 90% chance, takes 22 times as many slots.
    assertThat(RecentSet.slotsToRemember(x, 0.9)).isEqualTo(34_168_399);
  }

  @Property(seed = "42", tries = 300)
  void slotsToRemember_isTheLeastSufficientN(
      @ForAll @LongRange(min = 1, max = 100_000_000) long after,
      @ForAll @DoubleRange(min = 0.01, max = 0.99) double remember) {
    long n = RecentSet.slotsToRemember(after, remember);
    assertThat(RecentSet.rememberProbability(n, after)).isGreaterThanOrEqualTo(remember);
    if (n > 1) {
      assertThat(RecentSet.rememberProbability(n - 1, after)).isLessThan(remember);
    }
  }

  @Test
  void rememberProbability_measured_matchesFormula() {
    // Simulate: add one item, then x distinct others; count how often it is still there.
    int slots = 1000;
    int after = 1000;
    int trials = 4000;
    int remembered = 0;
    for (int t = 0; t < trials; t++) {
      RecentSet s = RecentSet.create(slots);
      Items items = new Items(t);
      items.add(s, 0);
      for (int i = 1; i <= after; i++) {
        items.add(s, i);
      }
      if (items.mightContain(s, 0)) {
        remembered++;
      }
    }
    double expected = RecentSet.rememberProbability(slots, after); // about 0.368
    assertThat((double) remembered / trials).isBetween(expected - 0.04, expected + 0.04);
  }

  @Test
  void create_badSlots_throws() {
    assertThatThrownBy(() -> RecentSet.create(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("slots (0) must be in [1, ");
    assertThatThrownBy(() -> RecentSet.slotsToRemember(10, 1.0))
        .hasMessage("remember probability (1.0) must be in (0, 1)");
  }
}
