package io.idem.server.store;

import static io.idem.server.store.Layout.CHUNK_BYTES;
import static io.idem.server.store.Layout.chunkKey;
import static io.idem.server.store.Layout.idKey;
import static io.idem.server.store.Layout.objectValue;
import static io.idem.server.store.Layout.seqKey;

import io.idem.server.engine.Engine;
import io.idem.server.engine.Entry;
import io.idem.server.engine.ValueCodec;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * Snapshot rounds: each value changed since its last snapshot is written whole as chunks, its
 * object pointed at them through the log, and the log then truncated below the round's start.
 */
final class Snapshotter {

  private final StoreDb db;
  private final Committer committer;
  private final Durability durability;
  private final StoreFaults faults;

  /** Heap bytes reserved for images being built and written (maxmemory counts them). */
  private final AtomicLong imageBytes = new AtomicLong();

  /**
   * Values larger than this are written chunk by chunk under their lock rather than copied whole
   * first; values larger than the heap has room for always are. For tests; none by default.
   */
  private volatile long streamAbove = Long.MAX_VALUE;

  /** Values changed since their last snapshot, by id. */
  private final Map<Long, Entry> dirty = new ConcurrentHashMap<>();

  private final ReentrantLock snapshotLock = new ReentrantLock();
  private volatile long lastSnapshotMillis = System.currentTimeMillis();
  private volatile long lastSnapshotSeq;
  private volatile long lastSnapshotDurationMillis;
  private volatile long snapshotsTaken;

  /** Bytes of images the last completed round wrote: what the next round may rewrite. */
  private volatile long lastRoundBytes;

  private volatile boolean snapshotRunning;

  /**
   * The seq of the last FLUSHALL, whose range deletes cover every id's chunks: a snapshot writes
   * its chunks only once that is in the log, or the deletes would land after and take them.
   */
  private volatile long lastFlushSeq;

  Snapshotter(
      StoreDb db, Committer committer, Durability durability, StoreFaults faults, long lastSeq) {
    this.db = db;
    this.committer = committer;
    this.durability = durability;
    this.faults = faults;
    this.lastSnapshotSeq = lastSeq;
  }

  /** The value changed, or was replayed from the log: the next round snapshots it. */
  void changed(Entry e) {
    if (e.markChanged()) {
      dirty.put(e.id(), e);
    }
  }

  /** The value is gone: no round snapshots it. */
  void gone(long id) {
    dirty.remove(id);
  }

  /** Every value is gone, by the FLUSHALL numbered {@code seq} once it has a number. */
  void flushed() {
    dirty.clear(); // the engine holds every key's lock: nothing is dirtied meanwhile
  }

  void flushNumbered(long seq) {
    lastFlushSeq = seq;
  }

  long imageBytes() {
    return imageBytes.get();
  }

  void streamImagesAbove(long bytes) {
    streamAbove = bytes;
  }

  int dirtyValues() {
    return dirty.size();
  }

  long lastSnapshotSeq() {
    return lastSnapshotSeq;
  }

  long lastSnapshotMillis() {
    return lastSnapshotMillis;
  }

  long lastSnapshotDurationMillis() {
    return lastSnapshotDurationMillis;
  }

  long snapshotsTaken() {
    return snapshotsTaken;
  }

  long lastRoundBytes() {
    return lastRoundBytes;
  }

  boolean snapshotRunning() {
    return snapshotRunning;
  }

