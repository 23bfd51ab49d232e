package io.idem.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.store.RowChange;
import io.idem.server.engine.Engine;
import io.idem.server.engine.Entry;
import io.idem.server.engine.ValueCodec;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

/** The store keeps what the engine did across close and reopen, through snapshots and the log. */
class RocksStoreTest {

  @TempDir Path dir;

  /** A set of longs: op 1 adds, op 2 removes, each with an 8-byte payload. Deterministic. */
  static final class LongSet {
    final TreeSet<Long> items = new TreeSet<>();
  }

  static final class LongSetCodec implements ValueCodec<LongSet> {
    static final LongSetCodec INSTANCE = new LongSetCodec();

    @Override
    public byte typeId() {
      return 99;
    }

    @Override
    public String typeName() {
      return "longset";
    }

    /** So the rows tests can hang rows on it; the store then deletes them with the value. */
    @Override
    public boolean hasRows() {
      return true;
    }

    @Override
    public Class<LongSet> valueClass() {
      return LongSet.class;
    }

    @Override
    public LongSet create(byte[] recipe) {
      return new LongSet();
    }

    @Override
    public void apply(LongSet value, byte op, byte[] payload) throws IOException {
      if (payload.length != 8) {
        throw new IOException("bad payload");
      }
      long v = ByteBuffer.wrap(payload).getLong();
      switch (op) {
        case 1 -> value.items.add(v);
        case 2 -> value.items.remove(v);
        default -> throw new IOException("bad op " + op);
      }
    }

    @Override
    public void write(LongSet value, OutputStream out) throws IOException {
      DataOutputStream d = new DataOutputStream(out);
      d.writeInt(value.items.size());
      for (long v : value.items) {
        d.writeLong(v);
      }
      d.flush();
    }

    @Override
    public LongSet read(InputStream in, long maxBytes) throws IOException {
      DataInputStream d = new DataInputStream(in);
      int n = d.readInt();
      LongSet s = new LongSet();
      for (int i = 0; i < n; i++) {
        s.items.add(d.readLong());
      }
      return s;
    }

    @Override
    public long memoryUsage(LongSet value) {
      return 48L * value.items.size();
    }
  }

  static final Codecs CODECS = new Codecs(List.of(LongSetCodec.INSTANCE));

  private final AtomicLong clock = new AtomicLong(1_000_000);

