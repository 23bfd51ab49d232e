package io.idem.client;

import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.concurrent.Flow;

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

  private final class Subscription extends DemandSubscription<Queue.Event> {
    Subscription(Flow.Subscriber<? super Queue.Event> subscriber) {
      super(subscriber);
    }

    void run() {
      long last = afterId;
      try (StatefulRedisConnection<byte[], byte[]> own = client.newConnection()) {
        while (!cancelled) {
          long want = awaitDemand();
          if (want == 0) {
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
