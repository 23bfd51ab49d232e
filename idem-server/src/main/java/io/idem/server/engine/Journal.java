package io.idem.server.engine;

import io.idem.core.store.RowChange;
import org.jspecify.annotations.Nullable;

/**
 * Where the engine records each change, in order, before the change is acknowledged. Every method
 * is called under the lock of the keys involved and returns the change's sequence number; sequence
 * numbers increase in the order calls are made. {@link #durableThrough} tells when a change is in
 * the write-ahead log.
 */
public interface Journal extends AutoCloseable {

  /** The last sequence number handed out. */
  long lastSeq();

  /** The last sequence number whose change is in the write-ahead log, with all before it. */
  long durableSeq();

  /**
   * Heap bytes the changes handed out and not yet written hold, with the rows readers see before
   * they are written (Redis's AOF buffer). Part of what maxmemory counts.
   */
  default long queuedBytes() {
    return 0;
  }

  /** Heap bytes of snapshot images being written. Part of what maxmemory counts. */
  default long imageBytes() {
    return 0;
  }

  /**
   * Opens a command on the calling thread: the changes it journals until the matching {@link
   * #endCommand} are written to the log together, so after a crash all of them are there or none (a
   * BF.INSERT that creates its filter and adds to it is never found created but empty). Calls nest;
   * only the outermost end queues the changes.
   */
  default void beginCommand() {}

  /** Closes what {@link #beginCommand} opened; at the outermost, queues its changes. */
  default void endCommand() {}

  /** A new value under a key (replacing nothing: the key was free). */
  void created(Entry entry, byte[] recipe);

  /** A logged operation on a value (see {@link ValueCodec#apply}). */
  default void mutated(Entry entry, byte op, byte[] payload) {
    mutated(entry, op, payload, java.util.List.of());
  }

  /**
   * A logged operation on a value and the changes it made to the value's rows, written together:
   * after a crash both are there or neither is.
   */
  void mutated(Entry entry, byte op, byte[] payload, java.util.List<RowChange> rows);

  /**
   * Changes to a stored value's rows that change nothing resident: the rows are the data (windowed
   * counters), so no operation is logged and the value needs no new snapshot.
   */
  void rowsChanged(Entry entry, java.util.List<RowChange> rows);

  /** The stored values' rows, as of every change handed to this journal. */
  Rows rows();

  /** The key and its value are gone. */
  void deleted(Entry entry);

  /**
   * The value moved from its old key to {@code entry.key()}; {@code overwritten} is the value that
   * was at the new key, if any.
   */
  void renamed(Key from, Entry entry, @Nullable Entry overwritten);

  /** The entry's expiry changed. */
  void expiryChanged(Entry entry);

  /** Every key is gone. */
  void flushed();

  /**
   * Sets one of the store's own named values (a cluster node's applied Kafka offsets), written with
   * the rest of the command that sets it: after a crash it is there exactly when the command's
   * other changes are, which is what lets a node resume after the last record it applied, with
   * nothing missing and nothing applied twice.
   */
  default void putMeta(String name, byte[] value) {
    throw new UnsupportedOperationException("this journal keeps no named values");
  }

  /** The named value as last put, or null if it never was. */
  default byte @Nullable [] meta(String name) {
    return null;
  }

  /**
   * Runs {@code action} once every change up to {@code seq} is in the write-ahead log, on the
   * calling thread if that is already so, else on a journal thread.
   */
  void whenDurable(long seq, Runnable action);

  @Override
  void close();

  /**
   * A journal that keeps nothing on disk (rows are kept in memory): for tests of handlers and for
   * nothing else.
   */
  static Journal none() {
    return new Journal() {
      private final java.util.concurrent.atomic.AtomicLong seq =
          new java.util.concurrent.atomic.AtomicLong();
      private final MemoryRows rows = new MemoryRows();
      private final java.util.Map<String, byte[]> meta =
          new java.util.concurrent.ConcurrentHashMap<>();

      @Override
      public void putMeta(String name, byte[] value) {
        meta.put(name, value.clone());
        seq.incrementAndGet();
      }

      @Override
      public byte @Nullable [] meta(String name) {
        byte[] v = meta.get(name);
        return v == null ? null : v.clone();
      }

      @Override
      public Rows rows() {
        return rows;
      }

      @Override
      public long lastSeq() {
        return seq.get();
      }

      @Override
      public long durableSeq() {
        return seq.get();
      }

      @Override
      public void created(Entry entry, byte[] recipe) {
        seq.incrementAndGet();
      }

      @Override
      public void mutated(Entry entry, byte op, byte[] payload, java.util.List<RowChange> changes) {
        rows.apply(entry.id(), changes);
        seq.incrementAndGet();
      }

      @Override
      public void rowsChanged(Entry entry, java.util.List<RowChange> changes) {
        rows.apply(entry.id(), changes);
        seq.incrementAndGet();
      }

      @Override
      public void deleted(Entry entry) {
        rows.dropValue(entry.id());
        seq.incrementAndGet();
      }

      @Override
      public void renamed(Key from, Entry entry, @Nullable Entry overwritten) {
        if (overwritten != null) {
          rows.dropValue(overwritten.id());
        }
        seq.incrementAndGet();
      }

      @Override
      public void expiryChanged(Entry entry) {
        seq.incrementAndGet();
      }

      @Override
      public void flushed() {
        rows.clear();
        seq.incrementAndGet();
      }

      @Override
      public void whenDurable(long s, Runnable action) {
        action.run();
      }

      @Override
      public void close() {}
    };
  }
}
