package io.idem.server.store;

import static io.idem.server.store.Layout.GROUP_BYTES;
import static io.idem.server.store.Layout.META_SEQ;
import static io.idem.server.store.Layout.groupKey;
import static io.idem.server.store.Layout.seqKey;

import io.idem.server.store.RocksStore.FsyncPolicy;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * Numbers changes and writes them to the write-ahead log in that order, in groups (one WriteBatch
 * each) on its own thread; a second thread fsyncs the log every second under {@code everysec}. Once
 * a group fails nothing after it is written: the log has no holes, and a truncation queued after a
 * lost snapshot pointer never lands.
 */
final class Committer {

  /** What one change puts into the committer's batch, given its sequence number. */
  @FunctionalInterface
  interface Write {
    void to(WriteBatch batch, long seq) throws RocksDBException;
  }

  /**
   * One change, written into the committer's batch in sequence order.
   *
   * @param logBytes bytes it adds to the log, for the snapshot trigger
   * @param heapBytes bytes it holds on the heap until it is written
   * @param written run on the committer once the change is in the log
   * @param numbered told the change's number once it has one (a command's changes get theirs when
   *     it ends)
   */
  private record Op(
      long seq,
      @Nullable Write write,
      byte @Nullable [] record,
      long logBytes,
      long heapBytes,
      @Nullable Runnable written,
      @Nullable LongConsumer numbered) {}

  /** The changes a command on this thread journaled so far, queued when it ends. */
  private static final class OpenCommand {
    int depth;
    final ArrayList<Op> ops = new ArrayList<>();
  }

  private final StoreDb db;
  private final StoreFaults faults;
  private final Durability durability;
  private final ThreadLocal<OpenCommand> openCommand = ThreadLocal.withInitial(OpenCommand::new);

  // Sequence numbers are handed out and ops queued under appendLock, so the committer writes them
  // in sequence order.
  private final ReentrantLock appendLock = new ReentrantLock();
  private final Condition hasWork = appendLock.newCondition();
  private ArrayList<Op> pending = new ArrayList<>();
  private volatile long lastSeq; // written under appendLock
  private boolean committerWaiting;
  private boolean closing;
  private boolean paused;

  private volatile long syncedSeq;
  private volatile WriteOptions writeOptions;
  private volatile FsyncPolicy policy;
  private final AtomicLong logBytesSinceSnapshot = new AtomicLong();
  private final AtomicLong queuedHeapBytes = new AtomicLong();

  private final Thread committer;
  private final Thread syncer;

  Committer(StoreDb db, StoreFaults faults, Durability durability, FsyncPolicy policy, long last) {
    this.db = db;
    this.faults = faults;
    this.durability = durability;
    this.lastSeq = last;
    this.syncedSeq = last;
    setFsyncPolicy(policy);
    committer = Thread.ofPlatform().name("idem-commit").daemon().unstarted(this::commitLoop);
    syncer = Thread.ofPlatform().name("idem-fsync").daemon().unstarted(this::syncLoop);
  }

  void start() {
    committer.start();
    syncer.start();
  }

  long lastSeq() {
    return lastSeq;
  }

  void setFsyncPolicy(FsyncPolicy p) {
    this.policy = p;
    this.writeOptions = p == FsyncPolicy.ALWAYS ? db.sync : db.noSync;
  }

  FsyncPolicy fsyncPolicy() {
    return policy;
  }

  /** Log records written since the counter was last reset, in bytes. */
  AtomicLong logBytesSinceSnapshot() {
    return logBytesSinceSnapshot;
  }

  /** Bytes the changes not yet written hold on the heap. */
  long queuedHeapBytes() {
    return queuedHeapBytes.get();
  }

  /** As below, for a change with nothing to run once written. */
  long append(long logBytes, long heapBytes, Write write) {
    return append(logBytes, heapBytes, null, write, null, null);
  }

  /** As below, for a change with no log record. */
  long append(
      long logBytes,
      long heapBytes,
      Write write,
      @Nullable Runnable written,
      @Nullable LongConsumer numbered) {
    return append(logBytes, heapBytes, null, write, written, numbered);
  }

