package io.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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

  @Test
  void dump_chunkByChunk_loadsIntoTheFilterOfItsHeader_whichAnswersEveryItemAlike()
      throws BadDumpException {
    for (ScalableCuckoo f : both(64, 2)) {
      long[] pair = new long[2];
      for (int i = 0; i < 1000; i++) {
        f.hash(item(i), pair);
        f.insert(pair[0], pair[1], false, true);
      }
      assertThat(f.filterCount()).isGreaterThan(1);
      for (int i = 0; i < 50; i++) {
        f.hash(item(i), pair);
        f.delete(pair[0], pair[1]);
      }
      ScalableCuckoo g = ScalableCuckoo.fromHeader(f.dumpHeader(), bytes -> true);
      assertThat(g).hasSameClassAs(f);
      int chunks = 0;
      for (long it = 1; ; chunks++) {
        DumpChunk c = f.dumpChunk(it);
        if (c.isEnd()) {
          break;
        }
        g.loadChunk(c.next(), c.bytes());
        it = c.next();
      }
      assertThat(chunks).isEqualTo(f.filterCount()); // small sub-filters: one chunk each
      assertThat(g.dumpHeader()).isEqualTo(f.dumpHeader());
      assertThat(g.itemCount()).isEqualTo(f.itemCount());
      assertThat(g.deleteCount()).isEqualTo(f.deleteCount());
      assertThat(g.bucketCount()).isEqualTo(f.bucketCount());
      for (int i = 0; i < 5000; i++) {
        f.hash(item(i), pair);
        assertThat(g.mightContain(pair[0], pair[1])).isEqualTo(f.mightContain(pair[0], pair[1]));
        assertThat(g.count(pair[0], pair[1])).isEqualTo(f.count(pair[0], pair[1]));
      }
    }
  }

  @Test
  void loadChunk_badPositionOrBadData_throwsBadDumpException_andChangesNothing()
      throws BadDumpException {
    for (ScalableCuckoo f : both(64, 2)) {
      long[] pair = new long[2];
      for (int i = 0; i < 100; i++) {
        f.hash(item(i), pair);
        f.insert(pair[0], pair[1], false, true);
      }
      byte[] header = f.dumpHeader();
      ScalableCuckoo g = ScalableCuckoo.fromHeader(header, bytes -> true);
      DumpChunk first = f.dumpChunk(1);
      byte[] longer = Arrays.copyOf(first.bytes(), first.bytes().length + 8);
      for (ThrowingLoad load :
          List.<ThrowingLoad>of(
              () -> g.loadChunk(-1, first.bytes()),
              () -> g.loadChunk(first.next() + (1L << 40), first.bytes()),
              () -> g.loadChunk(1 + longer.length, longer))) {
        assertThatThrownBy(load::run)
            .isInstanceOfSatisfying(
                BadDumpException.class,
                e -> assertThat(e.reply()).isEqualTo("Couldn't load chunk!"));
      }
      f.hash(item(0), pair);
      assertThat(g.mightContain(pair[0], pair[1])).as("nothing was written").isFalse();
      assertThatThrownBy(() -> ScalableCuckoo.fromHeader(new byte[40], bytes -> true))
          .isInstanceOfSatisfying(
              BadDumpException.class, e -> assertThat(e.reply()).isEqualTo("Invalid header"));
      byte[] bad = header.clone();
      if (f instanceof RedisBloomCuckoo) {
        bad[32] = 0; // bucket size 0
      } else {
        bad[bad.length - 1] ^= 1; // the checksum
      }
      assertThatThrownBy(() -> ScalableCuckoo.fromHeader(bad, bytes -> true))
          .isInstanceOfSatisfying(
              BadDumpException.class,
              e -> assertThat(e.reply()).isEqualTo("Couldn't create filter!"));
      assertThatThrownBy(() -> ScalableCuckoo.fromHeader(header, bytes -> false))
          .isInstanceOfSatisfying(
              BadDumpException.class,
              e -> assertThat(e.reply()).isEqualTo("Couldn't create filter!"));
    }
  }

  @Test
  void dumpChunk_positionNotAtAChunk_idemsLayoutThrows_redisBloomsAnswersFromThere()
      throws BadDumpException {
    List<ScalableCuckoo> layouts = both(64, 2);
    long[] pair = new long[2];
    for (ScalableCuckoo f : layouts) {
      f.hash(item(0), pair);
      f.insert(pair[0], pair[1], false, true);
    }
    assertThat(layouts.get(0).dumpChunk(9).isEnd()).isFalse();
    assertThatThrownBy(() -> layouts.get(1).dumpChunk(9))
        .isInstanceOfSatisfying(
            BadDumpException.class,
            e -> {
              assertThat(e.reply()).isEqualTo("Invalid position");
              assertThat(e).hasMessage("iterator 9 is not one CF.SCANDUMP returned");
            });
  }

  private interface ThrowingLoad {
    void run() throws BadDumpException;
  }
}
