package io.idem.server.store;

import static io.idem.server.store.Layout.ascii;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Cache;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.LRUCache;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.StringAppendOperator;
import org.rocksdb.WriteBufferManager;
import org.rocksdb.WriteOptions;

/**
 * The RocksDB database under a store: its column families (see {@link Layout}), their tuning, and
 * every native object they need, closed together.
 */
final class StoreDb implements AutoCloseable {

  static final long MEMTABLE_BUDGET = 64L << 20;
  static final long CACHE_BYTES = MEMTABLE_BUDGET + (32L << 20);

  /**
   * Log bytes (as the committer counts them) that fit in the log's memtable with room to spare, so
   * a snapshot started here truncates the log before it is flushed. An entry takes more than its
   * record (internal key, skip-list node; BENCHMARKS.md has the ratio under BF.ADD), and the write
   * buffer manager flushes at 7/8 of {@link #MEMTABLE_BUDGET}.
   */
  static final long LOG_BYTES_BEFORE_FLUSH = 3 * MEMTABLE_BUDGET / 8;

  static {
    RocksDB.loadLibrary();
  }

  final Path dir;
  final RocksDB db;
  final ColumnFamilyHandle meta;
  final ColumnFamilyHandle names;
  final ColumnFamilyHandle objects;
  final ColumnFamilyHandle chunks;
  final ColumnFamilyHandle log;
  final ColumnFamilyHandle rows;
  final WriteOptions noSync = new WriteOptions();
  final WriteOptions sync = new WriteOptions().setSync(true);

  private final List<ColumnFamilyHandle> handles = new ArrayList<>();
  private final StringAppendOperator rowsMerge = new StringAppendOperator("");

  /**
   * RocksDB's memtables, held near a budget: once those of all column families together pass 7/8 of
   * {@link #MEMTABLE_BUDGET}, the family whose memtable is oldest is flushed. They are charged to
   * this cache, the rows' block cache, so blocks give way to them. Not a hard cap: while flushes
   * lag, memtables grow on (each family's limit of buffers). Writes are not stalled at the budget:
   * the committer would stop while the commands it has not written pile up in the heap (a stalling
   * manager ran a small heap out of memory under the counter benchmark's load). Left to their
   * defaults ({@code optimizeLevelStyleCompaction()}) memtables alone took far more than this
   * budget under that load (BENCHMARKS.md). Index and filter blocks, and the small families' own
   * block caches, are outside this budget.
   */
  private final Cache rowsCache = new LRUCache(CACHE_BYTES);

  private final WriteBufferManager memtables =
      new WriteBufferManager(MEMTABLE_BUDGET, rowsCache, false);
  private final BloomFilter rowsFilter = new BloomFilter(10, false);
  private final ColumnFamilyOptions cfOptions;
  private final ColumnFamilyOptions rowsOptions;
  private final ColumnFamilyOptions logOptions;
  private final DBOptions dbOptions;

  /** Opens (or creates) the database in {@code dir}, with a clear error when it cannot. */
  StoreDb(Path dir) throws IOException {
    this.dir = dir;
    try {
      prepareDirectory(dir);
    } catch (IOException e) {
      closeOwnNatives();
      throw e;
    }
    // The small column families: 16 MiB buffers (all memtables share the budget above).
    cfOptions = new ColumnFamilyOptions().optimizeLevelStyleCompaction(MEMTABLE_BUDGET);
    rowsOptions = rowsOptions();
    logOptions = logOptions();
    List<ColumnFamilyDescriptor> descriptors =
        List.of(
            new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions),
            new ColumnFamilyDescriptor(ascii("names"), cfOptions),
            new ColumnFamilyDescriptor(ascii("objects"), cfOptions),
            new ColumnFamilyDescriptor(ascii("chunks"), cfOptions),
            new ColumnFamilyDescriptor(ascii("log"), logOptions),
            new ColumnFamilyDescriptor(ascii("rows"), rowsOptions));
    dbOptions =
        new DBOptions()
            .setCreateIfMissing(true)
            .setCreateMissingColumnFamilies(true)
            .setMaxTotalWalSize(256L << 20)
            .setWriteBufferManager(memtables)
            .setKeepLogFileNum(5)
            .setInfoLogLevel(InfoLogLevel.WARN_LEVEL);
    try {
      db = RocksDB.open(dbOptions, dir.toString(), descriptors, handles);
    } catch (RocksDBException e) {
      closeOptions();
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
    log = handles.get(4);
    rows = handles.get(5);
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
            new BlockBasedTableConfig()
                .setBlockCache(rowsCache)
                .setFilterPolicy(rowsFilter)
                .setBlockRestartInterval(32)
                .setBlockSize(16 << 10))
        .setCompressionType(CompressionType.LZ4_COMPRESSION)
        .setBottommostCompressionType(CompressionType.ZSTD_COMPRESSION);
  }

  /**
   * The log's records live until the next snapshot truncates them. One memtable as large as the
   * whole budget holds the log written between two snapshots when the server snapshots at {@link
   * #LOG_BYTES_BEFORE_FLUSH}, and the truncation (a range delete) marks it for flush: the flush
   * drops the records the truncation covers, and writes to disk only those that came after it. A
   * range delete frees no memtable memory, so without the flush the next round's records would push
   * the memtable past the budget and be flushed before their own truncation. With 16 MiB buffers
   * (b8b14fb) each round's log was flushed before its truncation, most of RocksDB's background work
   * under BF.ADD (BENCHMARKS.md). What is flushed is not compressed: it is soon deleted.
   */
  private static ColumnFamilyOptions logOptions() {
    return new ColumnFamilyOptions()
        .setWriteBufferSize(MEMTABLE_BUDGET)
        .setMaxWriteBufferNumber(3)
        .setMinWriteBufferNumberToMerge(1)
        .setMemtableMaxRangeDeletions(1)
        .setTargetFileSizeBase(MEMTABLE_BUDGET)
        .setMaxBytesForLevelBase(4 * MEMTABLE_BUDGET)
        .setCompressionType(CompressionType.NO_COMPRESSION);
  }

  /** A RocksDB integer property of one column family. */
  long property(ColumnFamilyHandle family, String name) throws RocksDBException {
    return db.getLongProperty(family, name);
  }

  /** A RocksDB integer property of the whole database. */
  long property(String name) throws RocksDBException {
    return db.getLongProperty(name);
  }

  /** Bytes the data directory's files take (SST files, write-ahead logs, manifests). */
  long diskBytes() {
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
  }

  /** Closes the database, then the native objects it used. */
  @Override
  public void close() {
    for (ColumnFamilyHandle h : handles) {
      h.close();
    }
    db.close();
    closeOptions();
    closeOwnNatives();
  }

  private void closeOptions() {
    dbOptions.close();
    cfOptions.close();
    rowsOptions.close();
    logOptions.close();
  }

  /** The native objects made with the fields, closed after the database that uses them. */
  private void closeOwnNatives() {
    rowsMerge.close();
    memtables.close();
    rowsCache.close();
    rowsFilter.close();
    noSync.close();
    sync.close();
  }
}
