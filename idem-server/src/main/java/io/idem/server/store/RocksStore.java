package io.idem.server.store;

import io.idem.server.engine.Engine;
import io.idem.server.engine.Entry;
import io.idem.server.engine.Journal;
import io.idem.server.engine.Key;
import io.idem.server.engine.RowChange;
import io.idem.server.engine.Rows;
import io.idem.server.engine.ValueCodec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable keyspace: resident values snapshotted into RocksDB, and every change between
 * snapshots logged through RocksDB's write-ahead log by one committer thread (group commit).
 *
 * <p>Column families and their byte layouts (format version 1, all integers big-endian):
 *
 * <pre>
 * default  "format"                      -> u32 format version (1)
 *          "seq"                         -> u64 last sequence number written
 * names    'k' key bytes                 -> u64 value id | i64 expiry millis (Long.MAX_VALUE: none)
 * objects  u64 id                        -> u8 type | u64 snapshot seq | i64 snapshot version
 *                                           (-1: none, build from the recipe) | u32 n | n bytes recipe
 * chunks   u64 id | i64 version | u32 i  -> up to 4 MiB of the value's snapshot, chunk i
 * log      u64 seq                       -> u64 id | u8 op | payload (ValueCodec.apply's bytes)
 * rows     u64 id | row key              -> row value (stored values' rows, see engine.Rows)
 * </pre>
 *
 * <p>Invariants: a value is its snapshot (or its recipe) plus the log records of its id with a
 * sequence number above its snapshot seq, applied in order. A value is live iff a name points at
 * it; objects and chunks no name or version points at are garbage, removed at start. The log is
 * truncated only below a sequence number every dirty value has been snapshotted past. Rows are
 * written in the same batch as the log record of the operation that changed them and are never
 * truncated; rows no live id owns are garbage, removed with their value or at start.
 */
public final class RocksStore implements Journal {

  private static final Logger log = LoggerFactory.getLogger(RocksStore.class);

  static final int FORMAT_VERSION = 1;
  static final int CHUNK_BYTES = 4 << 20;
  private static final byte[] META_FORMAT = "format".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] META_SEQ = "seq".getBytes(StandardCharsets.US_ASCII);
  private static final byte NAME_PREFIX = 'k';

  /** A snapshot bigger than this is refused on load as corrupt: no value is near it. */
  private static final long MAX_SNAPSHOT_BYTES = 64L << 30;

  /** When the write-ahead log is fsynced. */
  public enum FsyncPolicy {
    ALWAYS,
    EVERYSEC,
    NO;

    public static FsyncPolicy parse(String s) {
      return valueOf(s.toUpperCase(java.util.Locale.ROOT));
    }
  }

  private final Path dir;
  private final RocksDB db;
  private final DBOptions dbOptions;
  private final ColumnFamilyOptions cfOptions;
  private final List<ColumnFamilyHandle> handles;
  private final ColumnFamilyHandle meta;
  private final ColumnFamilyHandle names;
  private final ColumnFamilyHandle objects;
  private final ColumnFamilyHandle chunks;
  private final ColumnFamilyHandle logCf;
  private final ColumnFamilyHandle rowsCf;
  private final ColumnFamilyOptions rowsOptions;
  private final ColumnFamilyOptions logOptions;
  private final org.rocksdb.StringAppendOperator rowsMerge =
      new org.rocksdb.StringAppendOperator("");

  /**
   * RocksDB's memtables, held near a budget: once those of all column families together pass 7/8 of
   * {@link #MEMTABLE_BUDGET}, the family whose memtable is oldest is flushed. They are charged to
   * this cache, the rows' block cache, so blocks give way to them. Not a hard cap: while flushes
   * lag, memtables grow on (each family's limit of buffers). Writes are not stalled at the budget:
   * the committer would stop while the commands it has not written pile up in the heap (a stalling
   * manager ran a 256 MiB heap out of memory under the counter benchmark's load). Left to their
   * defaults ({@code optimizeLevelStyleCompaction()}: 128 MiB buffers) memtables alone took
   * hundreds of MiB under that load (BENCHMARKS.md). Index and filter blocks, and the small
   * families' own block caches, are outside this budget.
   */
  private final org.rocksdb.Cache rowsCache = new org.rocksdb.LRUCache(CACHE_BYTES);

  private final org.rocksdb.WriteBufferManager memtables =
      new org.rocksdb.WriteBufferManager(MEMTABLE_BUDGET, rowsCache, false);

  static final long MEMTABLE_BUDGET = 64L << 20;
  static final long CACHE_BYTES = MEMTABLE_BUDGET + (32L << 20);
  private final org.rocksdb.BloomFilter rowsFilter = new org.rocksdb.BloomFilter(10, false);
  private final Codecs codecs;

  /**
   * Row changes handed out but not yet written, by scoped key: a read must see them (a claim in
   * flight must not be claimed again). A delete is an empty array of its own (a put is never
   * empty), so a written change's cleanup removes only its own entry, never a later delete's.
   */
  private final Map<ByteBuffer, byte[]> unwrittenRows = new ConcurrentHashMap<>();

  /**
   * Appends handed out but not yet written, by scoped key, oldest first: only their bytes, never
   * the row they go after, which a background write ({@code writeNow}) may change meanwhile. Each
   * array is replaced, never changed, so a reader can take it without a lock.
   */
  private final Map<ByteBuffer, byte[][]> unwrittenAppends = new ConcurrentHashMap<>();

  // Appends: sequence numbers are handed out and ops queued under appendLock, so the committer
  // writes them in sequence order.
  private final ReentrantLock appendLock = new ReentrantLock();
  private final Condition hasWork = appendLock.newCondition();
  private ArrayList<Op> pending = new ArrayList<>();
  private volatile long lastSeq; // written under appendLock
  private boolean committerWaiting;
  private boolean closing;
  private boolean paused;

  private volatile long durableSeq;
  private volatile long syncedSeq;
  private volatile @Nullable String failure;
  private volatile WriteOptions writeOptions;
  private volatile FsyncPolicy policy;
  private final WriteOptions noSync = new WriteOptions();
  private final WriteOptions sync = new WriteOptions().setSync(true);

  private final ReentrantLock waiterLock = new ReentrantLock();
  private ArrayList<Waiter> waiters = new ArrayList<>();

  /**
   * The seq of the last FLUSHALL, whose range deletes cover every id's chunks: a snapshot writes
   * its chunks only once that is in the log, or the deletes would land after and take them.
   */
  private volatile long lastFlushSeq;

  /** Values changed since their last snapshot, by id. */
  private final Map<Long, Entry> dirty = new ConcurrentHashMap<>();

  private final java.util.concurrent.atomic.AtomicLong logBytesSinceSnapshot =
      new java.util.concurrent.atomic.AtomicLong();
  private final ReentrantLock snapshotLock = new ReentrantLock();
  private volatile long lastSnapshotMillis;
  private volatile long lastSnapshotSeq;
  private volatile long lastSnapshotDurationMillis;
  private volatile long snapshotsTaken;
  private volatile boolean snapshotRunning;

  private final Thread committer;
  private final Thread syncer;
  private final StoreFaults faults;

  private record Waiter(long seq, Runnable action) {}

  /** What one change puts into the committer's batch, given its sequence number. */
  @FunctionalInterface
  private interface Write {
    void to(WriteBatch batch, long seq) throws RocksDBException;
  }

  /**
   * One change, written into the committer's batch in sequence order.
   *
   * @param logBytes bytes it adds to the log, for the snapshot trigger
   * @param numbered told the change's number once it has one (a command's changes get theirs when
   *     it ends)
   */
  private record Op(
      long seq,
      Write write,
      long logBytes,
      @Nullable Runnable written,
      java.util.function.@Nullable LongConsumer numbered) {}

  static {
    RocksDB.loadLibrary();
  }

  private RocksStore(Path dir, Codecs codecs, FsyncPolicy policy, StoreFaults faults)
      throws IOException {
    this.dir = dir;
    this.codecs = codecs;
    this.faults = faults;
    this.policy = policy;
    this.writeOptions = policy == FsyncPolicy.ALWAYS ? sync : noSync;
    try {
      prepareDirectory(dir);
    } catch (IOException e) {
      closeOwnNatives();
      throw e;
    }
    cfOptions = new ColumnFamilyOptions().optimizeLevelStyleCompaction(MEMTABLE_BUDGET);
    rowsOptions = rowsOptions();
    logOptions = logOptions();
    List<ColumnFamilyDescriptor> descriptors =
        List.of(
            new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions),
            new ColumnFamilyDescriptor(bytes("names"), cfOptions),
            new ColumnFamilyDescriptor(bytes("objects"), cfOptions),
            new ColumnFamilyDescriptor(bytes("chunks"), cfOptions),
            new ColumnFamilyDescriptor(bytes("log"), logOptions),
            new ColumnFamilyDescriptor(bytes("rows"), rowsOptions));
    dbOptions =
        new DBOptions()
            .setCreateIfMissing(true)
            .setCreateMissingColumnFamilies(true)
            .setMaxTotalWalSize(256L << 20)
            .setWriteBufferManager(memtables)
            .setKeepLogFileNum(5)
            .setInfoLogLevel(org.rocksdb.InfoLogLevel.WARN_LEVEL);
    handles = new ArrayList<>();
    try {
      db = RocksDB.open(dbOptions, dir.toString(), descriptors, handles);
    } catch (RocksDBException e) {
      dbOptions.close();
      cfOptions.close();
      rowsOptions.close();
      logOptions.close();
      closeOwnNatives();
      String m = String.valueOf(e.getMessage());
      if (m.contains("lock file") || m.contains("LOCK")) {
        // RocksDB's own text names a thread and a time when the holder is this process.
        throw new IOException(
            "cannot open the data directory "
                + dir
                + ": it is in use by another Idem server ("
                + dir.resolve("LOCK")
                + " is locked)",
            e);
      }
      throw new IOException("cannot open the data directory " + dir + ": " + m, e);
    }
    meta = handles.get(0);
    names = handles.get(1);
    objects = handles.get(2);
    chunks = handles.get(3);
    logCf = handles.get(4);
    rowsCf = handles.get(5);
    committer = Thread.ofPlatform().name("idem-commit").daemon().unstarted(this::commitLoop);
    syncer = Thread.ofPlatform().name("idem-fsync").daemon().unstarted(this::syncLoop);
  }

  /**
   * Rows are many small records read by point lookups (exact dedup ids), and only for keys a
   * value's own in-memory index says may be there: whole-key Bloom filters spare a read on the
   * upper levels, but none is kept for the bottom level, where most rows are and a lookup usually
   * finds its key (1.25 bytes a row saved). Compression pays for itself on repeated owner bytes and
   * zeroed sequence numbers; keys share long prefixes (value id, slice), so restarts are sparse.
   * Appends are merges that concatenate (no delimiter): compaction joins them into one value.
   */
  private ColumnFamilyOptions rowsOptions() {
    return new ColumnFamilyOptions()
        .optimizeLevelStyleCompaction(2 * MEMTABLE_BUDGET) // 32 MiB buffers, level 1 of 128 MiB
        .setMergeOperator(rowsMerge)
        .setOptimizeFiltersForHits(true)
        .setMemtableWholeKeyFiltering(true)
        .setMemtablePrefixBloomSizeRatio(0.02)
        .setTableFormatConfig(
            new org.rocksdb.BlockBasedTableConfig()
                .setBlockCache(rowsCache)
                .setFilterPolicy(rowsFilter)
                .setBlockRestartInterval(32)
                .setBlockSize(16 << 10))
        .setCompressionType(org.rocksdb.CompressionType.LZ4_COMPRESSION)
        .setBottommostCompressionType(org.rocksdb.CompressionType.ZSTD_COMPRESSION);
  }

  /**
   * The log's records live until the next snapshot truncates them. One memtable as large as the
   * whole budget holds the log written between two snapshots when the server snapshots at {@link
   * #LOG_BYTES_BEFORE_FLUSH}, and the truncation (a range delete) marks it for flush: the flush
   * drops the records the truncation covers, and writes to disk only those that came after it. A
   * range delete frees no memtable memory, so without the flush the next round's records would push
   * the memtable past the budget and be flushed before their own truncation. With 16 MiB buffers
   * (b8b14fb) each round's log was flushed before its truncation: 18 MiB of a 24 MiB log, and two
   * thirds of RocksDB's background CPU under BF.ADD (BENCHMARKS.md). What is flushed is not
   * compressed: it is soon deleted.
   */
  private static ColumnFamilyOptions logOptions() {
    return new ColumnFamilyOptions()
        .setWriteBufferSize(MEMTABLE_BUDGET)
        .setMaxWriteBufferNumber(3)
        .setMinWriteBufferNumberToMerge(1)
        .setMemtableMaxRangeDeletions(1)
        .setTargetFileSizeBase(MEMTABLE_BUDGET)
        .setMaxBytesForLevelBase(4 * MEMTABLE_BUDGET)
        .setCompressionType(org.rocksdb.CompressionType.NO_COMPRESSION);
  }

  /**
   * Log bytes (as {@link #logBytesSinceSnapshot()} counts them) that fit in the log's memtable with
   * room to spare, so a snapshot started here truncates the log before it is flushed. An entry
   * takes more than its record (internal key, skip-list node): BF.ADD's took 1.5-1.6 times its log
   * bytes, and the write buffer manager flushes at 7/8 of {@link #MEMTABLE_BUDGET}.
   */
  public static final long LOG_BYTES_BEFORE_FLUSH = 3 * MEMTABLE_BUDGET / 8;

  /**
   * Opens (or creates) the store in {@code dir}, loads every live value into a new engine, and
   * starts the committer. The engine's changes are journaled here from then on.
   */
  public static Opened open(
      Path dir, Codecs codecs, FsyncPolicy policy, java.util.function.LongSupplier clock)
      throws IOException {
    return open(dir, codecs, policy, clock, StoreFaults.NONE);
  }

  /** As above, with faults injected where {@code faults} says (tests of the failure paths). */
  public static Opened open(
      Path dir,
      Codecs codecs,
      FsyncPolicy policy,
      java.util.function.LongSupplier clock,
      StoreFaults faults)
      throws IOException {
    RocksStore store = new RocksStore(dir, codecs, policy, faults);
    try {
      Engine engine = store.load(clock);
      store.committer.start();
      store.syncer.start();
      return new Opened(store, engine);
    } catch (IOException | RuntimeException e) {
      store.closeDb();
      throw e;
    }
  }

  /** A store and the engine it loaded. */
  public record Opened(RocksStore store, Engine engine) {}

  // ---- loading

  private Engine load(java.util.function.LongSupplier clock) throws IOException {
    long started = System.nanoTime();
    try {
      byte[] format = db.get(meta, META_FORMAT);
      if (format == null) {
        db.put(meta, META_FORMAT, ByteBuffer.allocate(4).putInt(FORMAT_VERSION).array());
      } else if (format.length != 4 || ByteBuffer.wrap(format).getInt() != FORMAT_VERSION) {
        throw new IOException(
            "the data directory "
                + dir
                + " holds store format "
                + (format.length == 4 ? ByteBuffer.wrap(format).getInt() : -1)
                + "; this Idem reads format "
                + FORMAT_VERSION);
      }
      byte[] seq = db.get(meta, META_SEQ);
      long last = seq == null ? 0 : ByteBuffer.wrap(seq).getLong();

      // Names: which ids are live, under which key, until when.
      Map<Long, byte[]> nameOf = new HashMap<>();
      Map<Long, Long> expiryOf = new HashMap<>();
      try (RocksIterator it = db.newIterator(names)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          byte[] k = it.key();
          ByteBuffer v = ByteBuffer.wrap(it.value());
          if (k.length < 1 || k[0] != NAME_PREFIX || v.remaining() != 16) {
            throw new IOException("corrupt name record in " + dir);
          }
          long id = v.getLong();
          nameOf.put(id, Arrays.copyOfRange(k, 1, k.length));
          expiryOf.put(id, v.getLong());
        }
      }

      // Objects: snapshot or recipe of each live id; garbage goes.
      Map<Long, Loaded> loaded = new HashMap<>();
      long maxId = 0;
      try (WriteBatch garbage = new WriteBatch();
          RocksIterator it = db.newIterator(objects)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          long id = ByteBuffer.wrap(it.key()).getLong();
          maxId = Math.max(maxId, id);
          if (!nameOf.containsKey(id)) {
            garbage.delete(objects, it.key());
            garbage.deleteRange(chunks, idKey(id), idKey(id + 1));
            continue;
          }
          loaded.put(id, loadObject(id, it.value()));
        }
        db.write(noSync, garbage);
      }
      for (Long id : nameOf.keySet()) {
        if (!loaded.containsKey(id)) {
          throw new IOException("corrupt store in " + dir + ": key without value, id " + id);
        }
      }
      dropStaleChunks(loaded);
      dropOrphanRows(nameOf.keySet());

      // The log: replay each live value's changes after its snapshot, in order.
      long replayed = 0;
      try (RocksIterator it = db.newIterator(logCf)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          long s = ByteBuffer.wrap(it.key()).getLong();
          last = Math.max(last, s);
          ByteBuffer v = ByteBuffer.wrap(it.value());
          long id = v.getLong();
          maxId = Math.max(maxId, id);
          Loaded l = loaded.get(id);
          if (l == null || s <= l.snapshotSeq) {
            continue;
          }
          byte op = v.get();
          byte[] payload = new byte[v.remaining()];
          v.get(payload);
          apply(l, op, payload);
          l.dirty = true;
          replayed++;
        }
      }
      this.lastSeq = last;
      this.lastSnapshotSeq = last;
      this.durableSeq = last;
      this.syncedSeq = last;

      Engine engine = new Engine(this, maxId + 1, clock);
      for (Map.Entry<Long, Loaded> e : loaded.entrySet()) {
        long id = e.getKey();
        Loaded l = e.getValue();
        Entry entry = engine.load(new Key(nameOf.get(id)), id, l.codec, l.value, expiryOf.get(id));
        if (l.dirty) {
          dirty.put(id, entry);
        }
      }
      lastSnapshotMillis = System.currentTimeMillis();
      log.info(
          "loaded {} keys and replayed {} log records from {} in {} ms",
          loaded.size(),
          replayed,
          dir,
          (System.nanoTime() - started) / 1_000_000);
      return engine;
    } catch (RocksDBException e) {
      throw new IOException("cannot read the data directory " + dir + ": " + e.getMessage(), e);
    }
  }

  private static final class Loaded {
    final ValueCodec<?> codec;
    final Object value;
    final long snapshotSeq;
    final long version;
    boolean dirty;

    Loaded(ValueCodec<?> codec, Object value, long snapshotSeq, long version) {
      this.codec = codec;
      this.value = value;
      this.snapshotSeq = snapshotSeq;
      this.version = version;
    }
  }

  @SuppressWarnings("unchecked")
  private static void apply(Loaded l, byte op, byte[] payload) throws IOException {
    ((ValueCodec<Object>) l.codec).apply(l.value, op, payload);
  }

  private Loaded loadObject(long id, byte[] record) throws IOException, RocksDBException {
    ByteBuffer v = ByteBuffer.wrap(record);
    if (v.remaining() < 21) {
      throw new IOException("corrupt object record for id " + id);
    }
    byte type = v.get();
    long snapshotSeq = v.getLong();
    long version = v.getLong();
    int n = v.getInt();
    if (n < 0 || n != v.remaining()) {
      throw new IOException("corrupt object record for id " + id);
    }
    byte[] recipe = new byte[n];
    v.get(recipe);
    ValueCodec<?> codec = codecs.byId(type);
    if (codec == null) {
      throw new IOException("unknown value type " + (type & 0xff) + " for id " + id);
    }
    Object value;
    if (version < 0) {
      value = codec.create(recipe);
    } else {
      try (InputStream in = new ChunkInput(id, version)) {
        value = codec.read(in, MAX_SNAPSHOT_BYTES);
      }
    }
    return new Loaded(codec, value, snapshotSeq, version);
  }

  /** Removes rows of ids no name points at (defensive: deletes take them in the same batch). */
  private void dropOrphanRows(java.util.Set<Long> live) throws RocksDBException {
    try (WriteBatch garbage = new WriteBatch();
        RocksIterator it = db.newIterator(rowsCf)) {
      it.seekToFirst();
      while (it.isValid()) {
        long id = ByteBuffer.wrap(it.key(), 0, 8).getLong();
        if (!live.contains(id)) {
          garbage.deleteRange(rowsCf, idKey(id), idKey(id + 1));
        }
        it.seek(idKey(id + 1));
      }
      db.write(noSync, garbage);
    }
  }

  /** Removes chunks of versions no object points at (a snapshot cut short by a crash). */
  private void dropStaleChunks(Map<Long, Loaded> loaded) throws RocksDBException {
    try (WriteBatch garbage = new WriteBatch();
        RocksIterator it = db.newIterator(chunks)) {
      it.seekToFirst();
      while (it.isValid()) {
        ByteBuffer k = ByteBuffer.wrap(it.key());
        long id = k.getLong();
        long version = k.getLong();
        Loaded l = loaded.get(id);
        if (l == null || l.version != version) {
          byte[] from = chunkKey(id, version, 0);
          byte[] to = version == Long.MAX_VALUE ? idKey(id + 1) : chunkKey(id, version + 1, 0);
          garbage.deleteRange(chunks, from, to);
          it.seek(to);
        } else {
          it.seek(chunkKey(id, version + 1, 0));
        }
      }
      db.write(noSync, garbage);
    }
  }

  /** Streams one snapshot's chunks in order, one chunk in memory at a time. */
  private final class ChunkInput extends InputStream {
    private final RocksIterator it;
    private final long id;
    private final long version;
    private int nextIndex;
    private byte @Nullable [] buf;
    private int pos;

    ChunkInput(long id, long version) {
      this.id = id;
      this.version = version;
      this.it = db.newIterator(chunks);
      it.seek(chunkKey(id, version, 0));
    }

    private boolean fill() throws IOException {
      while (buf == null || pos == buf.length) {
        if (!it.isValid()) {
          return false;
        }
        ByteBuffer k = ByteBuffer.wrap(it.key());
        if (k.remaining() != 20 || k.getLong() != id || k.getLong() != version) {
          return false;
        }
        if (k.getInt() != nextIndex) {
          throw new IOException("snapshot of value " + id + " misses chunk " + nextIndex);
        }
        buf = it.value();
        pos = 0;
        nextIndex++;
        it.next();
      }
      return true;
    }

    @Override
    public int read() throws IOException {
      return fill() ? buf[pos++] & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      if (!fill()) {
        return -1;
      }
      int n = Math.min(len, buf.length - pos);
      System.arraycopy(buf, pos, b, off, n);
      pos += n;
      return n;
    }

    @Override
    public void close() {
      it.close();
    }
  }

  // ---- the journal

  /**
   * Hands out the next sequence number and queues the change under it, so the committer writes
   * changes in sequence order. Callers update the dirty set first: a snapshot round that starts
   * after this number then sees it.
   */
  private long append(long logBytes, Write write) {
    return append(logBytes, write, null);
  }

  /**
   * As above; {@code written} runs on the committer once the change is in the log. Inside a command
   * (see {@link #beginCommand}) the change waits for the command's end, and 0 is returned: its
   * number is handed out then.
   */
  private long append(long logBytes, Write write, @Nullable Runnable written) {
    return append(logBytes, write, written, null);
  }

  /** As above; {@code numbered} gets the change's number as soon as it has one. */
  private long append(
      long logBytes,
      Write write,
      @Nullable Runnable written,
      java.util.function.@Nullable LongConsumer numbered) {
    OpenCommand open = openCommand.get();
    if (open.depth > 0) {
      open.ops.add(new Op(0, write, logBytes, written, numbered));
      return 0;
    }
    appendLock.lock();
    try {
      long seq = ++lastSeq;
      pending.add(new Op(seq, write, logBytes, written, null));
      if (numbered != null) {
        numbered.accept(seq);
      }
      wakeCommitter();
      return seq;
    } finally {
      appendLock.unlock();
    }
  }

  /** Caller holds appendLock. */
  private void wakeCommitter() {
    if (committerWaiting) {
      committerWaiting = false;
      hasWork.signal();
    }
  }

  /** The changes a command on this thread journaled so far, queued when it ends. */
  private static final class OpenCommand {
    int depth;
    final ArrayList<Op> ops = new ArrayList<>();
  }

  private final ThreadLocal<OpenCommand> openCommand = ThreadLocal.withInitial(OpenCommand::new);

  @Override
  public void beginCommand() {
    openCommand.get().depth++;
  }

  /**
   * Queues the command's changes under consecutive numbers in one step, so the committer takes them
   * in one group: one WriteBatch, all in the log after a crash or none.
   */
  @Override
  public void endCommand() {
    OpenCommand open = openCommand.get();
    if (--open.depth > 0 || open.ops.isEmpty()) {
      return;
    }
    appendLock.lock();
    try {
      for (Op op : open.ops) {
        long seq = ++lastSeq;
        pending.add(new Op(seq, op.write(), op.logBytes(), op.written(), null));
        if (op.numbered() != null) {
          op.numbered().accept(seq);
        }
      }
      wakeCommitter();
    } finally {
      appendLock.unlock();
      open.ops.clear();
    }
  }

  @Override
  public long lastSeq() {
    return lastSeq;
  }

  @Override
  public long durableSeq() {
    return durableSeq;
  }

  @Override
  public void created(Entry entry, byte[] recipe) {
    byte[] name = nameKey(entry.key());
    byte[] nameValue = nameValue(entry);
    long id = entry.id();
    byte type = entry.codec().typeId();
    append(
        0,
        (b, seq) -> {
          b.put(names, name, nameValue);
          b.put(objects, idKey(id), objectValue(type, seq, -1, recipe));
        });
  }

  @Override
  public void mutated(Entry entry, byte op, byte[] payload, List<RowChange> rows) {
    long id = entry.id();
    byte[] record =
        ByteBuffer.allocate(9 + payload.length).putLong(id).put(op).put(payload).array();
    dirty.put(id, entry);
    if (rows.isEmpty()) {
      append(record.length + 16, (b, seq) -> b.put(logCf, seqKey(seq), record));
      return;
    }
    changeRows(id, record, rows);
  }

  @Override
  public void rowsChanged(Entry entry, List<RowChange> rows) {
    // Nothing resident changed: no log record, and the value needs no new snapshot.
    changeRows(entry.id(), null, rows);
  }

  /** Journals row changes, with the log record of the operation that made them if there is one. */
  private void changeRows(long id, byte @Nullable [] record, List<RowChange> rows) {
    // Scope each row to the value; reads see the change from now, the store once it is written.
    int n = rows.size();
    RowChange[] changes = rows.toArray(new RowChange[0]);
    byte[][] keys = new byte[n][];
    byte[][] shown = new byte[n][];
    for (int i = 0; i < n; i++) {
      switch (changes[i]) {
        case RowChange.Put p -> {
          keys[i] = Rows.scopedKey(id, p.key());
          shown[i] = p.value();
          unwrittenRows.put(ByteBuffer.wrap(keys[i]), shown[i]);
        }
        case RowChange.Append a -> {
          keys[i] = Rows.scopedKey(id, a.key());
          unwrittenAppends.merge(
              ByteBuffer.wrap(keys[i]),
              new byte[][] {a.bytes()},
              (old, added) -> {
                byte[][] all = java.util.Arrays.copyOf(old, old.length + 1);
                all[old.length] = added[0];
                return all;
              });
        }
        case RowChange.Delete d -> {
          keys[i] = Rows.scopedKey(id, d.key());
          shown[i] = new byte[0];
          unwrittenRows.put(ByteBuffer.wrap(keys[i]), shown[i]);
        }
        case RowChange.DeleteRange r -> keys[i] = Rows.scopedKey(id, r.from()); // see RowChange
      }
    }
    append(
        record == null ? 0 : record.length + 16,
        (b, seq) -> {
          if (record != null) {
            b.put(logCf, seqKey(seq), record);
          }
          for (int i = 0; i < n; i++) {
            switch (changes[i]) {
              case RowChange.Put p -> b.put(rowsCf, keys[i], p.value());
              case RowChange.Append a -> b.merge(rowsCf, keys[i], a.bytes());
              case RowChange.Delete d -> b.delete(rowsCf, keys[i]);
              case RowChange.DeleteRange r ->
                  b.deleteRange(rowsCf, keys[i], Rows.scopedKey(id, r.to()));
            }
          }
        },
        () -> {
          for (int i = 0; i < n; i++) {
            if (changes[i] instanceof RowChange.Append a) {
              unwrittenAppends.computeIfPresent(
                  ByteBuffer.wrap(keys[i]), (k, queued) -> without(queued, a.bytes()));
            } else if (shown[i] != null) {
              unwrittenRows.remove(ByteBuffer.wrap(keys[i]), shown[i]);
            }
          }
        });
  }

  @Override
  public Rows rows() {
    return rowReader;
  }

  /** The queued appends without the one written (the same array), or null if none is left. */
  private static byte @Nullable [][] without(byte[][] queued, byte[] written) {
    for (int i = 0; i < queued.length; i++) {
      if (queued[i] == written) {
        if (queued.length == 1) {
          return null;
        }
        byte[][] rest = new byte[queued.length - 1][];
        System.arraycopy(queued, 0, rest, 0, i);
        System.arraycopy(queued, i + 1, rest, i, queued.length - i - 1);
        return rest;
      }
    }
    return queued;
  }

  /** Most changes, and bytes, a background write puts in one WriteBatch. */
  private static final int ROWS_PER_WRITE = 50_000;

  private static final long BYTES_PER_WRITE = 16L << 20;

  private void writeRows(WriteBatch b, long valueId, List<RowChange> changes)
      throws RocksDBException {
    for (RowChange c : changes) {
      switch (c) {
        case RowChange.Put p -> b.put(rowsCf, Rows.scopedKey(valueId, p.key()), p.value());
        case RowChange.Append a -> b.merge(rowsCf, Rows.scopedKey(valueId, a.key()), a.bytes());
        case RowChange.Delete d -> b.delete(rowsCf, Rows.scopedKey(valueId, d.key()));
        case RowChange.DeleteRange r ->
            b.deleteRange(
                rowsCf, Rows.scopedKey(valueId, r.from()), Rows.scopedKey(valueId, r.to()));
      }
    }
  }

  /** Blocks until the change at {@code seq} is in the write-ahead log. */
  private void awaitDurable(long seq) {
    java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
    whenDurable(seq, done::countDown);
    boolean interrupted = false;
    while (true) {
      try {
        done.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    String why = failure;
    if (why != null) {
      throw new java.io.UncheckedIOException(new IOException("the log cannot be written: " + why));
    }
  }

  private final Rows rowReader =
      new Rows() {
        @Override
        public byte @Nullable [] get(long valueId, byte[] key) {
          byte[] k = Rows.scopedKey(valueId, key);
          // Unwritten appends before the store: one written between the two reads then shows
          // twice at the end (see RowChange.Append), but none goes missing.
          byte[][] appends =
              unwrittenAppends.isEmpty() ? null : unwrittenAppends.get(ByteBuffer.wrap(k));
          byte[] row = unwrittenRows.isEmpty() ? null : unwrittenRows.get(ByteBuffer.wrap(k));
          if (row == null) {
            try {
              row = db.get(rowsCf, k);
            } catch (RocksDBException e) {
              throw new java.io.UncheckedIOException(
                  new IOException("cannot read a row: " + e.getMessage(), e));
            }
          }
          return shown(k, row, appends);
        }

        @Override
        public List<byte @Nullable []> getAll(long valueId, List<byte[]> keys) {
          int n = keys.size();
          byte[][] scoped = new byte[n][];
          byte[][][] appends = new byte[n][][];
          byte[][] rows = new byte[n][];
          List<byte[]> missing = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            scoped[i] = Rows.scopedKey(valueId, keys.get(i));
            // As get: the overlay first, then one read of the store for every key it lacks.
            if (!unwrittenAppends.isEmpty()) {
              appends[i] = unwrittenAppends.get(ByteBuffer.wrap(scoped[i]));
            }
            if (!unwrittenRows.isEmpty()) {
              rows[i] = unwrittenRows.get(ByteBuffer.wrap(scoped[i]));
            }
            if (rows[i] == null) {
              missing.add(scoped[i]);
            }
          }
          List<byte[]> read;
          try {
            read =
                missing.isEmpty()
                    ? List.of()
                    : db.multiGetAsList(
                        java.util.Collections.nCopies(missing.size(), rowsCf), missing);
          } catch (RocksDBException e) {
            throw new java.io.UncheckedIOException(
                new IOException("cannot read rows: " + e.getMessage(), e));
          }
          List<byte @Nullable []> out = new ArrayList<>(n);
          for (int i = 0, m = 0; i < n; i++) {
            byte[] row = rows[i] == null ? read.get(m++) : rows[i];
            out.add(shown(scoped[i], row, appends[i]));
          }
          return out;
        }

        /** The row as a reader sees it: a delete not yet written hides it, appends follow it. */
        private byte @Nullable [] shown(
            byte[] k, byte @Nullable [] row, byte @Nullable [][] appends) {
          if (row != null && row.length == 0) { // an unwritten delete
            row = null;
          }
          if (appends != null) {
            for (byte[] bytes : appends) {
              row = new RowChange.Append(k, bytes).appliedTo(row);
            }
          }
          return row;
        }

        @Override
        public void writeNow(long valueId, List<RowChange> changes) {
          // After every change journaled so far (a release's record in the same row above all),
          // but not through the committer: a large write there would hold up everyone's replies.
          awaitDurable(lastSeq());
          for (int from = 0, to; from < changes.size(); from = to) {
            long bytes = 0;
            for (to = from;
                to < changes.size() && to - from < ROWS_PER_WRITE && bytes < BYTES_PER_WRITE;
                to++) {
              bytes +=
                  switch (changes.get(to)) {
                    case RowChange.Put p -> p.key().length + p.value().length;
                    case RowChange.Append a -> a.key().length + a.bytes().length;
                    default -> 32;
                  };
            }
            try (WriteBatch b = new WriteBatch()) {
              writeRows(b, valueId, changes.subList(from, to));
              faults.at(StoreFaults.Step.ROWS_WRITE);
              db.write(noSync, b);
            } catch (RocksDBException e) {
              throw new java.io.UncheckedIOException(
                  new IOException("cannot write rows: " + e.getMessage(), e));
            }
          }
        }

        @Override
        public void dropAll(long valueId) {
          awaitDurable(lastSeq());
          try {
            db.deleteRange(rowsCf, idKey(valueId), idKey(valueId + 1));
          } catch (RocksDBException e) {
            throw new java.io.UncheckedIOException(
                new IOException("cannot drop rows: " + e.getMessage(), e));
          }
        }

        @Override
        public long approximateBytes(long valueId) {
          try (org.rocksdb.Slice from = new org.rocksdb.Slice(idKey(valueId));
              org.rocksdb.Slice to = new org.rocksdb.Slice(idKey(valueId + 1))) {
            long[] sizes =
                db.getApproximateSizes(
                    rowsCf,
                    List.of(new org.rocksdb.Range(from, to)),
                    org.rocksdb.SizeApproximationFlag.INCLUDE_FILES,
                    org.rocksdb.SizeApproximationFlag.INCLUDE_MEMTABLES);
            return sizes.length == 1 ? sizes[0] : 0;
          }
        }
      };

  @Override
  public void deleted(Entry entry) {
    byte[] name = nameKey(entry.key());
    long id = entry.id();
    boolean hasRows = entry.codec().hasRows();
    dirty.remove(id);
    append(
        0,
        (b, seq) -> {
          b.delete(names, name);
          dropObject(b, id, hasRows);
        });
  }

  private void dropObject(WriteBatch b, long id, boolean hasRows) throws RocksDBException {
    b.delete(objects, idKey(id));
    b.deleteRange(chunks, idKey(id), idKey(id + 1));
    if (hasRows) {
      b.deleteRange(rowsCf, idKey(id), idKey(id + 1));
    }
  }

  @Override
  public void renamed(Key from, Entry entry, @Nullable Entry overwritten) {
    byte[] oldName = nameKey(from);
    byte[] newName = nameKey(entry.key());
    byte[] nameValue = nameValue(entry);
    long dropped = overwritten == null ? -1 : overwritten.id();
    boolean droppedRows = overwritten != null && overwritten.codec().hasRows();
    if (dropped >= 0) {
      dirty.remove(dropped);
    }
    append(
        0,
        (b, seq) -> {
          b.delete(names, oldName);
          b.put(names, newName, nameValue);
          if (dropped >= 0) {
            dropObject(b, dropped, droppedRows);
          }
        });
  }

  @Override
  public void expiryChanged(Entry entry) {
    byte[] name = nameKey(entry.key());
    byte[] nameValue = nameValue(entry);
    append(0, (b, seq) -> b.put(names, name, nameValue));
  }

  @Override
  public void flushed() {
    dirty.clear(); // the engine holds every key's lock: nothing is dirtied meanwhile
    append(
        0,
        (b, seq) -> {
          b.deleteRange(names, new byte[] {NAME_PREFIX}, new byte[] {NAME_PREFIX + 1});
          b.deleteRange(objects, idKey(0), idKey(-1));
          b.deleteRange(chunks, idKey(0), idKey(-1));
          b.deleteRange(rowsCf, idKey(0), idKey(-1));
          b.deleteRange(logCf, seqKey(0), seqKey(seq));
        },
        null,
        seq -> lastFlushSeq = seq);
  }

  @Override
  public void whenDurable(long seq, Runnable action) {
    if (seq <= durableSeq) {
      action.run();
      return;
    }
    boolean now;
    waiterLock.lock();
    try {
      // Under the lock: a failure set before runWaiters takes it is seen here, and a waiter added
      // here before that is run by runWaiters. Either way no waiter is left behind.
      now = seq <= durableSeq || failure != null;
      if (!now) {
        waiters.add(new Waiter(seq, action));
      }
    } finally {
      waiterLock.unlock();
    }
    if (now) {
      action.run();
    }
  }

  /** Why the log cannot be written, or null while it can. Writes are refused once set. */
  public @Nullable String failure() {
    return failure;
  }

  public void setFsyncPolicy(FsyncPolicy p) {
    this.policy = p;
    this.writeOptions = p == FsyncPolicy.ALWAYS ? sync : noSync;
  }

  public FsyncPolicy fsyncPolicy() {
    return policy;
  }

  // ---- the committer

  private void commitLoop() {
    ArrayList<Op> spare = new ArrayList<>();
    while (true) {
      ArrayList<Op> ops;
      appendLock.lock();
      try {
        while ((pending.isEmpty() || paused) && !closing) {
          committerWaiting = true;
          hasWork.awaitUninterruptibly();
        }
        if (pending.isEmpty()) {
          return; // closing, and everything is written
        }
        ops = pending;
        pending = spare;
      } finally {
        appendLock.unlock();
      }
      try {
        // Once a group fails, no later group is written: the log has no holes, and a truncation
        // queued after a lost snapshot pointer never lands. Their changes stay unacknowledged.
        if (failure == null) {
          commit(ops);
        }
      } catch (Throwable e) {
        fail("cannot write the log", e);
      }
      ops.clear();
      spare = ops;
      runWaiters();
    }
  }

  /** Writes one group in one batch, then marks it durable and runs its changes' callbacks. */
  private void commit(ArrayList<Op> ops) throws RocksDBException {
    long last = ops.getLast().seq();
    long bytes = 0;
    faults.at(StoreFaults.Step.COMMIT_WRITE);
    try (WriteBatch batch = new WriteBatch()) {
      for (Op op : ops) {
        op.write().to(batch, op.seq());
        bytes += op.logBytes();
      }
      batch.put(meta, META_SEQ, seqKey(last));
      WriteOptions options = writeOptions;
      db.write(options, batch);
      if (options == sync) {
        syncedSeq = last;
      }
    }
    logBytesSinceSnapshot.addAndGet(bytes);
    // The callbacks drop the group's rows from the overlay before durableSeq moves: a reader who
    // waited for the group must not see an append both there and in the written row. Every one
    // runs, even after one fails, for the same reason; the group is written all the same.
    Throwable first = null;
    try {
      faults.at(StoreFaults.Step.COMMIT_WRITTEN);
    } catch (Throwable e) {
      first = e;
    }
    for (Op op : ops) {
      if (op.written() != null) {
        try {
          op.written().run();
        } catch (Throwable e) {
          if (first == null) {
            first = e;
          }
        }
      }
    }
    durableSeq = last;
    if (first != null) {
      fail("a written change's callback failed", first);
    }
  }

  /**
   * Refuses writes from now on: the first failure is kept, logged and shown in INFO; every waiter
   * is woken (a reply waiting for a change that will never be written is dropped, not sent).
   */
  private void fail(String what, Throwable e) {
    synchronized (this) {
      if (failure != null) {
        log.error("{} (writes were already refused)", what, e);
        return;
      }
      failure =
          what + ": " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    }
    log.error("durability failure, refusing writes from now on: {}", failure, e);
    runWaiters();
  }

  private void runWaiters() {
    ArrayList<Waiter> ready = new ArrayList<>();
    waiterLock.lock();
    try {
      if (waiters.isEmpty()) {
        return;
      }
      long durable = durableSeq;
      boolean failed = failure != null;
      ArrayList<Waiter> keep = new ArrayList<>();
      for (Waiter w : waiters) {
        (w.seq() <= durable || failed ? ready : keep).add(w);
      }
      waiters = keep;
    } finally {
      waiterLock.unlock();
    }
    for (Waiter w : ready) {
      try {
        w.action().run();
      } catch (Throwable e) {
        log.error("a durability waiter failed", e);
      }
    }
  }

  private void syncLoop() {
    while (!closing) {
      try {
        Thread.sleep(1000);
      } catch (InterruptedException e) {
        return;
      }
      try {
        long durable = durableSeq;
        if (policy == FsyncPolicy.EVERYSEC && durable > syncedSeq && failure == null) {
          faults.at(StoreFaults.Step.FSYNC);
          db.syncWal();
          syncedSeq = durable;
        }
      } catch (Throwable e) {
        fail("cannot fsync the log", e);
      }
    }
  }

  /** Log records written since the last snapshot ended, in bytes. */
  public long logBytesSinceSnapshot() {
    return logBytesSinceSnapshot.get();
  }

  /** Changes handed out but not yet in the write-ahead log. */
  public long pendingChanges() {
    return lastSeq() - durableSeq;
  }

  /** Changes handed out since the last snapshot round began (INFO rdb_changes_since_last_save). */
  public long changesSinceSnapshot() {
    return lastSeq() - lastSnapshotSeq;
  }

  public long lastSnapshotMillis() {
    return lastSnapshotMillis;
  }

  public long lastSnapshotDurationMillis() {
    return lastSnapshotDurationMillis;
  }

  public long snapshotsTaken() {
    return snapshotsTaken;
  }

  public boolean snapshotRunning() {
    return snapshotRunning;
  }

  public int dirtyValues() {
    return dirty.size();
  }

  /** Bytes of the log's SST files: what reached disk of it besides the write-ahead log. */
  long logFileBytes() throws RocksDBException {
    return db.getLongProperty(logCf, "rocksdb.total-sst-files-size");
  }

  /**
   * Stops the committer until the returned handle is closed: changes queue up unwritten, and their
   * replies wait. For tests of what a log that falls behind does to the server.
   */
  public AutoCloseable pauseCommitter() {
    appendLock.lock();
    try {
      paused = true;
    } finally {
      appendLock.unlock();
    }
    return () -> {
      appendLock.lock();
      try {
        paused = false;
        hasWork.signal();
      } finally {
        appendLock.unlock();
      }
    };
  }

  /** Bytes of the log's memtables. */
  long logMemtableBytes() throws RocksDBException {
    return db.getLongProperty(logCf, "rocksdb.cur-size-all-mem-tables");
  }

  /** Whether a flush of the log's memtables is pending or running. */
  boolean logFlushing() throws RocksDBException {
    return db.getLongProperty(logCf, "rocksdb.mem-table-flush-pending") != 0
        || db.getLongProperty("rocksdb.num-running-flushes") != 0;
  }

  /** Bytes the data directory's files take (SST files, write-ahead logs, manifests). */
  public long diskBytes() {
    try (var files = Files.list(dir)) {
      return files
          .mapToLong(
              p -> {
                try {
                  return Files.isRegularFile(p) ? Files.size(p) : 0;
                } catch (IOException e) {
                  return 0; // a file compacted away while we looked
                }
              })
          .sum();
    } catch (IOException e) {
      return -1;
    }
  }

  // ---- snapshots

  /**
   * Snapshots every value changed since its last snapshot, then truncates the log below the
   * sequence number the round started at. One round at a time; a caller arriving during a round
   * waits for it, then runs its own (so SAVE always covers what it followed).
   */
  public void snapshot(Engine engine) throws IOException {
    snapshotLock.lock();
    snapshotRunning = true;
    long started = System.currentTimeMillis();
    try {
      refuseIfFailed("snapshot");
      long roundStart = lastSeq();
      logBytesSinceSnapshot.set(0);
      for (Entry e : List.copyOf(dirty.values())) {
        snapshotOne(engine, e);
      }
      faults.at(StoreFaults.Step.SNAPSHOT_POINTERS);
      // Queued after every pointer of the round: the committer writes it only if they were written
      // (it writes nothing after a failed group).
      long truncation =
          append(0, (b, seq) -> b.deleteRange(logCf, seqKey(0), seqKey(roundStart + 1)));
      faults.at(StoreFaults.Step.SNAPSHOT_TRUNCATED);
      // A round counts once its pointers and truncation are in the log; a failure meanwhile
      // means they never will be.
      try {
        awaitDurable(truncation);
      } catch (java.io.UncheckedIOException e) {
        throw e.getCause();
      }
      lastSnapshotSeq = roundStart;
      lastSnapshotMillis = System.currentTimeMillis();
      lastSnapshotDurationMillis = lastSnapshotMillis - started;
      snapshotsTaken++;
    } catch (RocksDBException e) {
      throw new IOException("cannot take a snapshot: " + e.getMessage(), e);
    } finally {
      snapshotRunning = false;
      snapshotLock.unlock();
    }
  }

  private void refuseIfFailed(String what) throws IOException {
    String why = failure;
    if (why != null) {
      throw new IOException("cannot " + what + ": " + why);
    }
  }

  /** A snapshot taken under the key's lock: the value's bytes and the seq they are current at. */
  private record Image(long seq, byte type, List<byte[]> chunks) {}

  /**
   * Snapshots one value. Its "changed" mark goes only once its image is whole, and comes back if
   * anything after fails (an exception or an Error): a value is never left unmarked while the log
   * still holds changes its stored snapshot lacks, so no round truncates them.
   */
  private void snapshotOne(Engine engine, Entry e) throws IOException, RocksDBException {
    Image image;
    try {
      image = image(engine, e);
    } catch (SnapshotFailure f) {
      switch (f.getCause()) {
        case IOException x -> throw x;
        case RocksDBException x -> throw x;
        default -> throw f;
      }
    }
    if (image == null) {
      dirty.remove(e.id(), e);
      return; // deleted meanwhile
    }
    boolean done = false;
    try {
      writeSnapshot(engine, e, image);
      done = true;
    } finally {
      if (!done) {
        dirty.putIfAbsent(e.id(), e);
      }
    }
  }

  private @Nullable Image image(Engine engine, Entry e) {
    return engine.locked(
        e,
        en -> {
          ChunkedOutput out = new ChunkedOutput();
          try {
            write(en, out);
            faults.at(StoreFaults.Step.SNAPSHOT_IMAGE);
          } catch (IOException | RocksDBException x) {
            throw new SnapshotFailure(x);
          }
          Image built = new Image(lastSeq(), en.codec().typeId(), out.finish());
          // Under the key's lock, so no change of this value falls between image and mark.
          dirty.remove(en.id(), en);
          return built;
        });
  }

  /** An IOException or RocksDBException thrown under a key's lock, rethrown outside it. */
  private static final class SnapshotFailure extends RuntimeException {
    SnapshotFailure(Exception cause) {
      super(cause);
    }
  }

  private void writeSnapshot(Engine engine, Entry e, Image image)
      throws IOException, RocksDBException {
    long version = image.seq();
    long id = e.id();
    if (lastFlushSeq > durableSeq) {
      awaitDurable(lastFlushSeq);
    }
    try (WriteBatch b = new WriteBatch()) {
      long batched = 0;
      for (int i = 0; i < image.chunks().size(); i++) {
        byte[] c = image.chunks().get(i);
        b.put(chunks, chunkKey(id, version, i), c);
        batched += c.length;
        if (batched >= 16 << 20) {
          db.write(noSync, b);
          b.clear();
          batched = 0;
        }
      }
      db.write(noSync, b);
    } catch (RocksDBException x) {
      throw new IOException("cannot write a snapshot: " + x.getMessage(), x);
    }
    faults.at(StoreFaults.Step.SNAPSHOT_CHUNKS);
    // Point the object at the new version, unless the value went away while chunks were written
    // (then the chunks are garbage, dropped at the next start).
    engine.locked(
        e,
        en -> {
          byte[] object = objectValue(image.type(), image.seq(), version, new byte[0]);
          return append(
              0,
              (b, seq) -> {
                b.put(objects, idKey(id), object);
                b.deleteRange(chunks, chunkKey(id, 0, 0), chunkKey(id, version, 0));
              });
        });
  }

  @SuppressWarnings("unchecked")
  private static void write(Entry e, java.io.OutputStream out) throws IOException {
    ((ValueCodec<Object>) e.codec()).write(e.value(), out);
  }

  /** Collects a snapshot into chunks of {@link #CHUNK_BYTES}. */
  private static final class ChunkedOutput extends java.io.OutputStream {
    private final List<byte[]> done = new ArrayList<>();
    private ByteArrayOutputStream current = new ByteArrayOutputStream(64);

    @Override
    public void write(int b) {
      current.write(b);
      roll();
    }

    @Override
    public void write(byte[] b, int off, int len) {
      while (len > 0) {
        int n = Math.min(len, CHUNK_BYTES - current.size());
        current.write(b, off, n);
        off += n;
        len -= n;
        roll();
      }
    }

    private void roll() {
      if (current.size() >= CHUNK_BYTES) {
        done.add(current.toByteArray());
        current = new ByteArrayOutputStream(64);
      }
    }

    List<byte[]> finish() {
      if (current.size() > 0) {
        done.add(current.toByteArray());
      }
      return done;
    }
  }

  // ---- closing

  /**
   * Writes what is queued, fsyncs the log, and closes RocksDB. Callers stop the engine's writers
   * first.
   */
  @Override
  public void close() {
    appendLock.lock();
    try {
      if (closing) {
        return;
      }
      closing = true;
      hasWork.signal();
    } finally {
      appendLock.unlock();
    }
    try {
      committer.join();
      syncer.interrupt();
      syncer.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      db.syncWal();
    } catch (RocksDBException e) {
      log.error("cannot fsync the log at close", e);
    }
    closeDb();
  }

  /** Creates the data directory if need be; a clear error if it cannot be made or written. */
  private static void prepareDirectory(Path dir) throws IOException {
    try {
      Files.createDirectories(dir);
    } catch (java.nio.file.FileAlreadyExistsException e) {
      // createDirectories names only the path: say which part is in the way.
      throw new IOException(
          "cannot create the data directory " + dir + ": " + e.getFile() + " is not a directory",
          e);
    } catch (java.nio.file.AccessDeniedException e) {
      throw new IOException(
          "cannot create the data directory " + dir + ": permission denied on " + e.getFile(), e);
    } catch (java.nio.file.FileSystemException e) {
      String reason = e.getReason() == null ? "" : e.getReason();
      throw new IOException(
          "cannot create the data directory "
              + dir
              + ": "
              + (reason.equals("Not a directory")
                  ? "a part of its path is not a directory"
                  : reason.toLowerCase(java.util.Locale.ROOT)),
          e);
    } catch (IOException e) {
      throw new IOException("cannot create the data directory " + dir + ": " + e, e);
    }
    if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
      throw new IOException("the data directory " + dir + " is not a writable directory");
    }
    // The small column families: 16 MiB buffers (all memtables share the budget above).
  }

  private void closeDb() {
    for (ColumnFamilyHandle h : handles) {
      h.close();
    }
    db.close();
    dbOptions.close();
    cfOptions.close();
    rowsOptions.close();
    logOptions.close();
    closeOwnNatives();
  }

  /** The native objects made with the store's fields, closed after the database that uses them. */
  private void closeOwnNatives() {
    rowsMerge.close();
    memtables.close();
    rowsCache.close();
    rowsFilter.close();
    noSync.close();
    sync.close();
  }

  // ---- keys

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  static byte[] nameKey(Key key) {
    byte[] k = key.bytes();
    byte[] out = new byte[k.length + 1];
    out[0] = NAME_PREFIX;
    System.arraycopy(k, 0, out, 1, k.length);
    return out;
  }

  private static byte[] nameValue(Entry e) {
    return ByteBuffer.allocate(16).putLong(e.id()).putLong(e.expireAtMillis()).array();
  }

  private static byte[] objectValue(byte type, long seq, long version, byte[] recipe) {
    return ByteBuffer.allocate(21 + recipe.length)
        .put(type)
        .putLong(seq)
        .putLong(version)
        .putInt(recipe.length)
        .put(recipe)
        .array();
  }

  /** Ids order as unsigned big-endian bytes; idKey(-1) is past every id. */
  static byte[] idKey(long id) {
    return ByteBuffer.allocate(8).putLong(id).array();
  }

  static byte[] seqKey(long seq) {
    return ByteBuffer.allocate(8).putLong(seq).array();
  }

  static byte[] chunkKey(long id, long version, int index) {
    return ByteBuffer.allocate(20).putLong(id).putLong(version).putInt(index).array();
  }
}