  /**
   * Hands out the next sequence number and queues the change under it. Callers update what reads
   * see first: a snapshot round that starts after this number then sees it. Inside a command (see
   * {@link #beginCommand}) the change waits for the command's end, and 0 is returned: its number is
   * handed out then, and told to {@code numbered}.
   */
  long append(
      long logBytes,
      long heapBytes,
      byte @Nullable [] record,
      @Nullable Write write,
      @Nullable Runnable written,
      @Nullable LongConsumer numbered) {
    queuedHeapBytes.addAndGet(heapBytes);
    OpenCommand open = openCommand.get();
    if (open.depth > 0) {
      open.ops.add(new Op(0, write, record, logBytes, heapBytes, written, numbered));
      return 0;
    }
    appendLock.lock();
    try {
      long seq = ++lastSeq;
      pending.add(new Op(seq, write, record, logBytes, heapBytes, written, null));
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

  void beginCommand() {
    openCommand.get().depth++;
  }

  /**
   * Queues the command's changes under consecutive numbers in one step, so the committer takes them
   * in one group: one WriteBatch, all in the log after a crash or none.
   */
  void endCommand() {
    OpenCommand open = openCommand.get();
    if (--open.depth > 0 || open.ops.isEmpty()) {
      return;
    }
    appendLock.lock();
    try {
      for (Op op : open.ops) {
        long seq = ++lastSeq;
        pending.add(
            new Op(
                seq, op.write(), op.record(), op.logBytes(), op.heapBytes(), op.written(), null));
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
        // Once a group fails, no later group is written. Their changes stay unacknowledged.
        if (durability.failure() == null) {
          commit(ops);
        }
      } catch (Throwable e) {
        durability.fail("cannot write the log", e);
      }
      long held = 0;
      for (Op op : ops) {
        held += op.heapBytes();
      }
      queuedHeapBytes.addAndGet(-held);
      ops.clear();
      spare = ops;
      durability.runWaiters();
    }
  }

  /** Writes one group in one batch, then marks it durable and runs its changes' callbacks. */
  private void commit(ArrayList<Op> ops) throws RocksDBException {
    long last = ops.getLast().seq();
    long bytes = 0;
    faults.at(StoreFaults.Step.COMMIT_WRITE);
    try (WriteBatch batch = new WriteBatch()) {
      for (Op op : ops) {
        if (op.write() != null) {
          op.write().to(batch, op.seq());
        }
        bytes += op.logBytes();
      }
      // The group's log records in one put (or a few, of at most GROUP_BYTES), after the writes:
      // a FLUSHALL's range delete of the log in this group does not take them.
      putRecords(batch, ops);
      batch.put(db.meta, META_SEQ, seqKey(last));
      WriteOptions options = writeOptions;
      db.db.write(options, batch);
      if (options == db.sync) {
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
    durability.advance(last);
    if (first != null) {
      durability.fail("a written change's callback failed", first);
    }
  }

  /** Puts the records of {@code ops} into the log as groups (see {@link Layout#groupKey}). */
  private void putRecords(WriteBatch batch, ArrayList<Op> ops) throws RocksDBException {
    int from = 0;
    while (from < ops.size()) {
      int bytes = 0;
      int to = from;
      long lastSeq = -1;
      for (; to < ops.size() && (bytes < GROUP_BYTES || lastSeq < 0); to++) {
        byte[] r = ops.get(to).record();
        if (r != null) {
          bytes += 12 + r.length;
          lastSeq = ops.get(to).seq();
        }
      }
      if (lastSeq >= 0) {
        ByteBuffer group = ByteBuffer.allocate(bytes);
        for (int i = from; i < to; i++) {
          Op op = ops.get(i);
          if (op.record() != null) {
            group.putLong(op.seq()).putInt(op.record().length).put(op.record());
          }
        }
        batch.put(db.log, groupKey(lastSeq), group.array());
      }
      from = to;
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
        long durable = durability.durableSeq();
        if (policy == FsyncPolicy.EVERYSEC && durable > syncedSeq && durability.failure() == null) {
          faults.at(StoreFaults.Step.FSYNC);
          db.db.syncWal();
          syncedSeq = durable;
        }
      } catch (Throwable e) {
        durability.fail("cannot fsync the log", e);
      }
    }
  }

  /** Stops writing until the returned handle is closed (tests of a log that falls behind). */
  AutoCloseable pause() {
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

  /** Writes what is queued, then stops both threads. Returns false if it was already closed. */
  boolean close() {
    appendLock.lock();
    try {
      if (closing) {
        return false;
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
    return true;
  }
}
