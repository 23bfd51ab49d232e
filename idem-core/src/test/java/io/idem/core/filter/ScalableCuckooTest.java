package io.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Both cuckoo layouts through the one interface the CF handlers use. */
class ScalableCuckooTest {

  private static List<ScalableCuckoo> both(long capacity, int expansion) {
    return List.of(
        RedisBloomCuckoo.create(capacity, 2, 20, expansion),
        CuckooFilter.createWithFingerprintBits(capacity, 8, 2, 20, expansion));
  }

  private static byte[] item(int i) {
    return ("item-" + i).getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void insertedItemsAreFoundCountedAndDeleted_asTheFilterGrows() {
    for (ScalableCuckoo f : both(64, 2)) {
      long[] pair = new long[2];
      for (int i = 0; i < 1000; i++) {
        f.hash(item(i), pair);
        assertThat(f.insert(pair[0], pair[1], false, true))
            .isEqualTo(ScalableCuckoo.Insert.INSERTED);
      }
      assertThat(f.filterCount()).isGreaterThan(1);
      assertThat(f.itemCount()).isEqualTo(1000);
      for (int i = 0; i < 1000; i++) {
        f.hash(item(i), pair);
        assertThat(f.mightContainItem(item(i))).as("no false negative").isTrue();
        assertThat(f.count(pair[0], pair[1])).isPositive();
        // An insert-if-absent of a present item changes nothing.
        assertThat(f.insert(pair[0], pair[1], true, true)).isEqualTo(ScalableCuckoo.Insert.EXISTS);
      }
      assertThat(f.itemCount()).isEqualTo(1000);
      for (int i = 0; i < 500; i++) {
        f.hash(item(i), pair);
        assertThat(f.delete(pair[0], pair[1])).isTrue();
      }
      assertThat(f.itemCount()).isEqualTo(500);
      for (int i = 500; i < 1000; i++) {
        assertThat(f.mightContainItem(item(i))).as("kept after deletes and compaction").isTrue();
      }
      f.compact();
      for (int i = 500; i < 1000; i++) {
        assertThat(f.mightContainItem(item(i))).as("kept after CF.COMPACT").isTrue();
      }
    }
  }

  @Test
  void aFilterThatMayNotGrowRefusesWhatFindsNoRoom_andChangesNothing() {
    for (ScalableCuckoo f : both(64, 0)) {
      assertThat(f.bytesOfNextFilter()).isEqualTo(-1);
      long[] pair = new long[2];
      int i = 0;
      ScalableCuckoo.Insert last;
      do {
        f.hash(item(i++), pair);
        last = f.insert(pair[0], pair[1], false, true);
      } while (last == ScalableCuckoo.Insert.INSERTED && i < 10_000);
      assertThat(last).isEqualTo(ScalableCuckoo.Insert.NO_SPACE);
      assertThat(f.itemCount()).isEqualTo(i - 1);
      assertThat(f.filterCount()).isEqualTo(1);
    }
    for (ScalableCuckoo f : both(64, 2)) {
      long[] pair = new long[2];
      int i = 0;
      ScalableCuckoo.Insert last;
      do {
        f.hash(item(i++), pair);
        last = f.insert(pair[0], pair[1], false, false); // the caller cannot spend a new one
      } while (last == ScalableCuckoo.Insert.INSERTED && i < 10_000);
      assertThat(last).isEqualTo(ScalableCuckoo.Insert.TOO_LARGE);
      assertThat(f.filterCount()).isEqualTo(1);
    }
  }
}
