package io.idem.server.store;

import static io.idem.server.store.RocksStoreTest.add;
import static io.idem.server.store.RocksStoreTest.awaitDurable;
import static io.idem.server.store.RocksStoreTest.b;
import static io.idem.server.store.RocksStoreTest.items;
import static io.idem.server.store.RocksStoreTest.payload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.server.store.FaultyStore.Action;
import io.idem.server.store.StoreFaults.Step;
import java.io.IOException;
import java.nio.file.Path;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store under injected faults: once a write fails nothing after it is written, no snapshot
 * round loses a value's changes, and no thread that writes or syncs the log dies of an Error.
 */
class RocksStoreFaultTest {

  @TempDir Path dir;

  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final FaultyStore faults = new FaultyStore();

  private RocksStore.Opened open(RocksStore.FsyncPolicy policy) throws IOException {
    return RocksStore.open(dir, RocksStoreTest.CODECS, policy, clock::get, faults);
  }

  private RocksStore.Opened reopen() throws IOException {
    return RocksStore.open(
        dir, RocksStoreTest.CODECS, RocksStore.FsyncPolicy.NO, clock::get, StoreFaults.NONE);
  }

  private static TreeSet<Long> range(long from, long to) {
    TreeSet<Long> s = new TreeSet<>();
    LongStream.range(from, to).forEach(s::add);
    return s;
  }

  private static void addRange(RocksStore.Opened o, String key, long from, long to) {
    for (long i = from; i < to; i++) {
      add(o.engine(), key, i);
    }
  }

  /** Whether a waiter for {@code seq} runs within ten seconds (it must: never hang a reply). */
  private static boolean waiterRuns(RocksStore store, long seq) throws InterruptedException {
    CountDownLatch ran = new CountDownLatch(1);
    store.whenDurable(seq, ran::countDown);
    return ran.await(10, TimeUnit.SECONDS);
  }

  private void snapshotFailingAt(Step step) throws Exception {
    var o = open(RocksStore.FsyncPolicy.NO);
    addRange(o, "k", 0, 100);
    o.store().snapshot(o.engine());
    addRange(o, "k", 100, 200); // in the log only, until a snapshot covers them
    faults.arm(step, Action.ERROR);
    assertThatThrownBy(() -> o.store().snapshot(o.engine())).isInstanceOf(AssertionError.class);
    assertThat(o.store().dirtyValues()).as("the value is still marked changed").isEqualTo(1);
    o.store().snapshot(o.engine()); // the next round covers it, then truncates
    awaitDurable(o.store());
    o.store().close();

    var again = reopen();
    assertThat(items(again.engine(), "k")).isEqualTo(range(0, 200));
    again.store().close();
  }

  @Test
  void snapshot_errorWhileTheImageIsBuilt_keepsTheChangesOfTheValue() throws Exception {
    snapshotFailingAt(Step.SNAPSHOT_IMAGE);
  }

  @Test
  void snapshot_errorAfterTheChunks_keepsTheChangesOfTheValue() throws Exception {
    snapshotFailingAt(Step.SNAPSHOT_CHUNKS);
  }

  @Test
  void snapshot_failureBeforeItsTruncationIsWritten_isReported() throws Exception {
    var o = open(RocksStore.FsyncPolicy.NO);
    addRange(o, "k", 0, 50);
    awaitDurable(o.store());
    // The round's pointer and truncation go to a log that fails: the round did not happen.
    faults.arm(Step.COMMIT_WRITE, Action.ROCKSDB_ERROR);
    assertThatThrownBy(() -> o.store().snapshot(o.engine()))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("injected at COMMIT_WRITE");
    assertThat(o.store().snapshotsTaken()).isZero();
    o.store().close();
    var again = reopen();
    assertThat(items(again.engine(), "k")).isEqualTo(range(0, 50));
    again.store().close();
  }

