package io.idem.server.commands.queue;

import io.idem.server.commands.queue.JobQueue.Job;
import io.idem.server.commands.queue.QueueCodec.Op;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The commands that control a queue and look at one job: QUEUE.PAUSE and RESUME, QUEUE.CANCEL,
 * QUEUE.PROGRESS and QUEUE.JOB (docs/commands/queue.md). Logged as the rest of the queue's changes.
 */
final class QueueControl {

  private QueueControl() {}

  /**
   * QUEUE.PAUSE key [GROUP name]: the queue (or one group) leases nothing until resumed. 1, or 0 if
   * it was paused.
   */
  static Reply pause(Call call) {
    byte[] group = groupOption(call);
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              JobQueue q = QueueHandlers.queueToAdd(tx);
              return pauseLogged(tx, q, call.engine().now(), true, group);
            });
  }

  /**
   * QUEUE.RESUME key [GROUP name]: it leases again (blocked reserves wake). 1, or 0 if it was not
   * paused.
   */
  static Reply resume(Call call) {
    byte[] group = groupOption(call);
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              Reply r =
                  pauseLogged(
                      tx, QueueHandlers.queue(tx.entry()), call.engine().now(), false, group);
              call.engine().waits().wake(call.arg(1), null);
              return r;
            });
  }

  private static byte @Nullable [] groupOption(Call call) {
    if (call.argc() == 2) {
      return null;
    }
    if (call.argc() == 4 && call.is(2, "GROUP")) {
      return QueueHandlers.groupName(call, 3);
    }
    throw new CommandException(io.idem.server.dispatch.Errors.SYNTAX);
  }

  private static Reply pauseLogged(
      io.idem.server.engine.KeyTx tx,
      JobQueue q,
      long now,
      boolean paused,
      byte @Nullable [] group) {
    boolean changed = group == null ? q.pause(paused) : q.pauseGroup(now, group, paused);
    if (!changed) {
      return Reply.ZERO;
    }
    tx.log(QueueCodec.OP_PAUSE, new Op().u64(now).u8(paused ? 1 : 0).bytes(group).done());
    return Reply.integer(1);
  }

  /**
   * QUEUE.CANCEL key id [id ...]: for each id, "cancelled" (it was waiting, delayed or dead: gone,
   * its id free), "leased" (its holder's next extend, progress, ack, fail or release says so, and
   * then it is gone; or its lease's end takes it), or nil (no such job).
   */
  static Reply cancel(Call call) {
    int n = call.argc() - 2;
    byte[][] ids = new byte[n][];
    for (int i = 0; i < n; i++) {
      ids[i] = QueueHandlers.id(call, 2 + i);
    }
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              JobQueue q = QueueHandlers.queue(tx.entry());
              long now = call.engine().now();
              List<Reply> out = new ArrayList<>(n);
              for (byte[] id : ids) {
                boolean flowsBefore = q.hasFlows();
                List<Long> flows = new ArrayList<>();
                JobQueue.Cancelled c = q.cancel(now, id, flows);
                if (c != JobQueue.Cancelled.NONE) {
                  List<io.idem.core.store.RowChange> rows = new ArrayList<>(flows.size());
                  for (long seq : flows) {
                    rows.add(QueueFlows.dropRows(seq)); // its children's results go with it
                  }
                  tx.log(QueueCodec.OP_CANCEL, new Op().u64(now).bytes(id).done(), rows);
                }
                if (c != JobQueue.Cancelled.NONE && (q.eventCapacity() > 0 || flowsBefore)) {
                  call.engine().waits().wake(call.arg(1), null);
                }
                out.add(
                    switch (c) {
                      case GONE -> Reply.bulk("cancelled");
                      case LEASED -> Reply.bulk("leased");
                      case NONE -> Reply.NULL;
                    });
              }
              return Reply.array(out);
            });
  }

  /**
   * QUEUE.PROGRESS key id token value: keeps the holder's progress (up to 4 KiB, shown by
   * QUEUE.JOB). 1, 0 if this lease does not hold the job, -1 if it was cancelled (it is gone).
   */
  static Reply progress(Call call) {
    byte[] id = QueueHandlers.id(call, 2);
    long token = QueueHandlers.token(call, 3);
    byte[] value = call.arg(4);
    if (value.length > QueueCodec.MAX_PROGRESS_BYTES) {
      throw CommandException.err(
          "a progress is at most " + QueueCodec.MAX_PROGRESS_BYTES + " bytes");
    }
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              JobQueue q = QueueHandlers.queue(tx.entry());
              long now = call.engine().now();
              JobQueue.Held held = q.progress(now, id, token, value);
              if (held == JobQueue.Held.NOT_LEASED) {
                return Reply.ZERO;
              }
              tx.log(
                  QueueCodec.OP_PROGRESS,
                  new Op().u64(now).bytes(id).u64(token).bytes(value).done());
              if (held == JobQueue.Held.CANCELLED && q.limitsConcurrency()
                  || q.eventCapacity() > 0) {
                call.engine().waits().wake(call.arg(1), null); // its slot is free, or an event
              }
              return Reply.integer(held == JobQueue.Held.DONE ? 1 : -1);
            });
  }

  /**
   * QUEUE.JOB key id: the job as of now, a map: state (ready, delayed, leased or dead), payload,
   * priority, attempts, max-attempts, due, lease-until (nil unless leased), progress (nil if none),
   * errors, cancelled (1 while a cancelled job's holder is still to be told), group (nil: none).
   * Nil if there is no such job (acked, cancelled, purged, never added).
   */
  static Reply job(Call call) {
    byte[] id = QueueHandlers.id(call, 2);
    if (call.argc() != 3) {
      throw CommandException.err("QUEUE.JOB takes a key and an id");
    }
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              Job j = QueueHandlers.queue(e).job(id);
              long now = call.engine().now();
              String state = state(j, now);
              if (state == null) {
                return Reply.NULL;
              }
              boolean leased = state.equals("leased");
              return Reply.map(
                  List.of(
                      Reply.bulk("state"), Reply.bulk(state),
                      Reply.bulk("payload"), Reply.bulk(j.payload()),
                      Reply.bulk("priority"), Reply.integer(j.priority),
                      Reply.bulk("attempts"), Reply.integer(j.attempts),
                      Reply.bulk("max-attempts"), Reply.integer(j.maxAttempts()),
                      Reply.bulk("due"), Reply.integer(j.due),
                      Reply.bulk("lease-until"), leased ? Reply.integer(j.leaseUntil) : Reply.NULL,
                      Reply.bulk("progress"),
                          j.progress() == null ? Reply.NULL : Reply.bulk(j.progress()),
                      Reply.bulk("errors"), Reply.array(QueueHandlers.errors(j)),
                      Reply.bulk("cancelled"), Reply.integer(j.cancelled() ? 1 : 0),
                      Reply.bulk("group"),
                          j.group.seq == 0 ? Reply.NULL : Reply.bulk(j.group.name)));
            });
  }

  /**
   * A job's state as of {@code now}, as QUEUE.INFO counts it: a lease that ended is ready again or
   * dead (or, cancelled, gone: null) although no reserve has settled it yet.
   */
  static @Nullable String state(@Nullable Job j, long now) {
    if (j == null) {
      return null;
    }
    return switch (j.state()) {
      case WAITING -> j.due <= now ? "ready" : "delayed";
      case DEAD -> "dead";
      case WAITING_CHILDREN -> "waiting-children";
      case LEASED -> {
        if (j.leaseUntil > now) {
          yield "leased";
        }
        if (j.cancelled()) {
          yield null;
        }
        yield j.attempts >= j.maxAttempts() ? "dead" : "ready";
      }
    };
  }

  private static List<Reply> errors(Job j) {
    List<Reply> out = new ArrayList<>(j.errors().size());
    for (String s : j.errors()) {
      out.add(Reply.bulk(s));
    }
    return out;
  }
}
