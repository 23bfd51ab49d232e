package io.idem.client;

import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.concurrent.Flow;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link Queue#eventFeed}: a queue's events as a {@link Flow.Publisher}. Each subscription reads
 * QUEUE.EVENTS on a connection and a thread of its own, from the id it was given, never more than
 * the subscriber requested, blocking a second at a time while there is nothing new.
 */
final class QueueEventFeed implements Flow.Publisher<Queue.Event> {

  private static final Duration BLOCK = Duration.ofSeconds(1);

  private final IdemClient client;
  private final Queue queue;
  private final long afterId;

  QueueEventFeed(IdemClient client, Queue queue, long afterId) {
    this.client = client;
    this.queue = queue;
    this.afterId = afterId;
  }

  @Override
  public void subscribe(Flow.Subscriber<? super Queue.Event> subscriber) {
    Subscription s = new Subscription(subscriber);
    subscriber.onSubscribe(s);
    Thread.ofPlatform().name("idem-events-" + queue.key()).daemon().start(s::run);
  }

  private final class Subscription implements Flow.Subscription {
    private final Flow.Subscriber<? super Queue.Event> subscriber;
    private final AtomicLong demand = new AtomicLong();
    private final Semaphore wake = new Semaphore(0);
    private volatile boolean cancelled;

    Subscription(Flow.Subscriber<? super Queue.Event> subscriber) {
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

    void run() {
      long last = afterId;
      try (StatefulRedisConnection<byte[], byte[]> own = client.newConnection()) {
        while (!cancelled) {
          long want = demand.get();
          if (want == 0) {
            wake.tryAcquire(200, TimeUnit.MILLISECONDS);
            continue;
          }
          for (Queue.Event e : queue.events(own, last, (int) Math.min(want, 1000), BLOCK)) {
            if (cancelled) {
              return;
            }
            last = e.id();
            demand.decrementAndGet();
            subscriber.onNext(e);
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException e) {
        if (!cancelled) {
          cancelled = true;
          subscriber.onError(e);
        }
      }
    }
  }
}