  private RocksStore.Opened open() throws IOException {
    return RocksStore.open(dir, CODECS, RocksStore.FsyncPolicy.NO, clock::get);
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static byte[] payload(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }

  static void add(Engine engine, String key, long v) {
    engine.write(
        b(key),
        tx -> {
          LongSet s = tx.value(LongSetCodec.INSTANCE);
          if (s == null) {
            s = tx.create(LongSetCodec.INSTANCE, new LongSet(), new byte[0]);
          }
          if (s.items.add(v)) {
            tx.log((byte) 1, payload(v));
          }
          return null;
        });
  }

  static void remove(Engine engine, String key, long v) {
    engine.write(
        b(key),
        tx -> {
          LongSet s = tx.value(LongSetCodec.INSTANCE);
          if (s != null && s.items.remove(v)) {
            tx.log((byte) 2, payload(v));
          }
          return null;
        });
  }

  static TreeSet<Long> items(Engine engine, String key) {
    return engine.read(
        b(key), e -> e == null ? null : new TreeSet<>(e.valueAs(LongSetCodec.INSTANCE).items));
  }

  /** Waits until every change handed out is in the log, as a reply to a write would. */
  static void awaitDurable(RocksStore store) throws InterruptedException {
    CountDownLatch done = new CountDownLatch(1);
    store.whenDurable(store.lastSeq(), done::countDown);
    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
  }

  /** The log's keys: single records (8 bytes) and groups (9). */
  private List<byte[]> logKeys() throws Exception {
    StoreDb db = new StoreDb(dir);
    try (RocksIterator it = db.db.newIterator(db.log)) {
      List<byte[]> keys = new ArrayList<>();
      for (it.seekToFirst(); it.isValid(); it.next()) {
        keys.add(it.key());
      }
      return keys;
    } finally {
      db.close();
    }
  }

  @Test
  void aCommandLargerThanALogGroup_isWrittenAsSeveralGroups_andReplayedInOrder() throws Exception {
    var o = open();
    o.store().beginCommand(); // one commit group: 150,000 records of 29 bytes each
    for (long v = 0; v < 150_000; v++) {
      add(o.engine(), "k", v);
    }
    remove(o.engine(), "k", 7);
    o.store().endCommand();
    add(o.engine(), "other", 1);
    awaitDurable(o.store());
    o.store().close();
    List<byte[]> keys = logKeys();
    assertThat(keys).allMatch(k -> k.length == 9 && k[8] == Layout.GROUP_MARK);
    assertThat(keys.size()).isBetween(5, 6); // 4.35 MB in groups of at most 1 MiB, then one more
    var again = open();
    TreeSet<Long> items = items(again.engine(), "k");
    assertThat(items).hasSize(149_999).doesNotContain(7L).contains(0L, 149_999L);
    assertThat(items(again.engine(), "other")).containsExactly(1L);
    again.store().close();
  }

  @Test
  void aFormatOneStore_ofSingleLogRecords_isReplayedAndUpgraded() throws Exception {
    var o = open();
    for (long v = 0; v < 100; v++) {
      add(o.engine(), "k", v);
    }
    remove(o.engine(), "k", 50);
    awaitDurable(o.store());
    o.store().close();
    // Rewrite the log as format 1 kept it: one record a key, under its sequence number.
    StoreDb db = new StoreDb(dir);
    try (RocksIterator it = db.db.newIterator(db.log);
        WriteBatch b = new WriteBatch()) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        ByteBuffer v = ByteBuffer.wrap(it.value());
        while (v.hasRemaining()) {
          long seq = v.getLong();
          byte[] record = new byte[v.getInt()];
          v.get(record);
          b.put(db.log, Layout.seqKey(seq), record);
        }
        b.delete(db.log, it.key());
      }
      b.put(db.meta, Layout.META_FORMAT, ByteBuffer.allocate(4).putInt(1).array());
      db.db.write(db.noSync, b);
    } finally {
      db.close();
    }
    assertThat(logKeys()).hasSize(101).allMatch(k -> k.length == 8);
    var again = open();
    assertThat(items(again.engine(), "k")).hasSize(99).doesNotContain(50L);
    add(again.engine(), "k", 500);
    awaitDurable(again.store());
    again.store().close();
    StoreDb after = new StoreDb(dir);
    try {
      assertThat(ByteBuffer.wrap(after.db.get(after.meta, Layout.META_FORMAT)).getInt())
          .isEqualTo(Layout.FORMAT_VERSION);
    } finally {
      after.close();
    }
    assertThat(logKeys()).hasSize(102); // the old records, and a group for the new one
    var third = open();
    assertThat(items(third.engine(), "k")).hasSize(100).contains(500L);
    third.store().close();
  }

  @Test
  void namedValues_areWrittenWithTheirCommand_andReadBackAfterReopen() throws Exception {
    var o = open();
    RocksStore store = o.store();
    assertThat(store.meta("offset/idem/3")).isNull();
    // As a cluster node applies a record: the command's changes and the offset in one group.
    store.beginCommand();
    add(o.engine(), "k", 7);
    store.putMeta("offset/idem/3", payload(41));
    store.endCommand();
    assertThat(store.meta("offset/idem/3")).isEqualTo(payload(41)); // seen before it is written
    store.putMeta("offset/idem/3", payload(42));
    store.putMeta("offset/idem/4", payload(9));
    awaitDurable(store);
    o.store().close();

    var again = open();
    assertThat(again.store().meta("offset/idem/3")).isEqualTo(payload(42));
    assertThat(again.store().meta("offset/idem/4")).isEqualTo(payload(9));
    assertThat(again.store().meta("offset/other/3")).isNull();
    assertThat(items(again.engine(), "k")).containsExactly(7L);
    again.engine().flush(); // FLUSHALL clears the data, not where the log was read up to
    awaitDurable(again.store());
    again.store().close();
    var third = open();
    assertThat(third.store().meta("offset/idem/3")).isEqualTo(payload(42));
    third.store().close();
  }

  @Test
  void rows_readAsSoonAsJournaled_keptAcrossReopen_andDeletedWithTheirValue() throws Exception {
    var o = open();
    long id =
        o.engine()
            .write(
                b("k"),
                tx -> {
                  tx.create(LongSetCodec.INSTANCE, new LongSet(), new byte[0]);
                  tx.entry().valueAs(LongSetCodec.INSTANCE).items.add(1L);
                  tx.log(
                      (byte) 1,
                      payload(1),
                      List.of(new io.idem.core.store.RowChange.Put(b("r1"), b("v1"))));
                  return tx.entry().id();
                });
    assertThat(o.engine().rows().get(id, b("r1"))).isEqualTo(b("v1")); // before the commit too
    o.engine().rows().writeNow(id, List.of(new io.idem.core.store.RowChange.Put(b("r2"), b("v2"))));
    o.engine()
        .write(
            b("k"),
            tx -> {
              tx.entry().valueAs(LongSetCodec.INSTANCE).items.add(2L);
              tx.log(
                  (byte) 1, payload(2), List.of(new io.idem.core.store.RowChange.Delete(b("r1"))));
              return null;
            });
    assertThat(o.engine().rows().get(id, b("r1"))).isNull();
    awaitDurable(o.store());
    o.store().close();

    o = open();
    assertThat(o.engine().rows().get(id, b("r1"))).isNull();
    assertThat(o.engine().rows().get(id, b("r2"))).isEqualTo(b("v2"));
    assertThat(o.engine().rows().approximateBytes(id)).isPositive();
    assertThat(o.engine().delete(List.of(b("k")))).isEqualTo(1);
    awaitDurable(o.store()); // a range delete shows once written (see RowChange.DeleteRange)
    assertThat(o.engine().rows().get(id, b("r2"))).isNull();
    o.store().close();

    o = open();
    assertThat(o.engine().rows().get(id, b("r2"))).isNull();
    o.store().close();
  }

  @Test
  void rowAppends_concatenateInOrder_shownBeforeWritten_andKeptAcrossReopen() throws Exception {
    var o = open();
    long id =
        o.engine()
            .write(
                b("k"),
                tx -> {
                  tx.create(LongSetCodec.INSTANCE, new LongSet(), new byte[0]);
                  return tx.entry().id();
                });
    o.engine().rows().writeNow(id, List.of(new RowChange.Append(b("r"), b("ab"))));
    o.engine().rows().writeNow(id, List.of(new RowChange.Append(b("r"), b("cd"))));
    o.engine()
        .write(
            b("k"),
            tx -> {
              tx.entry().valueAs(LongSetCodec.INSTANCE).items.add(1L);
              tx.log(
                  (byte) 1,
                  payload(1),
                  List.of(
                      new RowChange.Append(b("r"), b("ef")),
                      new RowChange.Append(b("s"), b("gh"))));
              return null;
            });
    // Before the commit too: the row as it will be (the committer may write the append while
    // the read looks, which shows its bytes twice at the end: RowChange.Append's contract).
    assertThat(o.engine().rows().get(id, b("r"))).isIn(b("abcdef"), b("abcdefef"));
    assertThat(o.engine().rows().get(id, b("s"))).isIn(b("gh"), b("ghgh"));
    awaitDurable(o.store());
    assertThat(o.engine().rows().get(id, b("r"))).isEqualTo(b("abcdef"));
    o.store().close();

    o = open();
    assertThat(o.engine().rows().get(id, b("r"))).isEqualTo(b("abcdef"));
    o.engine().rows().writeNow(id, List.of(new RowChange.Append(b("r"), b("gh"))));
    assertThat(o.engine().rows().get(id, b("r"))).isEqualTo(b("abcdefgh"));
    o.store().close();
  }

  @Test
  void changesSurviveReopenFromTheLogAlone() throws Exception {
    var o = open();
    for (long i = 0; i < 1000; i++) {
      add(o.engine(), "a", i);
    }
    for (long i = 0; i < 1000; i += 3) {
      remove(o.engine(), "a", i);
    }
    add(o.engine(), "b", 7);
    TreeSet<Long> expected = items(o.engine(), "a");
    awaitDurable(o.store());
    o.store().close();

    var again = open();
    assertThat(items(again.engine(), "a")).isEqualTo(expected).hasSize(666);
    assertThat(items(again.engine(), "b")).containsExactly(7L);
    assertThat(again.engine().size()).isEqualTo(2);
    again.store().close();
  }

  @Test
  void snapshotsTruncateTheLogAndReplayOnlyWhatFollows() throws Exception {
    var o = open();
    Random r = new Random(42);
    TreeSet<Long> model = new TreeSet<>();
    for (int round = 0; round < 5; round++) {
      for (int i = 0; i < 2000; i++) {
        long v = r.nextInt(3000);
        if (r.nextBoolean()) {
          add(o.engine(), "s", v);
          model.add(v);
        } else {
          remove(o.engine(), "s", v);
          model.remove(v);
        }
      }
      if (round % 2 == 0) {
        o.store().snapshot(o.engine());
      }
    }
    awaitDurable(o.store());
    assertThat(o.store().snapshotsTaken()).isEqualTo(3);
    o.store().close();

    var again = open();
    assertThat(items(again.engine(), "s")).isEqualTo(model);
    // A snapshot right after load covers everything: the log is then empty.
    again.store().snapshot(again.engine());
    awaitDurable(again.store());
    again.store().close();
    var third = open();
    assertThat(items(third.engine(), "s")).isEqualTo(model);
    third.store().close();
  }

  @Test
  void aLogSnapshottedAtTheDefaultTrigger_isDroppedInMemory_roundAfterRound() throws Exception {
    var o = open();
    long v = 0;
    for (int round = 0; round < 3; round++) {
      while (o.store().logBytesSinceSnapshot() < RocksStore.LOG_BYTES_BEFORE_FLUSH) {
        for (int i = 0; i < 10_000; i++, v++) {
          add(o.engine(), "s", v);
          remove(o.engine(), "s", v);
        }
        awaitDurable(o.store());
      }
      // The whole round is still in the log's memtable: nothing flushed it on the way ...
      assertThat(o.store().logFileBytes()).as("round %d", round).isLessThan(64 << 10);
      o.store().snapshot(o.engine());
      awaitDurable(o.store());
      // ... and the truncation has it flushed, which drops what the truncation covers, so the
      // next round starts in an empty memtable (a range delete frees no memtable memory). RocksDB
      // switches a memtable marked for flush at the next write, which a write load soon makes.
      add(o.engine(), "s", -1);
      remove(o.engine(), "s", -1);
      awaitDurable(o.store());
      for (int tries = 0; tries < 1000 && o.store().logFlushing(); tries++) {
        Thread.sleep(10);
      }
      assertThat(o.store().logFlushing()).isFalse();
      assertThat(o.store().logMemtableBytes()).as("round %d", round).isLessThan(1 << 20);
      assertThat(o.store().logFileBytes()).as("round %d", round).isLessThan(64 << 10);
    }
    o.store().close();
    var again = open();
    assertThat(items(again.engine(), "s")).isEmpty();
    again.store().close();
  }

  @Test
  void bigValuesSpanSeveralChunks() throws Exception {
    var o = open();
    // 8 bytes per item: 1.2 M items are about 9.6 MB, three 4 MiB chunks.
    o.engine()
        .write(
            b("big"),
            tx -> {
              LongSet s = tx.create(LongSetCodec.INSTANCE, new LongSet(), new byte[0]);
              for (long i = 0; i < 1_200_000; i++) {
                s.items.add(i * 7);
              }
              tx.log((byte) 1, payload(-1));
              s.items.add(-1L);
              return null;
            });
    o.store().snapshot(o.engine());
    awaitDurable(o.store());
    o.store().close();
    var again = open();
    TreeSet<Long> got = items(again.engine(), "big");
    assertThat(got).hasSize(1_200_001).contains(-1L, 0L, 7L * 1_199_999);
    again.store().close();
  }

  @Test
  void deleteRenameExpireAndFlushAreDurable() throws Exception {
    var o = open();
    Engine e = o.engine();
    add(e, "gone", 1);
    add(e, "from", 2);
    add(e, "over", 3);
    add(e, "ttl", 4);
    add(e, "kept", 5);
    o.store().snapshot(e);
    assertThat(e.delete(List.of(b("gone")))).isEqualTo(1);
    assertThat(e.rename(b("from"), b("over"), false)).isEqualTo(Engine.RenameResult.RENAMED);
    assertThat(e.expireAt(b("ttl"), clock.get() + 5000, Engine.ExpireCondition.ALWAYS)).isTrue();
    add(e, "over", 6);
    awaitDurable(o.store());
    o.store().close();

    var again = open();
    Engine e2 = again.engine();
    assertThat(items(e2, "gone")).isNull();
    assertThat(items(e2, "from")).isNull();
    assertThat(items(e2, "over")).containsExactly(2L, 6L);
    assertThat(items(e2, "kept")).containsExactly(5L);
    assertThat(e2.ttlMillis(b("ttl"))).isEqualTo(5000);
    clock.addAndGet(5000);
    assertThat(e2.expireDue(10)).isEqualTo(1);
    e2.flush();
    add(e2, "after", 9);
    awaitDurable(again.store());
    again.store().close();

    var third = open();
    assertThat(third.engine().size()).isEqualTo(1);
    assertThat(items(third.engine(), "after")).containsExactly(9L);
    third.store().close();
  }

  @Test
  void aValueCreatedAgainAfterDeleteDoesNotReplayTheOldLog() throws Exception {
    var o = open();
    add(o.engine(), "k", 1);
    add(o.engine(), "k", 2);
    o.engine().delete(List.of(b("k")));
    add(o.engine(), "k", 3);
    awaitDurable(o.store());
    o.store().close();
    var again = open();
    assertThat(items(again.engine(), "k")).containsExactly(3L);
    again.store().close();
  }

  @Test
  void anUnknownTypeOrFormatIsAClearError() throws Exception {
    var o = open();
    add(o.engine(), "k", 1);
    awaitDurable(o.store());
    o.store().close();
    assertThatThrownBy(
            () ->
                RocksStore.open(dir, new Codecs(List.of()), RocksStore.FsyncPolicy.NO, clock::get))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("unknown value type 99");
  }

  @Test
  void anUnusableDirectoryIsAClearError() throws Exception {
    Path file = dir.resolve("file");
    Files.writeString(file, "x");
    assertThatThrownBy(() -> RocksStore.open(file, CODECS, RocksStore.FsyncPolicy.NO, clock::get))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(file.toString());
  }

  @Test
  void durableWaitersRunInOrderOnceTheLogHasTheirChange() throws Exception {
    var o = open();
    add(o.engine(), "k", 1);
    long seq = o.store().lastSeq();
    CountDownLatch ran = new CountDownLatch(1);
    o.store().whenDurable(seq, ran::countDown);
    assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(o.store().durableSeq()).isGreaterThanOrEqualTo(seq);
    Entry e = o.engine().read(b("k"), x -> x);
    assertThat(e).isNotNull();
    o.store().close();
  }
}
