package io.idem.server.store;

import static io.idem.server.store.Layout.NAME_PREFIX;
import static io.idem.server.store.Layout.idKey;
import static io.idem.server.store.Layout.metaKey;
import static io.idem.server.store.Layout.nameKey;
import static io.idem.server.store.Layout.nameValue;
import static io.idem.server.store.Layout.objectValue;
import static io.idem.server.store.Layout.seqKey;

import io.idem.core.store.RowChange;
import io.idem.server.engine.Engine;
import io.idem.server.engine.Entry;
import io.idem.server.engine.Journal;
import io.idem.server.engine.Key;
import io.idem.server.engine.Rows;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable keyspace: resident values snapshotted into RocksDB, and every change between
 * snapshots logged through RocksDB's write-ahead log by one committer thread (group commit). This
 * class turns the engine's changes into writes; the parts each do one job:
 *
 * <ul>
 *   <li>{@link StoreDb}: the database, its column families and tuning;
 *   <li>{@link Layout}: the byte layout on disk and its invariants;
 *   <li>{@link Loader}: recovery at start;
 *   <li>{@link Committer}: numbering, group commit and fsync;
 *   <li>{@link Durability}: how far the log is written, its failure, and who waits for it;
 *   <li>{@link RowOverlay}: rows as readers see them, unwritten changes included;
 *   <li>{@link Snapshotter}: snapshot rounds and the log's truncation.
 * </ul>
 */
public final class RocksStore implements Journal {

  private static final Logger log = LoggerFactory.getLogger(RocksStore.class);

  /** When the write-ahead log is fsynced. */
  public enum FsyncPolicy {
    ALWAYS,
    EVERYSEC,
    NO;

    public static FsyncPolicy parse(String s) {
      return valueOf(s.toUpperCase(Locale.ROOT));
    }
  }

  /** See {@link StoreDb#LOG_BYTES_BEFORE_FLUSH}. */
  public static final long LOG_BYTES_BEFORE_FLUSH = StoreDb.LOG_BYTES_BEFORE_FLUSH;

  /** Heap a change that carries no bytes of its own takes while it waits (its closure, op). */
  private static final long CHANGE_OVERHEAD = 64;

  private final StoreDb db;
  private final Durability durability;
  private final Committer committer;
  private final RowOverlay rows;
  private final Snapshotter snapshots;

  /** Named values put and maybe not yet written: what {@link #meta} reads first. */
  private final java.util.Map<String, byte[]> metaSeen =
      new java.util.concurrent.ConcurrentHashMap<>();

  private RocksStore(StoreDb db, FsyncPolicy policy, StoreFaults faults, long lastSeq) {
    this.db = db;
    this.durability = new Durability(lastSeq, faults);
    this.committer = new Committer(db, faults, durability, policy, lastSeq);
    this.rows = new RowOverlay(db, committer, durability, faults);
    this.snapshots = new Snapshotter(db, committer, durability, faults, lastSeq);
  }

  /**
   * Opens (or creates) the store in {@code dir}, loads every live value into a new engine, and
   * starts the committer. The engine's changes are journaled here from then on.
   */
  public static Opened open(Path dir, Codecs codecs, FsyncPolicy policy, LongSupplier clock)
      throws IOException {
    return open(dir, codecs, policy, clock, StoreFaults.NONE);
  }

  /** As above, with faults injected where {@code faults} says (tests of the failure paths). */
  public static Opened open(
      Path dir, Codecs codecs, FsyncPolicy policy, LongSupplier clock, StoreFaults faults)
      throws IOException {
    StoreDb db = new StoreDb(dir);
    try {
      long started = System.nanoTime();
      Loader.Recovered recovered = new Loader(db, codecs).load();
      RocksStore store = new RocksStore(db, policy, faults, recovered.lastSeq());
      Engine engine = new Engine(store, recovered.maxId() + 1, clock);
      for (Loader.Value v : recovered.values()) {
        Entry entry =
            engine.load(new Key(v.key()), v.id(), v.codec(), v.value(), v.expireAtMillis());
        if (v.replayed()) {
          store.snapshots.changed(entry);
        }
      }
      log.info(
          "loaded {} keys and replayed {} log records from {} in {} ms",
          recovered.values().size(),
          recovered.replayedRecords(),
          dir,
          (System.nanoTime() - started) / 1_000_000);
      store.committer.start();
      return new Opened(store, engine);
    } catch (IOException | RuntimeException e) {
      db.close();
      throw e;
    }
  }

