package io.idem.server.store;

import static io.idem.server.store.Layout.FORMAT_SINGLE_RECORDS;
import static io.idem.server.store.Layout.FORMAT_VERSION;
import static io.idem.server.store.Layout.GROUP_MARK;
import static io.idem.server.store.Layout.MAX_SNAPSHOT_BYTES;
import static io.idem.server.store.Layout.META_FORMAT;
import static io.idem.server.store.Layout.META_SEQ;
import static io.idem.server.store.Layout.NAME_PREFIX;
import static io.idem.server.store.Layout.OBJECT_HEADER_BYTES;
import static io.idem.server.store.Layout.chunkKey;
import static io.idem.server.store.Layout.idKey;

import io.idem.server.engine.ValueCodec;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

/**
 * Recovery: reads every live value from its snapshot (or recipe), replays the log after it, and
 * removes what a crash left behind (objects no name points at, chunks of unfinished snapshots, rows
 * of gone values).
 */
final class Loader {

  /** A live value as recovered. {@code replayed}: the log held changes its snapshot lacks. */
  record Value(
      byte[] key,
      long id,
      ValueCodec<?> codec,
      Object value,
      long expireAtMillis,
      boolean replayed) {}

  /** What the store holds: its values, the last change number, and the highest id in use. */
  record Recovered(List<Value> values, long lastSeq, long maxId, long replayedRecords) {}

  private final StoreDb db;
  private final Codecs codecs;

  // The highest sequence number and value id seen so far by load().
  private long last;
  private long maxId;

