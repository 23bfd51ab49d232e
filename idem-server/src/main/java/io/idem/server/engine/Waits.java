package io.idem.server.engine;

import io.idem.server.reply.Reply;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * An engine's replies that wait for a key to change: QUEUE.RESERVE's BLOCK, IDEMKEY.BEGIN's WAIT. A
 * waiter's reply is deferred, so no event loop waits. The engine's one waits thread tries it again
 * when a write wakes what it waits on, and at the time its last try asked for. At its timeout it
 * answers what its timeout says. A try that wrote (leased jobs, took a key over) replies once the
 * write is in the write-ahead log, as any write's reply; if the waiter was answered meanwhile (its
 * client went away), the try's undo runs instead. A waiter's scheduled tries and timeout are
 * cancelled once it is answered, so the timer holds only live waiters.
 */
public final class Waits implements AutoCloseable {

  /** What a try found. */
  public sealed interface Outcome {
    /** Nothing yet: try again when woken, or at {@code wakeAt} (ms; Long.MAX_VALUE: when woken). */
    record Later(long wakeAt) implements Outcome {}

    /** Answer this now; the try wrote nothing. */
    record Answer(Reply reply) implements Outcome {}

    /**
     * The try wrote: reply once it is durable, or run {@code undo} on the waits thread if the
     * waiter was answered meanwhile.
     */
    record Deliver(Reply reply, Runnable undo) implements Outcome {}

    /**
     * The try sent a write elsewhere (a record to the cluster's log) whose outcome is {@code
     * outcome}: a {@link Deliver} (its reply is durable already; {@code undo} runs if the waiter
     * was answered meanwhile), an {@link Answer}, or a {@link Later}. Until then the timeout does
     * not answer: the write may have taken something for this waiter.
     */
    record Submitted(CompletableFuture<Outcome> outcome) implements Outcome {}
  }

  /**
   * One try, which takes the key's lock itself and must write nothing once {@code wanted} is false
   * there (a waiter answered meanwhile, by its timeout or a closed connection, takes nothing).
   */
  public interface Attempt {
    Outcome attempt(BooleanSupplier wanted);
  }

  /** A kind of waiter and how many may wait at once on one engine; past it, {@code refusal}. */
  public record Limit(int max, String refusal) {}

  private record At(ByteBuffer key, ByteBuffer sub) {}

  private final class Waiter {
    final At at;
    final Limit limit;
    final Attempt attempt;
    final Supplier<Reply> onTimeout;
    final CompletableFuture<Reply> reply = new CompletableFuture<>();

    /** Set once a try wrote: the timeout no longer answers, the try's reply is on its way. */
    volatile boolean delivering;

    /** The timeout came while a submitted try was out: it answers when that try comes back. */
    volatile boolean timedOut;

    /** The wakes counted when a try was submitted: one since means try again at once. */
    long seenAtSubmit;

    /** Where its wakes are counted. */
    int stripe;

    volatile @Nullable ScheduledFuture<?> timeout;

    /** The next scheduled try; replaced on the waits thread only, cancelled from any. */
    volatile @Nullable ScheduledFuture<?> next;

    Waiter(At at, Limit limit, Attempt attempt, Supplier<Reply> onTimeout) {
      this.at = at;
      this.limit = limit;
      this.attempt = attempt;
      this.onTimeout = onTimeout;
    }
  }

  private static final byte[] NONE = new byte[0];

  /** Wakes counted by a hash of what they woke: how a waiter knows it may have missed one. */
  private static final int STRIPES = 1024;

  private final AtomicLongArray wakes = new AtomicLongArray(STRIPES);

  private final Engine engine;
  private final ConcurrentHashMap<At, Set<Waiter>> waiting = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Limit, AtomicInteger> counts = new ConcurrentHashMap<>();
  private volatile @Nullable ScheduledThreadPoolExecutor timer;

  Waits(Engine engine) {
    this.engine = engine;
  }

  /** The waits thread, started by the first waiter. */
  private ScheduledThreadPoolExecutor timer() {
    ScheduledThreadPoolExecutor t = timer;
    if (t == null) {
      synchronized (this) {
        t = timer;
        if (t == null) {
          t =
              new ScheduledThreadPoolExecutor(
                  1, r -> Thread.ofPlatform().name("idem-waits").daemon().unstarted(r));
          t.setRemoveOnCancelPolicy(true);
          timer = t;
        }
      }
    }
    return t;
  }

