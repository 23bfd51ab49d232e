package io.idem.server.commands.queue;

import io.idem.server.engine.Engine;
import io.idem.server.reply.Reply;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * QUEUE.RESERVE … BLOCK's waiters. A waiter's reply is deferred: no event loop waits. It tries the
 * reserve again on its own thread when the queue may have a job for it: after an add, a release, a
 * failure's retry or a replay on its key (woken), at the time the queue's next job becomes due or
 * its next lease ends, and gives up with nil at its timeout. A reply that leased jobs leaves once
 * the lease is in the write-ahead log, as any write's reply.
 */
final class QueueWaits {

  /** Waiters at once, over every queue: past it, a BLOCK is refused. */
  static final int MAX_WAITERS = 10_000;

  private static final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().name("idem-queue-wake").daemon().unstarted(r));

  private record QueueKey(Engine engine, ByteBuffer key) {}

  private static final class Waiter {
    final QueueKey at;
    final int count;
    final long lease;
    final CompletableFuture<Reply> reply = new CompletableFuture<>();

    /** Set once a retry leased jobs: the timeout no longer answers nil, the jobs are its reply. */
    volatile boolean delivering;

    Waiter(QueueKey at, int count, long lease) {
      this.at = at;
      this.count = count;
      this.lease = lease;
    }
  }

  private static final ConcurrentHashMap<QueueKey, Set<Waiter>> waiting = new ConcurrentHashMap<>();
  private static final AtomicInteger total = new AtomicInteger();

  private QueueWaits() {}

  /** A deferred reply for a reserve that found nothing due; {@code timeoutMillis} 0: no limit. */
  static Reply await(
      Engine engine, byte[] key, int count, long lease, long timeoutMillis, long nextWake) {
    if (total.incrementAndGet() > MAX_WAITERS) {
      total.decrementAndGet();
      return Reply.err("too many blocked reserves (" + MAX_WAITERS + "); retry without BLOCK");
    }
    QueueKey at = new QueueKey(engine, ByteBuffer.wrap(key.clone()));
    Waiter w = new Waiter(at, count, lease);
    waiting.computeIfAbsent(at, k -> ConcurrentHashMap.newKeySet()).add(w);
    w.reply.whenComplete((r, e) -> forget(w));
    if (timeoutMillis > 0) {
      timer.schedule(
          () -> {
            if (!w.delivering) { // else the leased jobs are its reply, once durable
              w.reply.complete(Reply.NULL_ARRAY);
            }
          },
          timeoutMillis,
          TimeUnit.MILLISECONDS);
    }
    schedule(w, nextWake, engine.now());
    // A job added between the reserve that found none and this registration must not be missed.
    timer.execute(() -> attempt(w));
    return new Reply.Deferred(w.reply);
  }

  private static void forget(Waiter w) {
    Set<Waiter> set = waiting.get(w.at);
    if (set != null && set.remove(w)) {
      total.decrementAndGet();
      if (set.isEmpty()) {
        waiting.remove(w.at, set);
      }
    }
  }

  /** After a write that may have made jobs due at the key: its waiters try again. */
  static void wake(Engine engine, byte[] key) {
    Set<Waiter> set = waiting.get(new QueueKey(engine, ByteBuffer.wrap(key)));
    if (set != null) {
      for (Waiter w : set) {
        timer.execute(() -> attempt(w));
      }
    }
  }

  private static void schedule(Waiter w, long wakeAt, long now) {
    if (wakeAt != Long.MAX_VALUE && wakeAt != Long.MIN_VALUE) {
      timer.schedule(() -> attempt(w), Math.max(0, wakeAt - now), TimeUnit.MILLISECONDS);
    }
  }

  private static void attempt(Waiter w) {
    if (w.reply.isDone() || w.delivering) {
      return; // answered, or its jobs are on their way (a wake queued another try meanwhile)
    }
    Engine engine = w.at.engine();
    byte[] key = new byte[w.at.key().remaining()];
    w.at.key().duplicate().get(key);
    QueueHandlers.Reserved r;
    try {
      // Checked again under the key's lock: a waiter cancelled meanwhile (by EXEC, or its
      // timeout) must lease nothing, or the jobs would wait for their lease with no one to run
      // them.
      r =
          QueueHandlers.tryReserve(
              engine, key, w.count, w.lease, () -> !w.reply.isDone() && !w.delivering);
    } catch (RuntimeException e) { // the key now holds another type, say
      w.reply.complete(Reply.err("the blocked reserve failed: " + e.getMessage()));
      return;
    }
    if (r.jobs().isEmpty()) {
      schedule(w, r.nextWake(), engine.now());
      return;
    }
    // Timeouts run on this thread too, so none can answer nil between the lease and this mark.
    w.delivering = true;
    engine
        .journal()
        .whenDurable(
            engine.journal().lastSeq(),
            () -> {
              if (!w.reply.complete(r.reply())) {
                // Cancelled meanwhile: its client went away before the jobs could be sent.
                timer.execute(() -> QueueHandlers.giveBack(engine, key, r.jobs()));
              }
            });
  }
}