  /** A store and the engine it loaded. */
  public record Opened(RocksStore store, Engine engine) {}

  // ---- the journal

  @Override
  public void beginCommand() {
    committer.beginCommand();
  }

  @Override
  public void endCommand() {
    committer.endCommand();
  }

  @Override
  public long lastSeq() {
    return committer.lastSeq();
  }

  @Override
  public long durableSeq() {
    return durability.durableSeq();
  }

  @Override
  public long queuedBytes() {
    return committer.queuedHeapBytes();
  }

  @Override
  public long imageBytes() {
    return snapshots.imageBytes();
  }

  /**
   * Writes the image of any value larger than {@code bytes} chunk by chunk under its lock, as if
   * the heap had no room to copy it (tests of that path).
   */
  void streamImagesAbove(long bytes) {
    snapshots.streamImagesAbove(bytes);
  }

  @Override
  public void created(Entry entry, byte[] recipe) {
    byte[] name = nameKey(entry.key());
    byte[] nameValue = nameValue(entry);
    long id = entry.id();
    byte type = entry.codec().typeId();
    committer.append(
        0,
        name.length + recipe.length + CHANGE_OVERHEAD,
        (b, seq) -> {
          b.put(db.names, name, nameValue);
          b.put(db.objects, idKey(id), objectValue(type, seq, -1, recipe));
        });
  }

  @Override
  public void mutated(Entry entry, byte op, byte[] payload, List<RowChange> changes) {
    long id = entry.id();
    byte[] record =
        ByteBuffer.allocate(9 + payload.length).putLong(id).put(op).put(payload).array();
    snapshots.changed(entry);
    if (changes.isEmpty()) {
      committer.append(
          record.length + 16, record.length + CHANGE_OVERHEAD, record, null, null, null);
      return;
    }
    rows.journal(id, record, changes);
  }

  @Override
  public void rowsChanged(Entry entry, List<RowChange> changes) {
    // Nothing resident changed: no log record, and the value needs no new snapshot.
    rows.journal(entry.id(), null, changes);
  }

  @Override
  public Rows rows() {
    return rows;
  }

  @Override
  public void deleted(Entry entry) {
    byte[] name = nameKey(entry.key());
    long id = entry.id();
    boolean hasRows = entry.codec().hasRows();
    snapshots.gone(id);
    committer.append(
        0,
        name.length + CHANGE_OVERHEAD,
        (b, seq) -> {
          b.delete(db.names, name);
          dropObject(b, id, hasRows);
        });
  }

  private void dropObject(WriteBatch b, long id, boolean hasRows) throws RocksDBException {
    b.delete(db.objects, idKey(id));
    b.deleteRange(db.chunks, idKey(id), idKey(id + 1));
    if (hasRows) {
      b.deleteRange(db.rows, idKey(id), idKey(id + 1));
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
      snapshots.gone(dropped);
    }
    committer.append(
        0,
        oldName.length + newName.length + CHANGE_OVERHEAD,
        (b, seq) -> {
          b.delete(db.names, oldName);
          b.put(db.names, newName, nameValue);
          if (dropped >= 0) {
            dropObject(b, dropped, droppedRows);
          }
        });
  }

  @Override
  public void expiryChanged(Entry entry) {
    byte[] name = nameKey(entry.key());
    byte[] nameValue = nameValue(entry);
    committer.append(
        0, name.length + CHANGE_OVERHEAD, (b, seq) -> b.put(db.names, name, nameValue));
  }