  /**
   * What a command reads before its own try, and gives {@link #await} if it then waits: whether a
   * wake of what it waits on came between its try and its registration.
   */
  public long seen(byte[] key, byte @Nullable [] sub) {
    return wakes.get(stripe(key, sub));
  }

  /**
   * A deferred reply for a command that found nothing yet at {@code key} (and {@code sub}, an item
   * in it, or null for the whole key), tried again as the class says, first at {@code wakeAt}
   * (Long.MAX_VALUE: when woken); {@code timeoutMillis} 0: no limit. If a wake came since {@code
   * seen} (read before the command's own try), it tries again at once, so a write between that try
   * and this registration is not missed.
   */
  public Reply await(
      Limit limit,
      byte[] key,
      byte @Nullable [] sub,
      long seen,
      long wakeAt,
      long timeoutMillis,
      Supplier<Reply> onTimeout,
      Attempt attempt) {
    AtomicInteger count = counts.computeIfAbsent(limit, l -> new AtomicInteger());
    if (count.incrementAndGet() > limit.max()) {
      count.decrementAndGet();
      return Reply.err(limit.refusal());
    }
    At at = at(key.clone(), sub == null ? NONE : sub.clone());
    Waiter w = new Waiter(at, limit, attempt, onTimeout);
    w.stripe = stripe(key, sub);
    waiting.computeIfAbsent(at, x -> ConcurrentHashMap.newKeySet()).add(w);
    w.reply.whenComplete((r, e) -> forget(w));
    ScheduledThreadPoolExecutor t = timer();
    if (timeoutMillis > 0) {
      w.timeout =
          t.schedule(
              () -> {
                if (!w.delivering) {
                  w.reply.complete(w.onTimeout.get());
                } else {
                  w.timedOut = true;
                }
              },
              timeoutMillis,
              TimeUnit.MILLISECONDS);
      if (w.reply.isDone()) {
        w.timeout.cancel(false); // answered before the timeout was set
      }
    }
    // Registered before the count is read again, as a wake counts before it looks for waiters:
    // one of the two sees the other.
    if (wakes.get(stripe(key, sub)) != seen) {
      t.execute(() -> attempt(w));
    } else {
      t.execute(() -> later(w, wakeAt));
    }
    return new Reply.Deferred(w.reply);
  }

  private static int stripe(byte[] key, byte @Nullable [] sub) {
    int h =
        java.util.Arrays.hashCode(key) * 31 + (sub == null ? 0 : java.util.Arrays.hashCode(sub));
    return (h ^ (h >>> 16)) & (STRIPES - 1);
  }

  /** After a write that may let waiters at {@code key} (and {@code sub}, or null) go on. */
  public void wake(byte[] key, byte @Nullable [] sub) {
    wakes.incrementAndGet(stripe(key, sub));
    Set<Waiter> set = waiting.get(at(key, sub == null ? NONE : sub));
    if (set != null) {
      ScheduledThreadPoolExecutor t = timer();
      for (Waiter w : set) {
        t.execute(() -> attempt(w));
      }
    }
  }

  /** Waiters now, of every kind. */
  public int size() {
    int n = 0;
    for (AtomicInteger c : counts.values()) {
      n += c.get();
    }
    return n;
  }

  /** Tries and timeouts scheduled now: only live waiters' (tests). */
  int scheduled() {
    ScheduledThreadPoolExecutor t = timer;
    return t == null ? 0 : t.getQueue().size();
  }

  private static At at(byte[] key, byte[] sub) {
    return new At(ByteBuffer.wrap(key), ByteBuffer.wrap(sub));
  }

  private void forget(Waiter w) {
    ScheduledFuture<?> t = w.timeout;
    if (t != null) {
      t.cancel(false);
    }
    ScheduledFuture<?> n = w.next;
    if (n != null) {
      n.cancel(false); // one scheduled meanwhile is cancelled by later(), which sees the answer
    }
    Set<Waiter> set = waiting.get(w.at);
    if (set != null && set.remove(w)) {
      counts.get(w.limit).decrementAndGet();
      if (set.isEmpty()) {
        waiting.remove(w.at, set);
      }
    }
  }

