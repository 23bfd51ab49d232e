package io.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.hash.Hash128;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CuckooFilterTest {

  @Property(seed = "42", tries = 40)
  void insert_untilGrownSeveralTimes_neverFalseNegative(
      @ForAll @IntRange(min = 4, max = 2000) int capacity,
      @ForAll @IntRange(min = 1, max = 6) int bucketSize) {
    CuckooFilter f = CuckooFilter.create(capacity, 0.01, bucketSize, 20, 1);
    Items items = new Items(capacity);
    int n = capacity * 3;
    for (int i = 0; i < n; i++) {
      items.insert(f, i);
    }
    assertThat(f.itemCount()).isEqualTo(n);
    for (int i = 0; i < n; i++) {
      assertThat(items.mightContain(f, i)).as("item %s", i).isTrue();
    }
  }

  @Test
  void insert_failedKickChain_losesNothing() {
    // Expansion 0: kicks that fail must leave every stored fingerprint where it can be found.
    CuckooFilter f = CuckooFilter.createWithFingerprintBits(64, 8, 2, 20, 0);
    Items items = new Items(9);
    int stored = 0;
    for (int i = 0; i < 1000; i++) {
      Hash128 h = items.item(i);
      try {
        f.insert(h.h1(), h.h2());
        stored = i + 1;
      } catch (FilterFullException e) {
        assertThat(e).hasMessage("Filter is full");
        break;
      }
    }
    assertThat(stored).isLessThan(1000);
    for (int i = 0; i < stored; i++) {
      assertThat(items.mightContain(f, i)).as("item %s", i).isTrue();
    }
    assertThat(f.itemCount()).isEqualTo(stored);
    assertThat(f.tableCount()).isEqualTo(1);
  }

  @ParameterizedTest
  @CsvSource({"1, 20", "2, 20", "3, 20", "4, 20", "8, 20", "2, 500", "4, 500"})
  void insert_toCapacity_neverGrows(int bucketSize, int maxIterations) {
    for (int seed = 0; seed < 5; seed++) {
      CuckooFilter f = CuckooFilter.create(200_000, 0.01, bucketSize, maxIterations, 1);
      Items items = new Items(100 + seed);
      for (int i = 0; i < 200_000; i++) {
        items.insert(f, i);
      }
      assertThat(f.tableCount()).as("seed %s", seed).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @CsvSource({
    "0.01,   1000000, 2000000, 18120",
    "0.001,  1000000, 5000000, 2830",
    "0.0001, 1000000, 20000000, 1383"
  })
  void falsePositiveRate_atCapacity_withinTenPercentOfConfigured(
      double error, int capacity, long probes, long golden) {
    CuckooFilter f = CuckooFilter.create(capacity, error);
    Items items = new Items(1);
    for (int i = 0; i < capacity; i++) {
      items.insert(f, i);
    }
    long fp = items.falsePositives(f, capacity, probes);
    assertThat((double) fp / probes).isLessThanOrEqualTo(1.1 * error);
    assertThat(fp).as("golden false-positive count").isEqualTo(golden);
    assertThat(f.estimatedFalsePositiveRate()).isLessThanOrEqualTo(error);
  }

  @Test
  void add_isAddIfAbsent_insertAddsCopies_countCountsThem() {
    CuckooFilter f = CuckooFilter.create(1000, 0.001);
    Hash128 h = new Hash128().hash("order-17");
    assertThat(f.add(h)).isTrue();
    assertThat(f.add(h)).isFalse();
    assertThat(f.count(h.h1(), h.h2())).isEqualTo(1);
    f.insert(h.h1(), h.h2());
    f.insert(h.h1(), h.h2());
    assertThat(f.count(h.h1(), h.h2())).isEqualTo(3);
    assertThat(f.itemCount()).isEqualTo(3);
    assertThat(f.remove(h.h1(), h.h2())).isTrue();
    assertThat(f.count(h.h1(), h.h2())).isEqualTo(2);
    assertThat(f.deleteCount()).isEqualTo(1);
  }

  @Test
  void remove_absentFingerprint_isANoOp() {
    CuckooFilter f = CuckooFilter.create(1000, 0.0001);
    Items items = new Items(3);
    for (int i = 0; i < 500; i++) {
      items.add(f, i);
    }
    long before = f.itemCount();
    long absent = 10_000;
    while (items.mightContain(f, absent)) {
      absent++;
    }
    Hash128 h = items.item(absent);
    assertThat(f.remove(h.h1(), h.h2())).isFalse();
    assertThat(f.itemCount()).isEqualTo(before);
    assertThat(f.deleteCount()).isZero();
    for (int i = 0; i < 500; i++) {
      assertThat(items.mightContain(f, i)).isTrue();
    }
  }

  @Test
  void remove_itemNeverAdded_canEraseAnotherWithTheSameFingerprintAndBucket() {
    // The documented delete contract: two items with the same h1 and fingerprint look alike.
    CuckooFilter f = CuckooFilter.createWithFingerprintBits(100, 8, 2, 20, 1);
    long h1 = 12345;
    long added = 0x0100_0000_0000_0000L; // top byte picks the fingerprint
    long neverAdded = added + 1; // same fingerprint, different item
    f.insert(h1, added);
    assertThat(f.mightContain(h1, neverAdded)).isTrue(); // a false positive
    assertThat(f.remove(h1, neverAdded)).isTrue();
    assertThat(f.mightContain(h1, added)).isFalse(); // the added item is gone
  }

  @Test
  void insert_whenKicksFail_growsBySubTablesUpToTheLimit() {
    CuckooFilter f = CuckooFilter.createWithFingerprintBits(8, 8, 2, 5, 1);
    Items items = new Items(4);
    int i = 0;
    try {
      for (; i < 100_000; i++) {
        items.insert(f, i);
      }
    } catch (FilterFullException e) {
      assertThat(e).hasMessage("Maximum expansions reached");
    }
    assertThat(f.tableCount()).isEqualTo(CuckooFilter.MAX_TABLES);
    for (int j = 0; j < i; j++) {
      assertThat(items.mightContain(f, j)).isTrue();
    }
  }

  @Test
  void compact_afterDeletes_movesItemsBackAndDropsEmptyTables() {
    CuckooFilter f = CuckooFilter.createWithFingerprintBits(1000, 12, 2, 20, 2);
    Items items = new Items(6);
    int n = 0;
    while (f.tableCount() < 2) {
      items.insert(f, n++);
    }
    int total = n + 300; // these land in the second, newest sub-table
    for (int i = n; i < total; i++) {
      items.insert(f, i);
    }
    int removed = 0;
    for (int i = 0; i < n; i++) { // empty nine tenths of the first table
      if (i % 10 != 0) {
        assertThat(items.remove(f, i)).isTrue();
        removed++;
      }
    }
    f.compact(); // like RedisBloom's, without kicks: it needs free slots in the older table
    assertThat(f.tableCount()).isEqualTo(1);
    assertThat(f.deleteCount()).isZero();
    for (int i = 0; i < total; i++) {
      if (i >= n || i % 10 == 0) {
        assertThat(items.mightContain(f, i)).as("item %s", i).isTrue();
      }
    }
    assertThat(f.itemCount()).isEqualTo(total - removed);
  }

  @Test
  void writeTo_midStream_thenSameOperations_givesTheSameBytes() throws IOException {
    // A server replays logged operations on a snapshot: kick victims must depend only on what the
    // snapshot holds and the operation, never on a history the snapshot does not record.
    CuckooFilter original = CuckooFilter.createWithFingerprintBits(500, 8, 2, 20, 1);
    Items items = new Items(11);
    for (int i = 0; i < 450; i++) {
      items.insert(original, i);
    }
    for (int i = 0; i < 450; i += 7) {
      items.remove(original, i);
    }
    CuckooFilter copy = CuckooFilter.readFrom(new ByteArrayInputStream(bytes(original)), 1 << 20);
    for (int i = 450; i < 3000; i++) { // kicks, failed chains and growth happen from here on
      items.insert(original, i);
      items.insert(copy, i);
      if (i % 5 == 0) {
        items.remove(original, i / 2);
        items.remove(copy, i / 2);
      }
      if (i % 11 == 0) {
        items.add(original, i - 3);
        items.add(copy, i - 3);
      }
    }
    original.compact();
    copy.compact();
    assertThat(original.tableCount()).isGreaterThan(1);
    assertThat(bytes(copy)).isEqualTo(bytes(original));
  }

  @Test
  void copyWordsThenLoadWords_intoOfShape_givesTheSameFilter() throws IOException {
    // 12-bit fingerprints: slots straddle words, and the last word of a table has spare bits.
    CuckooFilter original = CuckooFilter.createWithFingerprintBits(300, 12, 3, 20, 2);
    Items items = new Items(12);
    for (int i = 0; i < 1200; i++) {
      items.insert(original, i);
    }
    for (int i = 0; i < 1200; i += 9) {
      items.remove(original, i);
    }
    CuckooFilter.Shape shape = original.shape();
    assertThat(shape.tables()).isEqualTo(original.tableCount()).isGreaterThan(1);
    CuckooFilter copy = CuckooFilter.ofShape(shape, original.deleteCount());
    assertThat(copy.shape()).isEqualTo(shape);
    assertThat(copy.sizeInBytes()).isEqualTo(shape.bytes()).isEqualTo(original.sizeInBytes());
    assertThat(copy.itemCount()).isZero();
    for (int t = shape.tables() - 1; t >= 0; t--) { // any order, in pieces of 5 words
      long words = original.wordCount(t);
      for (long from = 0; from < words; from += 5) {
        int n = (int) Math.min(5, words - from);
        byte[] chunk = new byte[n * 8];
        original.copyWords(t, from, n, chunk, 0);
        copy.loadWords(t, from, n, chunk, 0);
      }
    }
    assertThat(copy.itemCount()).isEqualTo(original.itemCount());
    assertThat(bytes(copy)).isEqualTo(bytes(original));
  }

  @Test
  void loadWords_overwritingAChunk_keepsTheItemCountTrue() {
    CuckooFilter f = CuckooFilter.createWithFingerprintBits(100, 8, 2, 20, 1);
    Items items = new Items(13);
    for (int i = 0; i < 60; i++) {
      items.insert(f, i);
    }
    byte[] zeros = new byte[8 * (int) f.wordCount(0)];
    f.loadWords(0, 0, (int) f.wordCount(0), zeros, 0);
    assertThat(f.itemCount()).isZero();
    byte[] one = {0, 0, 0, 0, 0, 0, 0x01, 0x02}; // two slots of the first word
    f.loadWords(0, 0, 1, one, 0);
    assertThat(f.itemCount()).isEqualTo(2);
  }

  @Test
  void loadWords_badRangeOrSpareBitsSet_throwsAndChangesNothing() throws IOException {
    // 9 buckets of 2 slots of 12 bits: 216 bits in 4 words, the last with 40 spare bits.
    CuckooFilter f = CuckooFilter.createWithFingerprintBits(10, 12, 2, 20, 1);
    assertThat(f.wordCount(0)).isEqualTo(4);
    Items items = new Items(14);
    for (int i = 0; i < 5; i++) {
      items.insert(f, i);
    }
    byte[] before = bytes(f);
    byte[] spare = new byte[8];
    spare[0] = (byte) 0x80; // bit 63 of the last word
    assertThatThrownBy(() -> f.loadWords(0, 3, 1, spare, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("sub-table 0 has bits set past its last slot");
    assertThatThrownBy(() -> f.loadWords(0, 3, 2, new byte[16], 0))
        .hasMessage("words [3, 5) are outside sub-table 0 of 4 words");
    assertThatThrownBy(() -> f.loadWords(1, 0, 1, new byte[8], 0))
        .hasMessage("sub-table (1) does not exist");
    assertThat(bytes(f)).isEqualTo(before);
  }

  @Test
  void shape_outOfRange_namesTheField() {
    assertThatThrownBy(() -> new CuckooFilter.Shape(0, 0.01, 8, 2, 20, 1, 10, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("capacity (0) must be in [1, 2^40]");
    assertThatThrownBy(() -> new CuckooFilter.Shape(10, 0.01, 8, 2, 20, 0, 10, 2))
        .hasMessage("sub-tables (2) must be in [1, 32], and 1 when expansion is 0");
    assertThatThrownBy(() -> new CuckooFilter.Shape(10, 0.01, 8, 2, 20, 2, 1L << 33, 1))
        .hasMessage("sub-table 0 is over the limit of 137438952896 bits");
    assertThatThrownBy(() -> new CuckooFilter.Shape(10, 0.01, 8, 2, 20, 32768, 1000, 4))
        .hasMessage("sub-table 2 is over the limit of 137438952896 bits");
    assertThatThrownBy(() -> new CuckooFilter.Shape(10, Double.NaN, 8, 2, 20, 1, 10, 1))
        .hasMessage("error rate (NaN) must be in (0, 1]");
  }

  @Test
  void compactNewest_stopsAtTheFirstSubTableItCannotEmpty() {
    CuckooFilter f = CuckooFilter.createWithFingerprintBits(50, 8, 2, 20, 1);
    Items items = new Items(15);
    int n = 0;
    while (f.tableCount() < 3) {
      items.insert(f, n++);
    }
    for (int i = n; i < n + 80; i++) { // inserts fill the newest sub-table first
      items.insert(f, i);
    }
    for (int i = 0; i < 30; i++) { // free slots in the oldest sub-table, mostly
      items.remove(f, i);
    }
    assertThat(f.tableCount()).isEqualTo(3);
    byte[] middle = new byte[8 * (int) f.wordCount(1)];
    f.copyWords(1, 0, (int) f.wordCount(1), middle, 0);
    f.compactNewest();
    assertThat(f.tableCount()).isEqualTo(3); // the newest could not be emptied ...
    byte[] after = new byte[middle.length];
    f.copyWords(1, 0, (int) f.wordCount(1), after, 0);
    for (int i = 0; i < middle.length; i++) { // ... so the one below kept its own (8-bit slots)
      if (middle[i] != 0) {
        assertThat(after[i]).as("slot %s", i).isEqualTo(middle[i]);
      }
    }
  }

  @Test
  void insert_mayNotGrow_throwsAndChangesNothing_growthBytesIsTheNextTable() throws IOException {
    CuckooFilter f = CuckooFilter.createWithFingerprintBits(50, 8, 2, 20, 3);
    assertThat(f.growthBytes()).isEqualTo(3 * f.sizeInBytes());
    Items items = new Items(17);
    int i = 0;
    while (true) {
      byte[] before = bytes(f);
      Hash128 h = items.item(i);
      try {
        f.insert(h.h1(), h.h2(), false);
      } catch (FilterFullException e) {
        assertThat(e).hasMessage("Filter is full: growing was not allowed");
        assertThat(bytes(f)).isEqualTo(before);
        break;
      }
      i++;
    }
    long next = f.growthBytes();
    items.insert(f, i); // allowed now: it grows by exactly that
    assertThat(f.tableCount()).isEqualTo(2);
    assertThat(f.sizeInBytes()).isEqualTo(next + next / 3);
    assertThat(CuckooFilter.createWithFingerprintBits(50, 8, 2, 20, 0).growthBytes()).isEqualTo(-1);
  }

  @Test
  void compact_reportsWhetherAnythingChanged() {
    CuckooFilter f = CuckooFilter.createWithFingerprintBits(100, 8, 2, 20, 1);
    Items items = new Items(16);
    for (int i = 0; i < 10; i++) {
      items.insert(f, i);
    }
    assertThat(f.compact()).isFalse();
    items.remove(f, 0);
    assertThat(f.compact()).isTrue(); // the delete count went back to 0
    assertThat(f.deleteCount()).isZero();
    assertThat(f.compactNewest()).isFalse();
  }

  private static byte[] bytes(CuckooFilter f) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    return out.toByteArray();
  }

  @Test
  void sizing_fingerprintFollowsTheErrorRate() {
    CuckooFilter.Sizing loose = CuckooFilter.sizing(1_000_000, 0.01, 2, 20);
    CuckooFilter.Sizing tight = CuckooFilter.sizing(1_000_000, 0.0001, 2, 20);
    assertThat(loose.fingerprintBits()).isLessThan(tight.fingerprintBits());
    assertThat(loose.expectedRate()).isLessThanOrEqualTo(0.01);
    assertThat(tight.expectedRate()).isLessThanOrEqualTo(0.0001);
    // One bit fewer would not meet the rate at the same buckets.
    assertThat(CuckooFilter.expectedRate(1_000_000, loose.buckets(), loose.fingerprintBits() - 1))
        .isGreaterThan(0.01);
    assertThat(Long.bitCount(loose.buckets())).isGreaterThan(1); // not a power of two
  }

  @Test
  void sizing_takesTheSmallestTableThatMeetsTheRate() {
    // 1e-6 / 9 with 4-slot buckets: 26 bits need about 1 % more buckets than the kicks' load
    // asks for, which is less than the 27th bit.
    long capacity = 12_500_000;
    double rate = 1e-6 / 9;
    long fewest = CuckooFilter.buckets(capacity, 4, 500);
    CuckooFilter.Sizing s = CuckooFilter.sizing(capacity, rate, 4, 500);
    assertThat(s.fingerprintBits()).isEqualTo(26);
    assertThat(s.buckets()).isBetween(fewest + 1, fewest + fewest / 50);
    assertThat(s.expectedRate()).isLessThanOrEqualTo(rate);
    assertThat(CuckooFilter.expectedRate(capacity, s.buckets() - 1, 26)).isGreaterThan(rate);
    // Every other width's smallest table that meets the rate (up to 4 times the buckets) is
    // larger.
    for (int f = 1; f <= CuckooFilter.MAX_FINGERPRINT_BITS; f++) {
      if (f != 26) {
        long buckets = fewest;
        while (CuckooFilter.expectedRate(capacity, buckets, f) > rate && buckets < 4 * fewest) {
          buckets += fewest / 1000;
        }
        if (CuckooFilter.expectedRate(capacity, buckets, f) <= rate) {
          assertThat(buckets * f).as("%s bits", f).isGreaterThan(s.buckets() * 26);
        }
      }
    }
  }

  @Test
  void create_badArguments_namesTheValue() {
    assertThatThrownBy(() -> CuckooFilter.create(100, 0.01, 0, 20, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bucket size (0) must be in [1, 255]");
    assertThatThrownBy(() -> CuckooFilter.create(100, 0.01, 2, 0, 1))
        .hasMessage("max iterations (0) must be in [1, 65535]");
    assertThatThrownBy(() -> CuckooFilter.create(100, 0.01, 2, 20, -1))
        .hasMessage("expansion (-1) must be in [0, 32768]");
    assertThatThrownBy(() -> CuckooFilter.create(0, 0.01)).hasMessage("capacity (0) must be > 0");
  }
}
