package io.idem.server.cluster;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;

/**
 * How far the tailer has applied each partition, and WAITLOG's waiters on it: the tailer advances a
 * partition after each record, and a waiter completes once its partition reaches the offset it
 * waits for. Thread-safe: the tailer advances, event loops and Kafka's admin thread wait.
 */
final class AppliedOffsets {

  private record Waiter(long offset, CompletableFuture<Long> done) {}

  private final long[] next;
  private final List<PriorityQueue<Waiter>> waiters;
  private String failed;

  AppliedOffsets(int partitions) {
    next = new long[partitions];
    waiters = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      waiters.add(new PriorityQueue<>(Comparator.comparingLong(Waiter::offset)));
    }
  }

  /** The next offset the tailer applies in the partition. */
  synchronized long next(int partition) {
    return next[partition];
  }

  /** The partition's records before {@code offset} are applied; wakes the waiters that are due. */
  void advance(int partition, long offset) {
    List<Waiter> due = new ArrayList<>();
    synchronized (this) {
      next[partition] = offset;
      PriorityQueue<Waiter> q = waiters.get(partition);
      while (!q.isEmpty() && q.peek().offset() <= offset) {
        due.add(q.poll());
      }
    }
    for (Waiter w : due) {
      w.done().complete(w.offset()); // outside the lock: completions run the clients' replies
    }
  }

  /**
   * Completes {@code done} with {@code offset} once the partition is applied up to it (at once if
   * it is), or exceptionally if the tailer has stopped; a waiter already done is not kept.
   */
  void await(int partition, long offset, CompletableFuture<Long> done) {
    synchronized (this) {
      if (failed != null) {
        done.completeExceptionally(new IllegalStateException(failed));
        return;
      }
      if (next[partition] < offset && !done.isDone()) {
        waiters.get(partition).add(new Waiter(offset, done));
        return;
      }
    }
    done.complete(offset);
  }

  /** Forgets a waiter that timed out. */
  synchronized void forget(int partition, CompletableFuture<Long> done) {
    waiters.get(partition).removeIf(w -> w.done() == done);
  }

  /** The tailer stopped: every waiter, now and later, fails with {@code why}. */
  void failAll(String why) {
    List<Waiter> all = new ArrayList<>();
    synchronized (this) {
      failed = why;
      for (PriorityQueue<Waiter> q : waiters) {
        all.addAll(q);
        q.clear();
      }
    }
    for (Waiter w : all) {
      w.done().completeExceptionally(new IllegalStateException(why));
    }
  }
}
