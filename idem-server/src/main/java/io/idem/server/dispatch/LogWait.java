package io.idem.server.dispatch;

import io.idem.server.cluster.ClusterLog;
import io.idem.server.engine.Engine;
import io.idem.server.engine.Waits;
import io.idem.server.reply.Reply;
import io.idem.server.request.Command;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A waiting command on a node with a log (a {@link LogFront}'s work): it waits on the node its
 * client is on, and writes to the log only a plain form of itself that does not wait, which every
 * node serving the slot applies as any record: one at once, then one each time this node's own
 * replica shows it could now succeed (woken as the node applies the record that changed it, or at
 * the time it read). One such record at a time a key (and item) on a node, so a write that wakes a
 * hundred waiters costs one record, not a hundred. What a record took goes to the waiter that sent
 * it alone; if that waiter was answered meanwhile (its client went away), it is given back through
 * the log.
 */
public final class LogWait {

  /** After a record took nothing although the replica showed it could: not again at once. */
  private static final long RETRY_MILLIS = 50;

  private LogWait() {}

  /** What a plain record's reply means for its waiter. */
  public enum Verdict {
    /** It took nothing: wait on. */
    WAIT,
    /** An answer that took nothing (an error, or a state that ends the wait). */
    ANSWER,
    /** It took something for the waiter: answer it, or give it back if the waiter is gone. */
    TAKEN
  }

  /** What a kind of waiting command knows about its own replies and state. */
  public interface Kind {
    Verdict judge(Reply reply);

    /**
     * When this node's replica could next let a record succeed: Long.MIN_VALUE (or any past time)
     * now, Long.MAX_VALUE when only a write can tell. Reads, changes nothing.
     */
    long nextWake();

    /** Gives back, through the log, what a TAKEN reply took for a waiter answered meanwhile. */
    void giveBack(Reply taken);
  }

  /**
   * Runs {@code plain} through the log, waiting at {@code key} (and {@code sub}) until a record's
   * reply is not {@link Verdict#WAIT} or {@code timeoutMillis} (0: no limit) passes.
   */
  public static Reply run(
      Engine engine,
      ClusterLog log,
      int slot,
      Command plain,
      byte[] key,
      byte @Nullable [] sub,
      Waits.Limit limit,
      long timeoutMillis,
      Supplier<Reply> onTimeout,
      Kind kind) {
    long seen = engine.waits().seen(key, sub);
    // The connection cancels this reply if its client goes away: the waiter goes with it, and
    // what a record took for it after all is given back.
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    log.submit(plain, slot)
        .whenComplete(
            (first, e) -> {
              if (e != null) {
                reply.complete(Reply.err("the waiting command failed: " + e));
              } else if (kind.judge(first) != Verdict.WAIT) {
                deliver(reply, first, kind);
              } else if (!reply.isDone()) {
                Reply waiting =
                    engine
                        .waits()
                        .await(
                            limit,
                            key,
                            sub,
                            seen,
                            kind.nextWake(),
                            timeoutMillis,
                            onTimeout,
                            wanted -> attempt(engine, log, slot, plain, key, sub, kind, wanted));
                if (waiting instanceof Reply.Deferred d) {
                  d.future().whenComplete((r, e2) -> deliver(reply, r, kind));
                  reply.whenComplete((r, e2) -> d.future().complete(Reply.NULL));
                } else {
                  reply.complete(waiting);
                }
              }
            });
    return new Reply.Deferred(reply);
  }

  /** Answers the client; if it went away meanwhile, gives back what the reply took. */
  private static void deliver(CompletableFuture<Reply> reply, @Nullable Reply r, Kind kind) {
    if (r == null) {
      reply.complete(Reply.err("the waiting command failed"));
    } else if (!reply.complete(r) && kind.judge(r) == Verdict.TAKEN) {
      kind.giveBack(r);
    }
  }

  /**
   * One try of a waiter: nothing to take on this node's replica, or another waiter's record out for
   * the key, is a later try; else one plain record, its outcome the try's.
   */
  private static Waits.Outcome attempt(
      Engine engine,
      ClusterLog log,
      int slot,
      Command plain,
      byte[] key,
      byte @Nullable [] sub,
      Kind kind,
      BooleanSupplier wanted) {
    long next = kind.nextWake();
    if (next > engine.now()) {
      return new Waits.Outcome.Later(next);
    }
    if (!wanted.getAsBoolean() || !engine.waits().startFlight(key, sub)) {
      return new Waits.Outcome.Later(Long.MAX_VALUE); // tried again when the flight ends
    }
    CompletableFuture<Waits.Outcome> outcome =
        log.submit(plain, slot)
            .handle(
                (r, e) -> {
                  engine.waits().endFlight(key, sub);
                  if (e != null) {
                    return new Waits.Outcome.Answer(Reply.err("the waiting command failed: " + e));
                  }
                  return switch (kind.judge(r)) {
                    case ANSWER -> new Waits.Outcome.Answer(r);
                    case TAKEN -> new Waits.Outcome.Deliver(r, () -> kind.giveBack(r));
                    case WAIT -> {
                      long again = kind.nextWake();
                      long now = engine.now();
                      yield new Waits.Outcome.Later(again <= now ? now + RETRY_MILLIS : again);
                    }
                  };
                });
    return new Waits.Outcome.Submitted(outcome);
  }
}
