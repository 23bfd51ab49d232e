package io.idem.server.store;

import static io.idem.server.store.RocksStoreTest.add;
import static io.idem.server.store.RocksStoreTest.awaitDurable;
import static io.idem.server.store.RocksStoreTest.b;
import static io.idem.server.store.RocksStoreTest.items;
import static io.idem.server.store.RocksStoreTest.payload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.store.RowChange;
import io.idem.server.store.FaultyStore.Action;
import io.idem.server.store.RocksStoreTest.LongSet;
import io.idem.server.store.RocksStoreTest.LongSetCodec;
import io.idem.server.store.StoreFaults.Step;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the store holds on the heap besides the values (changes not yet written, snapshot images) is
 * counted where maxmemory looks, and a value the heap has no room to copy is snapshotted without a
 * copy.
 */
class StoreMemoryTest {

  @TempDir Path dir;

  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final FaultyStore faults = new FaultyStore();

  private RocksStore.Opened open() throws IOException {
    return RocksStore.open(
        dir, RocksStoreTest.CODECS, RocksStore.FsyncPolicy.NO, clock::get, faults);
  }

  private RocksStore.Opened reopen() throws IOException {
    return RocksStore.open(
        dir, RocksStoreTest.CODECS, RocksStore.FsyncPolicy.NO, clock::get, StoreFaults.NONE);
  }

  /** A value of {@code n} items made by one logged change (memoryUsage 48 bytes an item). */
  private static void addMany(RocksStore.Opened o, String key, int n) {
    o.engine()
        .write(
            b(key),
            tx -> {
              LongSet s = tx.create(LongSetCodec.INSTANCE, new LongSet(), new byte[0]);
              for (long i = 0; i < n; i++) {
                s.items.add(i * 7);
              }
              tx.log((byte) 1, payload(-1));
              s.items.add(-1L);
              return null;
            });
  }

  @Test
  void changesNotYetWritten_countAgainstMaxmemory_untilWritten() throws Exception {
    var o = open();
    add(o.engine(), "k", 0);
    awaitDurable(o.store());
    assertThat(o.store().queuedBytes()).isZero();
    try (AutoCloseable paused = o.store().pauseCommitter()) {
      for (int i = 1; i <= 1000; i++) {
        int row = i;
        o.engine()
            .write(
                b("k"),
                tx -> {
                  tx.entry().valueAs(LongSetCodec.INSTANCE).items.add((long) row);
                  tx.log(
                      (byte) 1,
                      payload(row),
                      List.of(new RowChange.Put(b("r" + row), new byte[1000])));
                  return null;
                });
      }
      long queued = o.store().queuedBytes();
      assertThat(queued).as("a thousand rows of 1,000 bytes wait").isGreaterThan(1_000_000);
      assertThat(o.engine().usedMemory()).isEqualTo(o.engine().datasetMemory() + queued);
      // Room for 100 KB more values, were the waiting changes not counted.
      o.engine().setMaxMemory(o.engine().datasetMemory() + 100_000);
      assertThat(o.engine().memoryFits(50_000)).isFalse();
      assertThat(o.engine().overMemoryLimit()).isTrue();
    }
    awaitDurable(o.store());
    assertThat(o.store().queuedBytes()).as("written: nothing waits").isZero();
    assertThat(o.engine().memoryFits(50_000)).isTrue();
    o.store().close();
  }

  @Test
  void anImageBeingWritten_countsAgainstMaxmemory_untilWritten() throws Exception {
    var o = open();
    addMany(o, "big", 200_000);
    long size = 48L * 200_001;
    faults.arm(Step.SNAPSHOT_CHUNKS, Action.PAUSE);
    Thread snapshot =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    o.store().snapshot(o.engine());
                  } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                });
    assertThat(faults.awaitFired(10)).isTrue();
    assertThat(o.store().imageBytes()).isEqualTo(size);
    assertThat(o.engine().usedMemory()).isGreaterThanOrEqualTo(o.engine().datasetMemory() + size);
    faults.release();
    snapshot.join();
    assertThat(o.store().imageBytes()).isZero();
    o.store().close();
  }

  @Test
  void aValueTheHeapCannotCopy_isWrittenChunkByChunk_andComesBackWhole() throws Exception {
    var o = open();
    o.store().streamImagesAbove(0);
    addMany(o, "big", 1_200_000); // about 9.6 MB written: three chunks
    add(o.engine(), "small", 5);
    faults.arm(Step.SNAPSHOT_CHUNKS, Action.PAUSE);
    Thread snapshot =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    o.store().snapshot(o.engine());
                  } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                });
    assertThat(faults.awaitFired(30)).isTrue();
    assertThat(o.store().imageBytes()).as("no copy on the heap").isZero();
    faults.release();
    snapshot.join();
    assertThat(o.store().dirtyValues()).isZero();
    add(o.engine(), "big", 3); // after the snapshot: in the log only
    awaitDurable(o.store());
    o.store().close();

    var again = reopen();
    TreeSet<Long> got = items(again.engine(), "big");
    assertThat(got).hasSize(1_200_002).contains(-1L, 3L, 0L, 7L * 1_199_999);
    assertThat(items(again.engine(), "small")).containsExactly(5L);
    again.store().close();
  }

  @Test
  void anErrorWhileAValueIsWrittenChunkByChunk_keepsItsChanges() throws Exception {
    var o = open();
    o.store().streamImagesAbove(0);
    addMany(o, "big", 600_000);
    o.store().snapshot(o.engine());
    add(o.engine(), "big", 3); // in the log only, until a snapshot covers it
    faults.arm(Step.SNAPSHOT_IMAGE, Action.ERROR);
    assertThatThrownBy(() -> o.store().snapshot(o.engine())).isInstanceOf(AssertionError.class);
    assertThat(o.store().dirtyValues()).as("the value is still marked changed").isEqualTo(1);
    o.store().snapshot(o.engine());
    awaitDurable(o.store());
    o.store().close();

    var again = reopen();
    assertThat(items(again.engine(), "big")).hasSize(600_002).contains(3L);
    again.store().close();
  }
}
