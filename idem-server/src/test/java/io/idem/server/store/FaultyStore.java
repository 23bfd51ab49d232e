package io.idem.server.store;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.rocksdb.RocksDBException;

/**
 * Faults a test arms at a step, each fired once: a RocksDB error, an Error, or a pause that holds
 * the thread at the step until released.
 */
public final class FaultyStore implements StoreFaults {

  /** What an armed fault does. */
  public enum Action {
    ROCKSDB_ERROR,
    ERROR,
    PAUSE
  }

  private record Armed(Step step, Action action) {}

  private final AtomicReference<@Nullable Armed> armed = new AtomicReference<>();
  private volatile CountDownLatch reached = new CountDownLatch(1);
  private volatile CountDownLatch release = new CountDownLatch(1);

  /** Makes the next arrival at {@code step} fail (or pause) with {@code action}. */
  public void arm(Step step, Action action) {
    reached = new CountDownLatch(1);
    release = new CountDownLatch(1);
    armed.set(new Armed(step, action));
  }

  /** Waits until the armed fault has fired. */
  public boolean awaitFired(long seconds) throws InterruptedException {
    return reached.await(seconds, java.util.concurrent.TimeUnit.SECONDS);
  }

  /** Lets a paused step go on. */
  public void release() {
    release.countDown();
  }

  @Override
  public void at(Step step) throws RocksDBException {
    Armed a = armed.get();
    if (a == null || a.step() != step || !armed.compareAndSet(a, null)) {
      return;
    }
    reached.countDown();
    switch (a.action()) {
      case ROCKSDB_ERROR -> throw new RocksDBException("injected at " + step);
      case ERROR -> throw new AssertionError("injected at " + step);
      case PAUSE -> {
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }
}