  @Override
  public void flushed() {
    snapshots.flushed();
    committer.append(
        0,
        CHANGE_OVERHEAD,
        (b, seq) -> {
          b.deleteRange(db.names, new byte[] {NAME_PREFIX}, new byte[] {NAME_PREFIX + 1});
          b.deleteRange(db.objects, idKey(0), idKey(-1));
          b.deleteRange(db.chunks, idKey(0), idKey(-1));
          b.deleteRange(db.rows, idKey(0), idKey(-1));
          b.deleteRange(db.log, seqKey(0), seqKey(seq));
        },
        null,
        snapshots::flushNumbered);
  }

  @Override
  public void putMeta(String name, byte[] value) {
    byte[] key = metaKey(name);
    byte[] copy = value.clone();
    metaSeen.put(name, copy);
    committer.append(
        0, key.length + copy.length + CHANGE_OVERHEAD, (b, seq) -> b.put(db.meta, key, copy));
  }

  @Override
  public byte @Nullable [] meta(String name) {
    byte[] seen = metaSeen.get(name);
    if (seen != null) {
      return seen.clone();
    }
    try {
      return db.db.get(db.meta, metaKey(name));
    } catch (RocksDBException e) {
      throw new IllegalStateException("cannot read " + name + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void whenDurable(long seq, Runnable action) {
    durability.whenDurable(seq, action);
  }

  /** Why the log cannot be written, or null while it can. Writes are refused once set. */
  public @Nullable String failure() {
    return durability.failure();
  }

  public void setFsyncPolicy(FsyncPolicy p) {
    committer.setFsyncPolicy(p);
  }

  public FsyncPolicy fsyncPolicy() {
    return committer.fsyncPolicy();
  }

  // ---- what INFO and the metrics show

  /** Log records written since the last snapshot ended, in bytes. */
  public long logBytesSinceSnapshot() {
    return committer.logBytesSinceSnapshot().get();
  }

  /** Changes handed out but not yet in the write-ahead log. */
  public long pendingChanges() {
    return lastSeq() - durableSeq();
  }

  /** Changes handed out since the last snapshot round began (INFO rdb_changes_since_last_save). */
  public long changesSinceSnapshot() {
    return lastSeq() - snapshots.lastSnapshotSeq();
  }

  public long lastSnapshotMillis() {
    return snapshots.lastSnapshotMillis();
  }

  public long lastSnapshotDurationMillis() {
    return snapshots.lastSnapshotDurationMillis();
  }

  public long snapshotsTaken() {
    return snapshots.snapshotsTaken();
  }

  /** Bytes of images the last completed snapshot round wrote. */
  public long lastSnapshotBytes() {
    return snapshots.lastRoundBytes();
  }

  public boolean snapshotRunning() {
    return snapshots.snapshotRunning();
  }

  public int dirtyValues() {
    return snapshots.dirtyValues();
  }

  /** Bytes of the log's SST files: what reached disk of it besides the write-ahead log. */
  long logFileBytes() throws RocksDBException {
    return db.property(db.log, "rocksdb.total-sst-files-size");
  }

  /** Bytes of the log's memtables. */
  long logMemtableBytes() throws RocksDBException {
    return db.property(db.log, "rocksdb.cur-size-all-mem-tables");
  }

  /** Whether a flush of the log's memtables is pending or running. */
  boolean logFlushing() throws RocksDBException {
    return db.property(db.log, "rocksdb.mem-table-flush-pending") != 0
        || db.property("rocksdb.num-running-flushes") != 0;
  }

  /**
   * RocksDB's figures for INFO persistence and the console: compactions running, bytes waiting to
   * be compacted, SST files' and memtables' bytes, and live keys estimated. A figure RocksDB cannot
   * give is -1.
   */
  public java.util.Map<String, Long> rocksdbFigures() {
    java.util.Map<String, Long> out = new java.util.LinkedHashMap<>();
    String[][] names = {
      {"rocksdb_running_compactions", "rocksdb.num-running-compactions"},
      {"rocksdb_pending_compaction_bytes", "rocksdb.estimate-pending-compaction-bytes"},
      {"rocksdb_sst_bytes", "rocksdb.total-sst-files-size"},
      {"rocksdb_memtable_bytes", "rocksdb.cur-size-all-mem-tables"},
      {"rocksdb_running_flushes", "rocksdb.num-running-flushes"}
    };
    for (String[] n : names) {
      long v;
      try {
        v = db.property(n[1]);
      } catch (RocksDBException | RuntimeException e) {
        v = -1;
      }
      out.put(n[0], v);
    }
    return out;
  }

  /** Bytes the data directory's files take (SST files, write-ahead logs, manifests). */
  public long diskBytes() {
    return db.diskBytes();
  }

  /**
   * Stops the committer until the returned handle is closed: changes queue up unwritten, and their
   * replies wait. For tests of what a log that falls behind does to the server.
   */
  public AutoCloseable pauseCommitter() {
    return committer.pause();
  }

  /**
   * Makes a RocksDB checkpoint of the store in {@code target}, which must not exist: a copy of the
   * store as of a moment, its files hard-linked where the file system allows. Every journal command
   * is in it whole or not at all, so the named values stored with the changes (a cluster node's
   * offsets) match the state beside them.
   */
  public void checkpoint(Path target) throws IOException {
    try (org.rocksdb.Checkpoint cp = org.rocksdb.Checkpoint.create(db.db)) {
      cp.createCheckpoint(target.toString());
    } catch (RocksDBException e) {
      throw new IOException("checkpoint into " + target + " failed: " + e.getMessage(), e);
    }
  }

  /**
   * Fills the empty data directory {@code dir} from a checkpoint: its table files are hard-linked
   * (RocksDB never changes one once written), the others copied, so the checkpoint stays as it was.
   *
   * @return false, touching nothing, if {@code dir} already holds a store
   * @throws IOException if {@code checkpoint} is not a store's checkpoint, or a copy fails
   */
  public static boolean loadCheckpoint(Path checkpoint, Path dir) throws IOException {
    if (Files.exists(dir.resolve("CURRENT"))) {
      return false;
    }
    if (!Files.isRegularFile(checkpoint.resolve("CURRENT"))) {
      throw new IOException(checkpoint + " is not a checkpoint: it has no CURRENT file");
    }
    Files.createDirectories(dir);
    List<Path> files;
    try (var list = Files.list(checkpoint)) {
      files = list.filter(Files::isRegularFile).toList();
    }
    for (Path f : files) {
      Path to = dir.resolve(f.getFileName());
      if (f.getFileName().toString().equals("CURRENT")) {
        continue; // last: a directory without it is not a store yet, so a failed copy is redone
      }
      Files.deleteIfExists(to);
      if (f.getFileName().toString().endsWith(".sst")) {
        try {
          Files.createLink(to, f);
          continue;
        } catch (IOException | UnsupportedOperationException e) {
          // another file system: copy
        }
      }
      Files.copy(f, to);
    }
    Files.copy(
        checkpoint.resolve("CURRENT"), dir.resolve("CURRENT"), StandardCopyOption.REPLACE_EXISTING);
    return true;
  }

  /** See {@link Snapshotter#snapshot}. */
  public void snapshot(Engine engine) throws IOException {
    snapshots.snapshot(engine);
  }

  // ---- closing

  /**
   * Writes what is queued, fsyncs the log, and closes RocksDB. Callers stop the engine's writers
   * first.
   */
  @Override
  public void close() {
    if (!committer.close()) {
      return;
    }
    try {
      db.db.syncWal();
    } catch (RocksDBException e) {
      log.error("cannot fsync the log at close", e);
    }
    db.close();
  }
}