  Loader(StoreDb db, Codecs codecs) {
    this.db = db;
    this.codecs = codecs;
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

  Recovered load() throws IOException {
    try {
      checkFormat();
      byte[] seq = db.db.get(db.meta, META_SEQ);
      last = seq == null ? 0 : ByteBuffer.wrap(seq).getLong();

      // Names: which ids are live, under which key, until when.
      Map<Long, byte[]> nameOf = new HashMap<>();
      Map<Long, Long> expiryOf = new HashMap<>();
      try (RocksIterator it = db.db.newIterator(db.names)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          byte[] k = it.key();
          ByteBuffer v = ByteBuffer.wrap(it.value());
          if (k.length < 1 || k[0] != NAME_PREFIX || v.remaining() != 16) {
            throw new IOException("corrupt name record in " + db.dir);
          }
          long id = v.getLong();
          nameOf.put(id, Arrays.copyOfRange(k, 1, k.length));
          expiryOf.put(id, v.getLong());
        }
      }

      // Objects: snapshot or recipe of each live id; garbage goes.
      Map<Long, Loaded> loaded = new HashMap<>();
      maxId = 0;
      try (WriteBatch garbage = new WriteBatch();
          RocksIterator it = db.db.newIterator(db.objects)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          long id = ByteBuffer.wrap(it.key()).getLong();
          maxId = Math.max(maxId, id);
          if (!nameOf.containsKey(id)) {
            garbage.delete(db.objects, it.key());
            garbage.deleteRange(db.chunks, idKey(id), idKey(id + 1));
            continue;
          }
          loaded.put(id, loadObject(id, it.value()));
        }
        db.db.write(db.noSync, garbage);
      }
      for (Long id : nameOf.keySet()) {
        if (!loaded.containsKey(id)) {
          throw new IOException("corrupt store in " + db.dir + ": key without value, id " + id);
        }
      }
      dropStaleChunks(loaded);
      dropOrphanRows(nameOf.keySet());

      // The log: replay each live value's changes after its snapshot, in order.
      long replayed = 0;
      try (RocksIterator it = db.db.newIterator(db.log)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          byte[] key = it.key();
          ByteBuffer v = ByteBuffer.wrap(it.value());
          if (key.length == 8) { // one record, as format 1 wrote them
            replayed += replay(loaded, ByteBuffer.wrap(key).getLong(), v) ? 1 : 0;
            continue;
          }
          if (key.length != 9 || key[8] != GROUP_MARK) {
            throw new IOException("corrupt log key of " + key.length + " bytes");
          }
          while (v.hasRemaining()) {
            if (v.remaining() < 12) {
              throw new IOException("corrupt log group at seq " + ByteBuffer.wrap(key).getLong());
            }
            long s = v.getLong();
            int length = v.getInt();
            if (length < 9 || length > v.remaining()) {
              throw new IOException("corrupt log record at seq " + s + ": length " + length);
            }
            replayed += replay(loaded, s, v.slice(v.position(), length)) ? 1 : 0;
            v.position(v.position() + length);
          }
        }
      }
      List<Value> values = new ArrayList<>(loaded.size());
      for (Map.Entry<Long, Loaded> e : loaded.entrySet()) {
        long id = e.getKey();
        Loaded l = e.getValue();
        values.add(new Value(nameOf.get(id), id, l.codec, l.value, expiryOf.get(id), l.dirty));
      }
      return new Recovered(values, last, maxId, replayed);
    } catch (RocksDBException e) {
      throw new IOException("cannot read the data directory " + db.dir + ": " + e.getMessage(), e);
    }
  }

  private void checkFormat() throws IOException, RocksDBException {
    byte[] format = db.db.get(db.meta, META_FORMAT);
    if (format == null) {
      db.db.put(db.meta, META_FORMAT, ByteBuffer.allocate(4).putInt(FORMAT_VERSION).array());
    } else if (format.length == 4 && ByteBuffer.wrap(format).getInt() == FORMAT_SINGLE_RECORDS) {
      // Its single records are read as they are; what is written from now on is grouped.
      db.db.put(db.meta, META_FORMAT, ByteBuffer.allocate(4).putInt(FORMAT_VERSION).array());
    } else if (format.length != 4 || ByteBuffer.wrap(format).getInt() != FORMAT_VERSION) {
      throw new IOException(
          "the data directory "
              + db.dir
              + " holds store format "
              + (format.length == 4 ? ByteBuffer.wrap(format).getInt() : -1)
              + "; this Idem reads format "
              + FORMAT_VERSION);
    }
  }

  /**
   * Replays one record (u64 id | u8 op | payload) of sequence number {@code s}; false if skipped.
   */
  private boolean replay(Map<Long, Loaded> loaded, long s, ByteBuffer v) throws IOException {
    last = Math.max(last, s);
    long id = v.getLong();
    maxId = Math.max(maxId, id);
    Loaded l = loaded.get(id);
    if (l == null || s <= l.snapshotSeq) {
      return false;
    }
    byte op = v.get();
    byte[] payload = new byte[v.remaining()];
    v.get(payload);
    apply(l, op, payload);
    l.dirty = true;
    return true;
  }

  @SuppressWarnings("unchecked")
  private static void apply(Loaded l, byte op, byte[] payload) throws IOException {
    ((ValueCodec<Object>) l.codec).apply(l.value, op, payload);
  }

  private Loaded loadObject(long id, byte[] record) throws IOException {
    ByteBuffer v = ByteBuffer.wrap(record);
    if (v.remaining() < OBJECT_HEADER_BYTES) {
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
  private void dropOrphanRows(Set<Long> live) throws RocksDBException {
    try (WriteBatch garbage = new WriteBatch();
        RocksIterator it = db.db.newIterator(db.rows)) {
      it.seekToFirst();
      while (it.isValid()) {
        long id = ByteBuffer.wrap(it.key(), 0, 8).getLong();
        if (!live.contains(id)) {
          garbage.deleteRange(db.rows, idKey(id), idKey(id + 1));
        }
        it.seek(idKey(id + 1));
      }
      db.db.write(db.noSync, garbage);
    }
  }

  /** Removes chunks of versions no object points at (a snapshot cut short by a crash). */
  private void dropStaleChunks(Map<Long, Loaded> loaded) throws RocksDBException {
    try (WriteBatch garbage = new WriteBatch();
        RocksIterator it = db.db.newIterator(db.chunks)) {
      it.seekToFirst();
      while (it.isValid()) {
        ByteBuffer k = ByteBuffer.wrap(it.key());
        long id = k.getLong();
        long version = k.getLong();
        Loaded l = loaded.get(id);
        if (l == null || l.version != version) {
          byte[] from = chunkKey(id, version, 0);
          byte[] to = version == Long.MAX_VALUE ? idKey(id + 1) : chunkKey(id, version + 1, 0);
          garbage.deleteRange(db.chunks, from, to);
          it.seek(to);
        } else {
          it.seek(chunkKey(id, version + 1, 0));
        }
      }
      db.db.write(db.noSync, garbage);
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
      this.it = db.db.newIterator(db.chunks);
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
}
