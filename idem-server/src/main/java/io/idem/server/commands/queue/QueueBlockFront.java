package io.idem.server.commands.queue;

import io.idem.server.cluster.ClusterLog;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.LogFront;
import io.idem.server.engine.Engine;
import io.idem.server.engine.Entry;
import io.idem.server.engine.Waits;
import io.idem.server.reply.Reply;
import io.idem.server.request.Command;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * QUEUE.RESERVE ... BLOCK on a node with a log. The reserve waits on the node its client is on, and
 * writes to the log only plain reserves (without BLOCK), which every node serving the slot applies
 * as any record: one at once, then one each time the node's own replica shows a job it could lease
 * (woken as the node applies the record that made it due, or at the due time it read). One such
 * record at a time a key on a node, so a job that wakes a hundred waiters costs one record, not a
 * hundred. A record's leases go to the waiter that sent it alone; if that waiter was answered
 * meanwhile (its client went away), they are given back through the log.
 */
final class QueueBlockFront implements LogFront {

  static final QueueBlockFront INSTANCE = new QueueBlockFront();

  /** After a record leased nothing although the replica showed work: not again at once. */
  private static final long RETRY_MILLIS = 50;

  private QueueBlockFront() {}

  @Override
  public boolean takes(Command command) {
    for (int i = 2; i < command.size(); i++) {
      if (command.is(i, "BLOCK")) {
        return true;
      }
    }
    return false;
  }

  @Override
  public Reply front(Call call, ClusterLog log, int slot) {
    QueueHandlers.ReserveArgs a = QueueHandlers.ReserveArgs.parse(call);
    Engine engine = call.engine();
    byte[] key = call.arg(1).clone();
    Command plain =
        new Command(
            new byte[][] {
              ascii("QUEUE.RESERVE"),
              key,
              ascii("COUNT"),
              ascii(Integer.toString(a.count())),
              ascii("LEASE"),
              ascii(a.lease() + "ms")
            });
    long seen = engine.waits().seen(key, null);
    // The connection cancels this reply if its client goes away: the waiter goes with it, and
    // jobs a record leased for it after all are given back.
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    log.submit(plain, slot)
        .whenComplete(
            (first, e) -> {
              if (e != null) {
                reply.complete(Reply.err("the blocked reserve failed: " + e));
              } else if (!isEmpty(first)) {
                deliver(reply, first, log, slot, key); // jobs, or an error
              } else if (!reply.isDone()) {
                Reply waiting =
                    engine
                        .waits()
                        .await(
                            QueueHandlers.BLOCKED,
                            key,
                            null,
                            seen,
                            nextWake(engine, key),
                            a.block(),
                            () -> Reply.NULL_ARRAY,
                            wanted -> attempt(engine, log, slot, key, plain, wanted));
                if (waiting instanceof Reply.Deferred d) {
                  d.future().whenComplete((r, e2) -> deliver(reply, r, log, slot, key));
                  reply.whenComplete((r, e2) -> d.future().complete(Reply.NULL_ARRAY));
                } else {
                  reply.complete(waiting);
                }
              }
            });
    return new Reply.Deferred(reply);
  }

  /** Answers the client; if it went away meanwhile, gives back what the reply leased. */
  private static void deliver(
      CompletableFuture<Reply> reply, @Nullable Reply r, ClusterLog log, int slot, byte[] key) {
    if (r == null) {
      reply.complete(Reply.err("the blocked reserve failed"));
    } else if (!reply.complete(r) && r instanceof Reply.Array a && !a.items().isEmpty()) {
      giveBack(log, slot, key, r);
    }
  }

  /**
   * One try of a waiter: nothing to lease on this node's replica, or another waiter's record out
   * for the key, is a later try; else one plain reserve record, its outcome the try's.
   */
  private static Waits.Outcome attempt(
      Engine engine,
      ClusterLog log,
      int slot,
      byte[] key,
      Command plain,
      java.util.function.BooleanSupplier wanted) {
    long next = nextWake(engine, key);
    if (next > engine.now()) {
      return new Waits.Outcome.Later(next);
    }
    if (!wanted.getAsBoolean() || !engine.waits().startFlight(key)) {
      return new Waits.Outcome.Later(Long.MAX_VALUE); // tried again when the flight ends
    }
    CompletableFuture<Waits.Outcome> outcome =
        log.submit(plain, slot)
            .handle(
                (r, e) -> {
                  engine.waits().endFlight(key);
                  if (e != null) {
                    return new Waits.Outcome.Answer(Reply.err("the blocked reserve failed: " + e));
                  }
                  if (!isEmpty(r)) {
                    return r instanceof Reply.Error
                        ? new Waits.Outcome.Answer(r)
                        : new Waits.Outcome.Deliver(r, () -> giveBack(log, slot, key, r));
                  }
                  long again = nextWake(engine, key);
                  long now = engine.now();
                  return new Waits.Outcome.Later(again <= now ? now + RETRY_MILLIS : again);
                });
    return new Waits.Outcome.Submitted(outcome);
  }

  /**
   * When this node's replica of the queue could next lease something (Long.MIN_VALUE: now;
   * Long.MAX_VALUE: only a write can tell, or there is no queue). Reads, changes nothing.
   */
  private static long nextWake(Engine engine, byte[] key) {
    return engine.read(
        key,
        (@Nullable Entry e) -> {
          JobQueue q = Entry.valueOrNull(e, QueueCodec.INSTANCE);
          return q == null ? Long.MAX_VALUE : q.nextWake();
        });
  }

  /** Whether a reserve's reply leased nothing (an empty array). */
  private static boolean isEmpty(Reply r) {
    return r instanceof Reply.Array a && a.items().isEmpty();
  }

  /** Gives back, as QUEUE.RELEASE records, the jobs a record leased for a waiter gone since. */
  private static void giveBack(ClusterLog log, int slot, byte[] key, Reply leased) {
    List<Reply> jobs = ((Reply.Array) leased).items();
    for (Reply job : jobs) {
      List<Reply> f = ((Reply.Array) job).items();
      byte[] id = ((Reply.Bulk) f.get(0)).bytes();
      long token = ((Reply.Int) f.get(2)).value();
      // If this record is lost too, the lease ends at its time: at least once still holds.
      log.submit(
          new Command(new byte[][] {ascii("QUEUE.RELEASE"), key, id, ascii(Long.toString(token))}),
          slot);
    }
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