  @Test
  void commit_failedGroup_nothingAfterItIsWritten() throws Exception {
    var o = open(RocksStore.FsyncPolicy.NO);
    addRange(o, "k", 0, 10);
    awaitDurable(o.store());
    faults.arm(Step.COMMIT_WRITE, Action.ROCKSDB_ERROR);
    add(o.engine(), "k", 10); // its group fails
    assertThat(waiterRuns(o.store(), o.store().lastSeq())).isTrue();
    assertThat(o.store().failure()).contains("cannot write the log").contains("injected");
    long durable = o.store().durableSeq();
    add(o.engine(), "k", 11); // after the failure: never written, or the log would have a hole
    add(o.engine(), "other", 1);
    assertThat(waiterRuns(o.store(), o.store().lastSeq())).isTrue();
    assertThat(o.store().durableSeq()).isEqualTo(durable);
    // A snapshot would write state the log does not hold, and a truncation behind it.
    assertThatThrownBy(() -> o.store().snapshot(o.engine()))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("cannot snapshot");
    o.store().close();

    var again = reopen();
    assertThat(items(again.engine(), "k")).isEqualTo(range(0, 10));
    assertThat(items(again.engine(), "other")).isNull();
    again.store().close();
  }

  @Test
  void commit_aCommandsChangesAreOneGroup_allInTheLogOrNone() throws Exception {
    var o = open(RocksStore.FsyncPolicy.NO);
    faults.arm(Step.COMMIT_WRITE, Action.PAUSE);
    boolean[] committedMidCommand = new boolean[1];
    // A command that creates its value and changes it: two changes.
    o.engine()
        .write(
            b("k"),
            tx -> {
              RocksStoreTest.LongSet s =
                  tx.create(
                      RocksStoreTest.LongSetCodec.INSTANCE,
                      new RocksStoreTest.LongSet(),
                      new byte[0]);
              try {
                committedMidCommand[0] = faults.awaitFired(1);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
              s.items.add(7L);
              tx.log((byte) 1, payload(7));
              return null;
            });
    assertThat(committedMidCommand[0])
        .as("the committer took the creation before the command ended")
        .isFalse();
    assertThat(faults.awaitFired(10)).isTrue(); // the command's group, paused
    faults.release();
    faults.arm(Step.COMMIT_WRITE, Action.ROCKSDB_ERROR); // any later group fails
    assertThat(waiterRuns(o.store(), o.store().lastSeq())).isTrue();
    o.store().close();

    var again = reopen();
    assertThat(items(again.engine(), "k"))
        .as("created and changed, or neither")
        .containsExactly(7L);
    again.store().close();
  }

  @Test
  void transaction_theChangesOfAllItsCommandsAreOneGroup_allInTheLogOrNone() throws Exception {
    var o = open(RocksStore.FsyncPolicy.NO);
    faults.arm(Step.COMMIT_WRITE, Action.PAUSE);
    boolean committedMidTransaction;
    // EXEC of two commands on two keys: one journal command around both.
    try (var tx = o.engine().transaction(null)) {
      add(o.engine(), "a", 1);
      committedMidTransaction = faults.awaitFired(1);
      add(o.engine(), "b", 2);
    }
    assertThat(committedMidTransaction)
        .as("the committer took the first command before the transaction ended")
        .isFalse();
    assertThat(faults.awaitFired(10)).isTrue(); // the transaction's group, paused
    faults.release();
    assertThat(waiterRuns(o.store(), o.store().lastSeq())).isTrue();
    o.store().close();

    var again = reopen();
    assertThat(items(again.engine(), "a")).containsExactly(1L);
    assertThat(items(again.engine(), "b")).containsExactly(2L);
    again.store().close();
  }

  @Test
  void commit_errorInTheCallbacks_refusesWritesAndWakesEveryWaiter() throws Exception {
    var o = open(RocksStore.FsyncPolicy.NO);
    add(o.engine(), "k", 0);
    awaitDurable(o.store());
    faults.arm(Step.COMMIT_WRITTEN, Action.ERROR);
    add(o.engine(), "k", 1);
    assertThat(waiterRuns(o.store(), o.store().lastSeq())).isTrue();
    assertThat(o.store().failure()).contains("injected at COMMIT_WRITTEN");
    // The committer lives on: a later change's waiter is woken, not left hanging.
    add(o.engine(), "k", 2);
    assertThat(waiterRuns(o.store(), o.store().lastSeq())).isTrue();
    o.store().close();
    var again = reopen();
    assertThat(items(again.engine(), "k")).containsExactly(0L, 1L); // the group was written
    again.store().close();
  }

  @Test
  void fsync_error_refusesWritesAndWakesWaiters() throws Exception {
    var o = open(RocksStore.FsyncPolicy.EVERYSEC);
    faults.arm(Step.FSYNC, Action.ERROR);
    add(o.engine(), "k", 1);
    awaitDurable(o.store());
    assertThat(faults.awaitFired(10)).isTrue();
    for (int i = 0; i < 100 && o.store().failure() == null; i++) {
      Thread.sleep(50);
    }
    assertThat(o.store().failure()).contains("cannot fsync the log");
    add(o.engine(), "k", 2);
    assertThat(waiterRuns(o.store(), o.store().lastSeq())).isTrue();
    o.store().close();
  }

  @Test
  void whenDurable_afterAFailure_runsAtOnce() throws Exception {
    var o = open(RocksStore.FsyncPolicy.NO);
    faults.arm(Step.COMMIT_WRITE, Action.ROCKSDB_ERROR);
    add(o.engine(), "k", 1);
    assertThat(waiterRuns(o.store(), o.store().lastSeq())).isTrue();
    // A seq the committer will never reach: run at once all the same, since it never will be.
    assertThat(waiterRuns(o.store(), o.store().lastSeq() + 1000)).isTrue();
    o.store().close();
  }

  @Test
  void snapshot_racingDeleteAndRename_losesNothing() throws Exception {
    var o = open(RocksStore.FsyncPolicy.NO);
    addRange(o, "a", 0, 20);
    addRange(o, "b", 0, 20);
    addRange(o, "c", 0, 20);
    // Hold the round after its first value's chunks: change the keyspace under it.
    faults.arm(Step.SNAPSHOT_CHUNKS, Action.PAUSE);
    Thread round =
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
    o.engine().delete(java.util.List.of(RocksStoreTest.b("a")));
    o.engine().rename(RocksStoreTest.b("b"), RocksStoreTest.b("c"), false);
    addRange(o, "c", 100, 110);
    addRange(o, "d", 0, 5);
    faults.release();
    round.join();
    awaitDurable(o.store());
    o.store().close();

    var again = reopen();
    assertThat(items(again.engine(), "a")).isNull();
    assertThat(items(again.engine(), "b")).isNull();
    TreeSet<Long> c = range(0, 20);
    c.addAll(range(100, 110));
    assertThat(items(again.engine(), "c")).isEqualTo(c);
    assertThat(items(again.engine(), "d")).isEqualTo(range(0, 5));
    again.store().close();
  }

  @Test
  void snapshot_afterAFlushNotYetWritten_keepsItsChunks() throws Exception {
    var o = open(RocksStore.FsyncPolicy.NO);
    addRange(o, "a", 0, 20);
    addRange(o, "b", 0, 20);
    awaitDurable(o.store());
    // FLUSHALL's range deletes wait in the queue while the new "a" is snapshotted: its chunks
    // must not be written before them, or they land after and take the chunks away.
    AutoCloseable paused = o.store().pauseCommitter();
    o.engine().flush();
    addRange(o, "a", 500, 510);
    Thread resume =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    Thread.sleep(300);
                    paused.close();
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                });
    o.store().snapshot(o.engine());
    resume.join();
    addRange(o, "a", 600, 605);
    awaitDurable(o.store());
    o.store().close();

    var again = reopen();
    TreeSet<Long> a = range(500, 510);
    a.addAll(range(600, 605));
    assertThat(items(again.engine(), "a")).isEqualTo(a);
    assertThat(items(again.engine(), "b")).isNull();
    again.store().close();
  }
}
