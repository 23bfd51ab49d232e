package io.idem.kafka;

import io.idem.core.dedup.ClaimStore;
import io.idem.core.dedup.DedupOps;
import io.idem.core.dedup.DedupSnapshot;
import io.idem.core.dedup.DedupTable;
import io.idem.core.dedup.ExactTable;
import io.idem.core.filter.BloomFilter;
import io.idem.core.store.RowChange;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.query.Position;
import org.jspecify.annotations.Nullable;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.StringAppendOperator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * A Kafka Streams state store holding one of core's dedup tables: its rows in its own RocksDB in
 * the task's state directory, its operations in a changelog topic.
 *
 * <p>Crash recovery does not replay the whole state. Every {@code checkpointMillis} the store
 * writes the table's pending claims as rows, flushes RocksDB's memory to its files and writes a
 * snapshot of what the table keeps in memory (its slice filters), with the stream time and the
 * sequence number of its next changelog record. After a crash, {@link #committedOffset} finds the
 * first changelog record the snapshot does not hold (a binary search by sequence over the changelog
 * partition: {@link ChangelogLookup}), and Streams restores from there: restore time is bounded by
 * the checkpoint interval, not by the state. Pending claims become rows only at a checkpoint (or
 * sooner, with one, when they take {@link #UNWRITTEN_SHARE a share} of the memory bound): a row
 * then gets many claims an append, which its columns and the store's compression pack tight, and a
 * restore never writes a claim into the rows that is there already. Under exactly-once, Streams
 * tells a store its changelog offsets only when a task closes or moves, so a running store cannot
 * know them; at such a close the snapshot takes the exact offset and needs no lookup. The changelog
 * holds about a window of operations (its topic deletes older records), enough to build the table
 * on a machine that has none of its files.
 *
 * <p>The snapshot and the rows may be ahead of the committed changelog (written by a transaction
 * that then aborted): claims carry their owner, the record's {@code topic/partition:offset}, so a
 * record processed again finds its own claim and is a retry, forwarded, never a duplicate.
 *
 * <p>One stream thread calls a store: not thread-safe.
 */
public final class DedupStore implements StateStore {

  static {
    RocksDB.loadLibrary();
  }

  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(DedupStore.class);

  private static final String SNAPSHOT = "snapshot";

  private static final int SNAPSHOT_MAGIC = 0x49444b31; // "IDK1"

  /** Claims not yet rows take at most this fraction of the memory bound before a checkpoint. */
  static final int UNWRITTEN_SHARE = 4;

  private final String name;
  private final DedupTable.Params params;
  private final boolean logged;
  private final long maxMemoryBytes;
  private final long checkpointMillis;

  private @Nullable DedupTable table;
  private @Nullable RocksDB db;
  private @Nullable Options options;
  private @Nullable StringAppendOperator append;
  private @Nullable WriteOptions writes;
  private @Nullable Path dir;
  private @Nullable InternalProcessorContext<?, ?> context;
  private final ClaimStore claims = new Rows();

  /** The changelog key of the next record: its place in the store's stream of operations. */
  private long sequence;

  /** Whether a snapshot is on disk (read at open, or written since). */
  private boolean snapshotted;

  /** The changelog offset the snapshot holds up to, or -1 if it was taken while processing. */
  private long snapshotOffset = -1;

  /** The changelog records the snapshot holds: those whose sequence is below this. */
  private long snapshotSequence;

  /** The stream time of the snapshot. */
  private long snapshotNow;

  /** The changelog offset of the last commit, and whether the table changed after it. */
  private long committed = -1;

  private boolean changedSinceCommit;

  /** Whether the table changed since the last checkpoint (an idle store writes none). */
  private boolean changedSinceCheckpoint;

  private long lastCheckpointNanos;

  /** The application's settings: an admin client's, for the changelog lookup after a crash. */
  private Map<String, Object> appConfigs = Map.of();

  /** The stream time of the last call: what a restored record moves the window to. */
  private long now;

  DedupStore(
      String name,
      DedupTable.Params params,
      boolean logged,
      long maxMemoryBytes,
      long checkpointMillis) {
    this.name = name;
    this.params = params;
    this.logged = logged;
    this.maxMemoryBytes = maxMemoryBytes;
    this.checkpointMillis = checkpointMillis;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void init(StateStoreContext ctx, StateStore root) {
    if (logged) {
      if (!(ctx instanceof InternalProcessorContext<?, ?> internal)) {
        throw new IllegalStateException(
            "dedup store " + name + ": a changelog needs Kafka Streams' own processor context");
      }
      context = internal;
    }
    dir = ctx.stateDir().toPath().resolve("idem-dedup").resolve(name);
    try {
      Files.createDirectories(dir);
      options =
          new Options()
              .setCreateIfMissing(true)
              // Ids and owners are text more often than not: ZSTD's entropy coding packs their
              // digits, which LZ4 leaves whole.
              .setCompressionType(CompressionType.ZSTD_COMPRESSION)
              .setTableFormatConfig(new org.rocksdb.BlockBasedTableConfig().setBlockSize(16 << 10))
              .setMergeOperator(append = new StringAppendOperator(""));
      db = RocksDB.open(options, dir.resolve("rows").toString());
      writes = new WriteOptions();
      table = readSnapshot();
    } catch (IOException | RocksDBException e) {
      close();
      throw new ProcessorStateException("dedup store " + name + " could not open " + dir, e);
    }
    appConfigs = ctx.appConfigs();
    log.debug(
        "dedup store {} of task {} opened: snapshot {} at offset {}, sequence {}, time {}",
        name,
        ctx.taskId(),
        snapshotted,
        snapshotOffset,
        snapshotSequence,
        snapshotNow);
    lastCheckpointNanos = System.nanoTime();
    ctx.register(root, (BatchingStateRestoreCallback) this::restoreAll);
  }

  /** The table as the snapshot left it, or a new one. */
  private DedupTable readSnapshot() throws IOException {
    Path file = dir.resolve(SNAPSHOT);
    if (!Files.exists(file)) {
      snapshotted = false;
      return DedupTable.create(params, 0);
    }
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16))) {
      if (in.readInt() != SNAPSHOT_MAGIC) {
        throw new IOException("not a dedup store snapshot: " + file);
      }
      snapshotOffset = in.readLong();
      snapshotSequence = in.readLong();
      snapshotNow = in.readLong();
      snapshotted = true;
      sequence = snapshotSequence;
      now = snapshotNow;
      DedupTable t = DedupSnapshot.read(in, maxMemoryBytes, BloomFilter.Storage.HEAP);
      if (!t.params().equals(params)) {
        throw new IOException(
            "dedup store "
                + name
                + " was made with "
                + t.params()
                + ", not "
                + params
                + ": give the store a new name, or reset the application");
      }
      return t;
    }
  }

  // ---- the table's calls

  /**
   * Claims the id for the owner at the event time, the stream being at {@code streamTime}.
   *
   * @throws io.idem.core.dedup.TableFullException if the table would pass its memory bound
   */
  DedupTable.Claimed claim(byte[] id, byte[] owner, long eventTime, long streamTime) {
    now = Math.max(now, streamTime);
    DedupTable.Claimed c =
        table()
            .claim(
                claims,
                DedupTable.Ids.of(id),
                new byte[][] {owner},
                new long[] {eventTime},
                now,
                bytes -> table().memoryBytes() + bytes <= maxMemoryBytes)
            .getFirst();
    if (!checkpointIfDue()) {
      checkpointIfFull();
    }
    return c;
  }

  /**
   * Writes a checkpoint if the table changed and the interval has passed since the last one: on
   * each claim, and on a wall-clock timer so that a store whose stream went quiet has one too.
   * Whether it wrote one.
   */
  boolean checkpointIfDue() {
    if (!changedSinceCheckpoint
        || System.nanoTime() - lastCheckpointNanos < checkpointMillis * 1_000_000) {
      return false;
    }
    checkpoint(-1);
    return true;
  }

  /** A checkpoint, if the claims not yet rows take their share of the memory bound. */
  private void checkpointIfFull() {
    if (table instanceof ExactTable exact
        && exact.unwrittenBytes() >= maxMemoryBytes / UNWRITTEN_SHARE) {
      checkpoint(-1);
    }
  }

  /** Releases the id if the owner holds it (EXACT and RECENT tables). */
  boolean release(byte[] id, byte[] owner, long streamTime) {
    now = Math.max(now, streamTime);
    return table().release(claims, id, owner, now);
  }

  /**
   * Moves the holder's claim of the id to the event time, so the window starts again (an inactivity
   * window): a release and a claim, both logged.
   */
  void refresh(byte[] id, byte[] holder, long eventTime, long streamTime) {
    if (release(id, holder, streamTime)) {
      claim(id, holder, eventTime, streamTime);
    }
  }

  /** Whether the id is claimed in the window. */
  boolean contains(byte[] id) {
    return table().contains(claims, id, now);
  }

  /** The bytes of the rows' values: what tests see of when rows are written. */
  long rowBytes() {
    long bytes = 0;
    try (org.rocksdb.RocksIterator it = db().newIterator()) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        bytes += it.value().length;
      }
    }
    return bytes;
  }

  DedupTable table() {
    if (table == null) {
      throw new IllegalStateException("dedup store " + name + " is not open");
    }
    return table;
  }

  /** The table's rows in RocksDB, and its operations to the changelog. */
  private final class Rows implements ClaimStore {
    @Override
    public byte @Nullable [] row(byte[] key) {
      try {
        return db().get(key);
      } catch (RocksDBException e) {
        throw new ProcessorStateException("dedup store " + name + " could not read a row", e);
      }
    }

    @Override
    public void record(byte op, byte[] payload, List<RowChange> rows) {
      changedSinceCommit = true;
      changedSinceCheckpoint = true;
      apply(rows);
      if (context != null) {
        byte[] key = ByteBuffer.allocate(8).putLong(sequence++).array();
        byte[] value = new ChangelogRecord(now, op, payload, rows).encode();
        // The wall-clock time, not the stream time: the changelog's retention deletes by it, and a
        // stream replayed from last month must not see its changelog deleted as it is written.
        context.logChange(
            name,
            Bytes.wrap(key),
            value,
            System.currentTimeMillis(),
            new RecordHeaders(),
            Position.emptyPosition());
      }
    }
  }

  private void apply(List<RowChange> rows) {
    if (rows.isEmpty()) {
      return;
    }
    try (WriteBatch batch = new WriteBatch()) {
      for (RowChange c : rows) {
        switch (c) {
          case RowChange.Put p -> batch.put(p.key(), p.value());
          case RowChange.Append a -> batch.merge(a.key(), a.bytes());
          case RowChange.Delete d -> batch.delete(d.key());
          case RowChange.DeleteRange r -> batch.deleteRange(r.from(), r.to());
        }
      }
      db().write(writes, batch);
    } catch (RocksDBException e) {
      throw new ProcessorStateException("dedup store " + name + " could not write rows", e);
    }
  }

  private RocksDB db() {
    if (db == null) {
      throw new IllegalStateException("dedup store " + name + " is not open");
    }
    return db;
  }

  // ---- restore

  private void restoreAll(Collection<KeyValue<byte[], byte[]>> records) {
    DedupTable t = table();
    for (KeyValue<byte[], byte[]> kv : records) {
      try {
        long seq = ByteBuffer.wrap(kv.key).getLong();
        if (seq < snapshotSequence) {
          continue; // in the snapshot already
        }
        ChangelogRecord r = ChangelogRecord.decode(kv.value);
        now = Math.max(now, r.now());
        // The window first, as the call that made the record moved it: the changelog may have
        // lost the ADVANCE before its first record to retention.
        t.advance(DISCARD, now);
        apply(r.rows());
        DedupOps.replay(t, r.op(), r.payload());
        sequence = Math.max(sequence, seq + 1);
        // A whole window restored (a new machine) must not hold every claim in memory.
        checkpointIfFull();
      } catch (IOException | RuntimeException e) {
        throw new ProcessorStateException(
            "dedup store " + name + " could not restore a changelog record", e);
      }
    }
  }

  /** Where restore's window moves record nothing: the changelog has them already. */
  private static final ClaimStore DISCARD =
      new ClaimStore() {
        @Override
        public byte @Nullable [] row(byte[] key) {
          throw new IllegalStateException("moving the window reads no row");
        }

        @Override
        public void record(byte op, byte[] payload, List<RowChange> rows) {}
      };

  // ---- commits and checkpoints

  @Override
  public boolean persistent() {
    return true;
  }

  /**
   * Deprecated in 4.3, where every store is to manage its offsets; until then Streams wipes a store
   * that does not after an exactly-once crash.
   */
  @Override
  @SuppressWarnings("deprecation")
  public boolean managesOffsets() {
    return true;
  }

  /**
   * Streams' commit of the task's changelog offsets: under exactly-once only when the task closes,
   * moves or restores, after the transaction; each time without it. An empty map (no changelog, or
   * a store about to be wiped) holds no offset.
   */
  @Override
  public void commit(Map<TopicPartition, Long> changelogOffsets) {
    changedSinceCommit = false;
    Long offset = offsetIn(changelogOffsets);
    if (offset != null && offset >= 0) {
      committed = offset;
      if (!snapshotted || System.nanoTime() - lastCheckpointNanos >= checkpointMillis * 1_000_000) {
        checkpoint(offset);
      }
    }
  }

  /** Nothing to do: the changelog holds what the table does, and the rows wait for a checkpoint. */
  @Override
  @SuppressWarnings("deprecation") // replaced by commit
  public void flush() {}

  /** This store's changelog offset among a commit's, if it logged anything. */
  private @Nullable Long offsetIn(Map<TopicPartition, Long> offsets) {
    String suffix = "-" + name + "-changelog";
    for (Map.Entry<TopicPartition, Long> e : offsets.entrySet()) {
      if (e.getKey().topic().endsWith(suffix)) {
        return e.getValue();
      }
    }
    return offsets.size() == 1 ? offsets.values().iterator().next() : null;
  }

  /**
   * An exact table's pending claims become rows now: written in one batch, not logged (their claims
   * are in the changelog already; the releases' records too).
   */
  private void writePending() {
    if (table instanceof ExactTable exact) {
      List<RowChange> rows = exact.startFlush(now, true);
      if (rows != null) {
        apply(rows);
        apply(exact.finishFlush());
      }
    }
  }

  /**
   * Writes the pending claims as rows, syncs them, then writes the snapshot: the table as of
   * changelog offset {@code offset}, or -1 if that is not known (while processing).
   */
  private void checkpoint(long offset) {
    writePending();
    Path file = dir.resolve(SNAPSHOT);
    Path tmp = dir.resolve(SNAPSHOT + ".tmp");
    try (FlushOptions wait = new FlushOptions().setWaitForFlush(true)) {
      // The rows to SST files, compressed, and the log they were in gone: a checkpoint's state is
      // what the table holds, not the writes that made it.
      db().flush(wait);
      try (OutputStream os = Files.newOutputStream(tmp)) {
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(os, 1 << 16));
        out.writeInt(SNAPSHOT_MAGIC);
        out.writeLong(offset);
        out.writeLong(sequence);
        out.writeLong(now);
        DedupSnapshot.write(table(), out, true);
        out.flush();
      }
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ch.force(true);
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      snapshotted = true;
      snapshotOffset = offset;
      snapshotSequence = sequence;
      snapshotNow = now;
      changedSinceCheckpoint = false;
      lastCheckpointNanos = System.nanoTime();
    } catch (IOException | RocksDBException e) {
      throw new ProcessorStateException("dedup store " + name + " could not checkpoint", e);
    }
  }

  /**
   * Where Streams restores from: the snapshot's offset if it was taken at a commit; if it was taken
   * while processing, the offset before the first changelog record at or after its stream time,
   * looked up on the changelog partition. Null (restore everything) if there is no snapshot or the
   * lookup fails.
   */
  @Override
  public @Nullable Long committedOffset(TopicPartition partition) {
    if (!snapshotted) {
      return null;
    }
    if (snapshotOffset >= 0) {
      return snapshotOffset;
    }
    Long found = ChangelogLookup.offsetBefore(appConfigs, partition, snapshotSequence);
    log.debug(
        "dedup store {}: {} from sequence {} is after offset {}",
        name,
        partition,
        snapshotSequence,
        found);
    if (found == null) {
      log.warn("dedup store {}: no changelog offset for its snapshot; it is restored whole", name);
    }
    return found;
  }

  // ---- lifecycle

  @Override
  public boolean isOpen() {
    return db != null;
  }

  @Override
  public void close() {
    if (db != null
        && table != null
        && committed >= 0
        && !changedSinceCommit
        && committed != snapshotOffset) {
      try {
        checkpoint(committed); // a clean close restores nothing
      } catch (RuntimeException e) {
        log.warn("dedup store {}: no checkpoint at close; the next start restores more", name, e);
      }
    }
    if (db != null) {
      db.close();
      db = null;
    }
    for (AutoCloseable c : Arrays.asList(writes, options, append)) {
      if (c != null) {
        try {
          c.close();
        } catch (Exception e) {
          log.warn("dedup store {}: closing {}", name, c, e);
        }
      }
    }
    writes = null;
    options = null;
    append = null;
    table = null;
  }
}