  private void attempt(Waiter w) {
    if (w.reply.isDone() || w.delivering) {
      return; // answered, or its write is on its way (a wake queued another try meanwhile)
    }
    Outcome o;
    try {
      o = w.attempt.attempt(() -> !w.reply.isDone() && !w.delivering);
    } catch (RuntimeException e) { // the key was deleted, or holds another type now
      w.reply.complete(Reply.err("the waiting command failed: " + e.getMessage()));
      return;
    }
    switch (o) {
      case Outcome.Later later -> later(w, later.wakeAt());
      case Outcome.Answer a -> w.reply.complete(a.reply());
      case Outcome.Deliver d -> {
        // The timeout runs on this thread too, so it cannot answer between the write and this.
        w.delivering = true;
        engine
            .journal()
            .whenDurable(
                engine.journal().lastSeq(),
                () -> {
                  if (!w.reply.complete(d.reply())) {
                    timer().execute(d.undo());
                  }
                });
      }
      case Outcome.Submitted s -> {
        w.delivering = true;
        w.seenAtSubmit = wakes.get(w.stripe);
        s.outcome().whenComplete((out, e) -> timer().execute(() -> submitted(w, out, e)));
      }
    }
  }

  /** A submitted try came back: deliver, answer, or wait on (trying at once if woken meanwhile). */
  private void submitted(Waiter w, @Nullable Outcome out, @Nullable Throwable e) {
    switch (e != null ? new Outcome.Answer(Reply.err("the waiting command failed: " + e)) : out) {
      case Outcome.Deliver d -> {
        if (!w.reply.complete(d.reply())) {
          d.undo().run();
        }
      }
      case Outcome.Answer a -> w.reply.complete(a.reply());
      case Outcome.Later later -> {
        w.delivering = false;
        if (w.timedOut) {
          w.reply.complete(w.onTimeout.get());
        } else if (wakes.get(w.stripe) != w.seenAtSubmit) {
          attempt(w);
        } else {
          later(w, later.wakeAt());
        }
      }
      case Outcome.Submitted nested ->
          w.reply.complete(Reply.err("the waiting command failed: a try submitted twice"));
    }
  }

  /** Keys (and items) with a submitted try out, so that one waiter at a time writes for one. */
  private final Set<At> flights = ConcurrentHashMap.newKeySet();

  /**
   * Whether a try may submit a write for {@code key} (and {@code sub}, an item in it, or null) now:
   * one at a time, so a wake of many waiters sends one write, not one each. The caller ends its
   * flight with {@link #endFlight}.
   */
  public boolean startFlight(byte[] key, byte @Nullable [] sub) {
    return flights.add(at(key.clone(), sub == null ? NONE : sub.clone()));
  }

  /** Ends a flight: the other waiters there try again (uncounted: no new state). */
  public void endFlight(byte[] key, byte @Nullable [] sub) {
    At at = at(key, sub == null ? NONE : sub);
    flights.remove(at);
    Set<Waiter> set = waiting.get(at);
    if (set != null) {
      ScheduledThreadPoolExecutor t = timer();
      for (Waiter w : set) {
        t.execute(() -> attempt(w));
      }
    }
  }

  /** Schedules the waiter's next try at {@code wakeAt}, in place of the one scheduled before. */
  private void later(Waiter w, long wakeAt) {
    ScheduledFuture<?> before = w.next;
    if (before != null) {
      before.cancel(false);
      w.next = null;
    }
    if (!w.reply.isDone() && wakeAt != Long.MAX_VALUE && wakeAt != Long.MIN_VALUE) {
      // To the start of that millisecond, not a whole millisecond from now: the clock is in whole
      // milliseconds, and a try a fraction late each time (a rate's next lease, say) adds up.
      long millis = Math.min(Math.max(0, wakeAt - engine.now()), Long.MAX_VALUE / 2_000_000L);
      long delay =
          Math.max(0, millis * 1_000_000L - java.time.Instant.now().getNano() % 1_000_000L);
      ScheduledFuture<?> next = timer().schedule(() -> attempt(w), delay, TimeUnit.NANOSECONDS);
      w.next = next;
      if (w.reply.isDone()) {
        next.cancel(false); // answered meanwhile: forget() may have read the one before
      }
    }
  }

  @Override
  public void close() {
    ScheduledThreadPoolExecutor t = timer;
    if (t != null) {
      t.shutdownNow();
    }
  }
}
