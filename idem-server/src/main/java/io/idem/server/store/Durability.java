package io.idem.server.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How far the log is written, whether it has failed, and who waits for it. Every waiter runs once:
 * when the log passes its number, or when the log fails (then the change it waits for will never be
 * written, and its reply is dropped, not sent).
 */
final class Durability {

  private static final Logger log = LoggerFactory.getLogger(Durability.class);

  private record Waiter(long seq, Runnable action) {}

  private final StoreFaults faults;
  private final ReentrantLock waiterLock = new ReentrantLock();
  private ArrayList<Waiter> waiters = new ArrayList<>();
  private volatile long durableSeq;
  private volatile @Nullable String failure;

  Durability(long durableSeq, StoreFaults faults) {
    this.durableSeq = durableSeq;
    this.faults = faults;
  }

  long durableSeq() {
    return durableSeq;
  }

  /** Why the log cannot be written, or null while it can. */
  @Nullable String failure() {
    return failure;
  }

  /** The log holds every change up to {@code seq}. Waiters are run by {@link #runWaiters}. */
  void advance(long seq) {
    durableSeq = seq;
  }

  /** Runs {@code action} once every change up to {@code seq} is written, or the log has failed. */
  void whenDurable(long seq, Runnable action) {
    if (seq <= durableSeq) {
      action.run();
      return;
    }
    try {
      faults.at(StoreFaults.Step.WAITER_REGISTER);
    } catch (Exception e) {
      throw new IllegalStateException(e); // a test's pause, never a failure
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

  /**
   * Blocks until the change at {@code seq} is written.
   *
   * @throws UncheckedIOException if the log failed first
   */
  void awaitDurable(long seq) {
    CountDownLatch done = new CountDownLatch(1);
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
      throw new UncheckedIOException(new IOException("the log cannot be written: " + why));
    }
  }

  /**
   * Refuses writes from now on: the first failure is kept, logged and shown in INFO; every waiter
   * is woken.
   */
  void fail(String what, Throwable e) {
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

  /** Runs the waiters the log has passed, or all of them once it has failed. */
  void runWaiters() {
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
}
