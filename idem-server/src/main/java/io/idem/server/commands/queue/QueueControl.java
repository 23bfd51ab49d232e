package io.idem.server.commands.queue;

import io.idem.server.commands.queue.JobQueue.Job;
import io.idem.server.commands.queue.QueueCodec.Op;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Parse;
import io.idem.server.engine.Entry;
import io.idem.server.engine.Glob;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The commands that control a queue and look at its jobs: QUEUE.PAUSE and RESUME, QUEUE.CANCEL,
 * QUEUE.PROGRESS, QUEUE.JOB and QUEUE.JOBS (docs/commands/queue.md). Logged as the rest of the
 * queue's changes.
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
              return Reply.map(fields(j, state));
            });
  }

  /** QUEUE.JOB's map of a job in {@code state}, as a flat list of keys and values. */
  private static List<Reply> fields(Job j, String state) {
    boolean leased = state.equals("leased");
    return List.of(
        Reply.bulk("state"), Reply.bulk(state),
        Reply.bulk("payload"), Reply.bulk(j.payload()),
        Reply.bulk("priority"), Reply.integer(j.priority),
        Reply.bulk("attempts"), Reply.integer(j.attempts),
        Reply.bulk("max-attempts"), Reply.integer(j.maxAttempts()),
        Reply.bulk("due"), Reply.integer(j.due),
        Reply.bulk("lease-until"), leased ? Reply.integer(j.leaseUntil) : Reply.NULL,
        Reply.bulk("progress"), j.progress() == null ? Reply.NULL : Reply.bulk(j.progress()),
        Reply.bulk("errors"), Reply.array(QueueHandlers.errors(j)),
        Reply.bulk("cancelled"), Reply.integer(j.cancelled() ? 1 : 0),
        Reply.bulk("group"), j.group.seq == 0 ? Reply.NULL : Reply.bulk(j.group.name));
  }

  /** The states QUEUE.JOBS filters by, as {@link #state} names them. */
  private static final List<String> STATES =
      List.of("ready", "delayed", "leased", "dead", "waiting-children");

  /** What QUEUE.JOBS answers for a free key, or a group no job is in: the walk is done. */
  private static final Reply NO_JOBS = Reply.array(Reply.bulk("0"), Reply.EMPTY_ARRAY);

  /**
   * QUEUE.JOBS probes about this many index slots for each job a page may hold: enough for a page
   * of a filter that keeps one job in a few, and a bound on a call whatever the filter keeps.
   */
  private static final int JOBS_PROBES_PER_COUNT = 10;

  /**
   * QUEUE.JOBS key [STATE s] [GROUP name] [MATCH pattern] [CURSOR c] [COUNT n]: a page of the jobs
   * as of now, filtered, as [next-cursor, [job, ...]] (SCAN's shape; "0" once done), each job
   * QUEUE.JOB's map with its id first. A page holds at most COUNT jobs (default 100, at most 1000)
   * and probes about 10 slots of the index for each, so a filter that keeps few answers pages that
   * may be empty while the cursor goes on.
   */
  static Reply jobs(Call call) {
    String stateArg = null;
    byte[] group = null;
    byte[] match = null;
    long cursor = 0;
    int count = 100;
    for (int i = 2; i < call.argc(); i += 2) {
      if (i + 1 >= call.argc()) {
        throw new CommandException(io.idem.server.dispatch.Errors.SYNTAX);
      }
      if (call.is(i, "STATE")) {
        stateArg = Parse.text(call.arg(i + 1)).toLowerCase(Locale.ROOT);
        if (!STATES.contains(stateArg)) {
          throw CommandException.err("STATE is ready, delayed, leased, dead or waiting-children");
        }
      } else if (call.is(i, "GROUP")) {
        group = QueueHandlers.groupName(call, i + 1);
      } else if (call.is(i, "MATCH")) {
        byte[] p = call.arg(i + 1);
        match = p.length == 1 && p[0] == '*' ? null : p;
      } else if (call.is(i, "CURSOR")) {
        Long c = Parse.unsignedOrNull(call.arg(i + 1));
        if (c == null || c < 0 || c >= JobIndex.SCAN_END) {
          throw new CommandException(QueueHandlers.INVALID_CURSOR);
        }
        cursor = c;
      } else if (call.is(i, "COUNT")) {
        Long c = Parse.longOrNull(call.arg(i + 1));
        if (c == null || c < 1 || c > QueueHandlers.MAX_COUNT) {
          throw CommandException.err("COUNT is an integer from 1 to " + QueueHandlers.MAX_COUNT);
        }
        count = c.intValue();
      } else {
        throw new CommandException(io.idem.server.dispatch.Errors.SYNTAX);
      }
    }
    String wanted = stateArg;
    byte[] groupName = group;
    byte[] pattern = match;
    long from = cursor;
    int n = count;
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              JobQueue q = Entry.valueOrNull(e, QueueCodec.INSTANCE);
              if (q == null) {
                return NO_JOBS;
              }
              JobGroup only = groupName == null ? null : q.group(groupName);
              if (groupName != null && only == null) {
                return NO_JOBS; // no such group now: none of its jobs is left to list
              }
              long now = call.engine().now();
              JobQueue.JobPage page =
                  q.scan(
                      from,
                      n,
                      JOBS_PROBES_PER_COUNT * n,
                      j -> {
                        if (only != null && j.group != only) {
                          return false;
                        }
                        String s = state(j, now);
                        if (s == null || (wanted != null && !wanted.equals(s))) {
                          return false;
                        }
                        return pattern == null || Glob.matches(pattern, j.id());
                      });
              List<Reply> jobs = new ArrayList<>(page.jobs().size());
              for (Job j : page.jobs()) {
                // The filter kept it at this same time, so it has a state.
                String s = java.util.Objects.requireNonNull(state(j, now));
                List<Reply> f = new ArrayList<>(24);
                f.add(Reply.bulk("id"));
                f.add(Reply.bulk(j.id()));
                f.addAll(fields(j, s));
                jobs.add(Reply.map(f));
              }
              return Reply.array(Reply.bulk(Long.toString(page.cursor())), Reply.array(jobs));
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