  /**
   * Snapshots every value changed since its last snapshot, then truncates the log below the
   * sequence number the round started at. One round at a time; a caller arriving during a round
   * waits for it, then runs its own (so SAVE always covers what it followed).
   */
  void snapshot(Engine engine) throws IOException {
    snapshotLock.lock();
    snapshotRunning = true;
    long started = System.currentTimeMillis();
    try {
      String why = durability.failure();
      if (why != null) {
        throw new IOException("cannot snapshot: " + why);
      }
      long roundStart = committer.lastSeq();
      committer.logBytesSinceSnapshot().set(0);
      long written = 0;
      for (Entry e : List.copyOf(dirty.values())) {
        written += snapshotOne(engine, e);
      }
      faults.at(StoreFaults.Step.SNAPSHOT_POINTERS);
      // Queued after every pointer of the round: the committer writes it only if they were written
      // (it writes nothing after a failed group).
      long truncation =
          committer.append(
              0, 64, (b, seq) -> b.deleteRange(db.log, seqKey(0), seqKey(roundStart + 1)));
      faults.at(StoreFaults.Step.SNAPSHOT_TRUNCATED);
      // A round counts once its pointers and truncation are in the log; a failure meanwhile
      // means they never will be.
      try {
        durability.awaitDurable(truncation);
      } catch (UncheckedIOException e) {
        throw e.getCause();
      }
      lastRoundBytes = written; // before the seq: whoever sees the round's end sees its bytes
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

  /**
   * A snapshot taken under the key's lock: the value's bytes and the seq they are current at, held
   * as chunks, or already written ({@code written}) when the heap had no room for a copy.
   *
   * @param reserved heap bytes counted in {@link #imageBytes} until the image is written
   * @param bytes the image's length
   */
  private record Image(
      long seq, byte type, List<byte[]> chunks, boolean written, long reserved, long bytes) {}

  /**
   * Snapshots one value. Its "changed" mark goes only once its image is whole, and comes back if
   * anything after fails (an exception or an Error): a value is never left unmarked while the log
   * still holds changes its stored snapshot lacks, so no round truncates them.
   *
   * @return the bytes of the image written
   */
  private long snapshotOne(Engine engine, Entry e) throws IOException, RocksDBException {
    awaitLastFlush(); // its range deletes must not land after chunks written below
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
      return 0; // deleted meanwhile
    }
    boolean done = false;
    try {
      writeSnapshot(engine, e, image);
      done = true;
    } finally {
      imageBytes.addAndGet(-image.reserved());
      if (!done) {
        e.keepChanged();
        dirty.putIfAbsent(e.id(), e);
      }
    }
    return image.bytes();
  }

  private void awaitLastFlush() {
    if (lastFlushSeq > durability.durableSeq()) {
      durability.awaitDurable(lastFlushSeq);
    }
  }

  /**
   * Builds the value's image under its lock. A copy on the heap lets go of the lock soonest; a
   * value the heap has no room to copy is written to RocksDB chunk by chunk instead, holding its
   * lock (and its writers) meanwhile, rather than running the server out of memory.
   */
  private @Nullable Image image(Engine engine, Entry e) {
    return engine.locked(
        e,
        en -> {
          long size = memoryUsage(en);
          boolean stream = size > streamAbove || size > engine.heapHeadroom();
          long seq = committer.lastSeq();
          long reserved = stream ? 0 : size;
          imageBytes.addAndGet(reserved);
          Image built;
          try {
            if (stream) {
              try (StreamedOutput out = new StreamedOutput(en.id(), seq)) {
                write(en, out, size);
                out.finish();
                built = new Image(seq, en.codec().typeId(), List.of(), true, 0, out.bytes);
              }
            } else {
              ChunkedOutput out = new ChunkedOutput();
              write(en, out, size);
              List<byte[]> chunks = out.finish();
              long bytes = 0;
              for (byte[] c : chunks) {
                bytes += c.length;
              }
              built = new Image(seq, en.codec().typeId(), chunks, false, reserved, bytes);
            }
            faults.at(StoreFaults.Step.SNAPSHOT_IMAGE);
          } catch (IOException | RocksDBException x) {
            imageBytes.addAndGet(-reserved);
            throw new SnapshotFailure(x);
          } catch (RuntimeException | Error x) {
            imageBytes.addAndGet(-reserved);
            throw x;
          }
          // Under the key's lock, so no change of this value falls between image and mark.
          dirty.remove(en.id(), en);
          en.clearChanged();
          return built;
        });
  }

  @SuppressWarnings("unchecked")
  private static long memoryUsage(Entry e) {
    return ((ValueCodec<Object>) e.codec()).memoryUsage(e.value());
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
    if (!image.written()) {
      awaitLastFlush();
      try (WriteBatch b = new WriteBatch()) {
        long batched = 0;
        for (int i = 0; i < image.chunks().size(); i++) {
          byte[] c = image.chunks().get(i);
          b.put(db.chunks, chunkKey(id, version, i), c);
          batched += c.length;
          if (batched >= BATCH_BYTES) {
            db.db.write(db.noSync, b);
            b.clear();
            batched = 0;
          }
        }
        db.db.write(db.noSync, b);
      } catch (RocksDBException x) {
        throw new IOException("cannot write a snapshot: " + x.getMessage(), x);
      }
    }
    faults.at(StoreFaults.Step.SNAPSHOT_CHUNKS);
    // Point the object at the new version, unless the value went away while chunks were written
    // (then the chunks are garbage, dropped at the next start).
    engine.locked(
        e,
        en -> {
          byte[] object = objectValue(image.type(), image.seq(), version, new byte[0]);
          return committer.append(
              0,
              object.length + 64L,
              (b, seq) -> {
                b.put(db.objects, idKey(id), object);
                b.deleteRange(db.chunks, chunkKey(id, 0, 0), chunkKey(id, version, 0));
              });
        });
  }

  @SuppressWarnings("unchecked")
  private static void write(Entry e, OutputStream out, long size) throws IOException {
    // Codecs write field by field: the buffer turns those into few copies into chunks. Sized by
    // the value, so a round over many small values does not make a large buffer for each.
    int buffer = (int) Math.clamp(size, 512, WRITE_BUFFER_BYTES);
    BufferedOutputStream buffered = new BufferedOutputStream(out, buffer);
    ((ValueCodec<Object>) e.codec()).write(e.value(), buffered);
    buffered.flush();
  }

  private static final int WRITE_BUFFER_BYTES = 64 << 10;

  /** Bytes of chunks written to RocksDB in one batch. */
  private static final int BATCH_BYTES = 16 << 20;

  /** Writes a snapshot to RocksDB as it comes, in chunks of {@link Layout#CHUNK_BYTES}. */
  private final class StreamedOutput extends OutputStream {
    private final long id;
    private final long version;
    private final WriteBatch batch = new WriteBatch();
    private final byte[] chunk = new byte[CHUNK_BYTES];
    private int filled;
    private int index;
    private long batched;
    private long bytes;

    StreamedOutput(long id, long version) {
      this.id = id;
      this.version = version;
    }

    @Override
    public void write(int b) throws IOException {
      chunk[filled++] = (byte) b;
      if (filled == CHUNK_BYTES) {
        putChunk();
      }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      while (len > 0) {
        int n = Math.min(len, CHUNK_BYTES - filled);
        System.arraycopy(b, off, chunk, filled, n);
        filled += n;
        off += n;
        len -= n;
        if (filled == CHUNK_BYTES) {
          putChunk();
        }
      }
    }

    private void putChunk() throws IOException {
      try {
        batch.put(db.chunks, chunkKey(id, version, index++), Arrays.copyOf(chunk, filled));
        batched += filled;
        bytes += filled;
        filled = 0;
        if (batched >= BATCH_BYTES) {
          db.db.write(db.noSync, batch);
          batch.clear();
          batched = 0;
        }
      } catch (RocksDBException x) {
        throw new IOException("cannot write a snapshot: " + x.getMessage(), x);
      }
    }

    void finish() throws IOException {
      if (filled > 0) {
        putChunk();
      }
      try {
        db.db.write(db.noSync, batch);
      } catch (RocksDBException x) {
        throw new IOException("cannot write a snapshot: " + x.getMessage(), x);
      }
    }

    @Override
    public void close() {
      batch.close();
    }
  }

  /** Collects a snapshot into chunks of {@link Layout#CHUNK_BYTES}. */
  private static final class ChunkedOutput extends OutputStream {
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
}
