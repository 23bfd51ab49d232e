package io.idem.client;

import java.util.concurrent.Flow;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a subscription whose loop reads on a thread of its own keeps: the subscriber's demand, a
 * wake for the loop when it grows or the subscription is cancelled, and the cancel. Reactive
 * Streams' rule §3.9: a request of n ≤ 0 cancels and signals onError.
 */
abstract class DemandSubscription<T> implements Flow.Subscription {

  final Flow.Subscriber<? super T> subscriber;
  final AtomicLong demand = new AtomicLong();
  private final Semaphore wake = new Semaphore(0);
  volatile boolean cancelled;

  DemandSubscription(Flow.Subscriber<? super T> subscriber) {
    this.subscriber = subscriber;
  }

  @Override
  public void request(long n) {
    if (n <= 0) {
      cancel();
      subscriber.onError(new IllegalArgumentException("request " + n + ": §3.9 wants n > 0"));
      return;
    }
    demand.getAndAccumulate(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
    wake.release();
  }

  @Override
  public void cancel() {
    cancelled = true;
    wake.release();
  }

  /** The demand now; when none, first waits a moment for a request (or a cancel). */
  long awaitDemand() throws InterruptedException {
    long want = demand.get();
    if (want == 0) {
      wake.tryAcquire(200, TimeUnit.MILLISECONDS);
    }
    return want;
  }
}
