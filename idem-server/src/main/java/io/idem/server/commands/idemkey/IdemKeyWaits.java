package io.idem.server.commands.idemkey;

import io.idem.core.dedup.IdempotencyTable;
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
 * IDEMKEY.BEGIN … WAIT's waiters. A waiter's reply is deferred: no event loop waits. It begins
 * again on its own thread when the key may have changed: after a COMPLETE or an ABANDON of it
 * (woken), and at the end of the lease it found; at its timeout it answers in_progress with the
 * lease's time left. A waiter that took the key over replies once the BEGIN is in the write-ahead
 * log, as any write's reply; if its client went away meanwhile, it abandons the key again.
 */
final class IdemKeyWaits {

  /** Waiters at once, over every table: past it, a WAIT is refused. */
  static final int MAX_WAITERS = 10_000;

  private static final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().name("idem-idemkey-wake").daemon().unstarted(r));

  private record At(Engine engine, ByteBuffer key, ByteBuffer id) {}

  private static final class Waiter {
    final At at;
    final byte[] key;
    final byte[] id;
    final byte[] fingerprint;
    final long lease;
    final CompletableFuture<Reply> reply = new CompletableFuture<>();

    /** The end of the lease the last try found: when to try again, and the timeout's answer. */
    volatile long leaseUntil;

    /** Set once a try began the key: the timeout no longer answers, the begin is its reply. */
    volatile boolean delivering;

    Waiter(At at, byte[] key, byte[] id, byte[] fingerprint, long lease, long leaseUntil) {
      this.at = at;
      this.key = key;
      this.id = id;
      this.fingerprint = fingerprint;
      this.lease = lease;
      this.leaseUntil = leaseUntil;
    }
  }

  private static final ConcurrentHashMap<At, Set<Waiter>> waiting = new ConcurrentHashMap<>();
  private static final AtomicInteger total = new AtomicInteger();

  private IdemKeyWaits() {}

  /**
   * A deferred reply for a begin that found the key in progress until {@code leaseUntil}; {@code
   * timeoutMillis} 0: no limit but the leases'.
   */
  static Reply await(
      Engine engine,
      byte[] key,
      byte[] id,
      byte[] fingerprint,
      long lease,
      long timeoutMillis,
      long leaseUntil) {
    if (total.incrementAndGet() > MAX_WAITERS) {
      total.decrementAndGet();
      return Reply.err("too many waiting begins (" + MAX_WAITERS + "); retry without WAIT");
    }
    byte[] k = key.clone();
    byte[] i = id.clone();
    At at = new At(engine, ByteBuffer.wrap(k), ByteBuffer.wrap(i));
    Waiter w = new Waiter(at, k, i, fingerprint.clone(), lease, leaseUntil);
    waiting.computeIfAbsent(at, x -> ConcurrentHashMap.newKeySet()).add(w);
    w.reply.whenComplete((r, e) -> forget(w));
    if (timeoutMillis > 0) {
      timer.schedule(
          () -> {
            if (!w.delivering) {
              w.reply.complete(inProgress(Math.max(0, w.leaseUntil - engine.now())));
            }
          },
          timeoutMillis,
          TimeUnit.MILLISECONDS);
    }
    scheduleAtLeaseEnd(w, engine.now());
    // A completion between the begin that found the key in progress and this registration must
    // not be missed.
    timer.execute(() -> attempt(w));
    return new Reply.Deferred(w.reply);
  }

  private static Reply inProgress(long leftMillis) {
    return Reply.array(IdemKeys.IN_PROGRESS, Reply.integer(leftMillis));
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

  /** After a COMPLETE or an ABANDON of the id: its waiters begin again. */
  static void wake(Engine engine, byte[] key, byte[] id) {
    Set<Waiter> set = waiting.get(new At(engine, ByteBuffer.wrap(key), ByteBuffer.wrap(id)));
    if (set != null) {
      for (Waiter w : set) {
        timer.execute(() -> attempt(w));
      }
    }
  }

  private static void scheduleAtLeaseEnd(Waiter w, long now) {
    timer.schedule(() -> attempt(w), Math.max(0, w.leaseUntil - now), TimeUnit.MILLISECONDS);
  }

  private static void attempt(Waiter w) {
    if (w.reply.isDone() || w.delivering) {
      return;
    }
    Engine engine = w.at.engine();
    IdemKeyBeginCommand.Attempt a;
    try {
      // Asked again under the key's lock: a waiter answered meanwhile (its timeout, EXEC, a closed
      // connection) must take nothing over, or the key would stay in progress with no one on it.
      a =
          IdemKeyBeginCommand.attempt(
              engine, w.key, w.id, w.fingerprint, w.lease, () -> !w.reply.isDone());
    } catch (RuntimeException e) { // the table was deleted, or is full of keys in progress
      w.reply.complete(Reply.err("the waiting begin failed: " + e.getMessage()));
      return;
    }
    if (a.begun() == null) {
      return;
    }
    if (a.begun() instanceof IdempotencyTable.InProgress p) {
      w.leaseUntil = p.leaseUntil();
      scheduleAtLeaseEnd(w, engine.now());
      return;
    }
    // The timeout runs on this thread too, so it cannot answer between the begin and this mark.
    w.delivering = true;
    engine
        .journal()
        .whenDurable(
            engine.journal().lastSeq(),
            () -> {
              if (!w.reply.complete(a.reply()) && a.begun() instanceof IdempotencyTable.Started s) {
                // Its client went away: the key it took over is free again for the next retry.
                timer.execute(() -> giveBack(engine, w, s.token()));
              }
            });
  }

  private static void giveBack(Engine engine, Waiter w, long token) {
    try {
      engine.write(
          w.key,
          tx -> {
            IdempotencyTable t = tx.value(IdemKeyCodec.INSTANCE);
            if (t != null && t.abandon(IdemKeys.store(tx, engine.rows()), w.id, token)) {
              wake(engine, w.key, w.id);
            }
            return null;
          });
    } catch (RuntimeException e) {
      // The table went: nothing is held.
    }
  }
}
