package io.idem.server.commands.queue;

import io.idem.server.commands.queue.QueueCodec.Op;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Parse;
import io.idem.server.engine.Entry;
import io.idem.server.reply.Reply;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

/**
 * Repeatable jobs: QUEUE.SCHEDULE, QUEUE.UNSCHEDULE, QUEUE.SCHEDULES, and QUEUE.FIRE, the record a
 * cluster node writes to fire one (docs/commands/queue.md). A schedule's runs are normal jobs with
 * ids of their own (name:time), added by FIRE operations that carry their times.
 */
final class QueueSchedules {

  private QueueSchedules() {}

  /**
   * QUEUE.SCHEDULE key name (EVERY duration [ALIGN] | CRON expression [TZ zone]) payload [PRIORITY
   * n] [ATTEMPTS n] [BACKOFF ...] [UNIQUE duration] [GROUP name] [MISSED ONE | MISSED ALL [MAX n] |
   * MISSED NONE] [START unix-ms] [END unix-ms] [LIMIT n]: "new" or "updated".
   */
  static Reply schedule(Call call) {
    byte[] name = call.arg(2);
    if (name.length == 0 || name.length > Schedule.MAX_NAME_BYTES) {
      throw CommandException.err("a schedule name is 1 to " + Schedule.MAX_NAME_BYTES + " bytes");
    }
    int i = 3;
    byte kind;
    long every = 0;
    boolean align = false;
    String cron = null;
    String zone = null;
    if (call.is(i, "EVERY") && i + 1 < call.argc()) {
      kind = Schedule.EVERY;
      Long ms = Parse.durationMillisOrNull(call.arg(i + 1));
      if (ms == null || ms < 1) {
        throw CommandException.err("EVERY is a duration: 500ms, 30s, 5m, 1h, 1d");
      }
      every = ms;
      i += 2;
      if (i < call.argc() && call.is(i, "ALIGN")) {
        align = true;
        i++;
      }
    } else if (call.is(i, "CRON") && i + 1 < call.argc()) {
      kind = Schedule.CRON;
      cron = new String(call.arg(i + 1), StandardCharsets.UTF_8);
      try {
        SchedulePlan.cron(cron);
      } catch (IllegalArgumentException e) {
        throw CommandException.err(e.getMessage());
      }
      i += 2;
      zone = "UTC";
      if (i + 1 < call.argc() && call.is(i, "TZ")) {
        zone = new String(call.arg(i + 1), StandardCharsets.UTF_8);
        try {
          ZoneId.of(zone);
        } catch (DateTimeException e) {
          throw CommandException.err("TZ is a time zone id, such as Europe/Paris or UTC");
        }
        i += 2;
      }
    } else {
      throw CommandException.err("a schedule is EVERY duration or CRON expression");
    }
    if (i >= call.argc()) {
      throw CommandException.err("a schedule needs its job's payload");
    }
    byte[] payload = call.arg(i++);
    QueueHandlers.JobOptions job = new QueueHandlers.JobOptions();
    byte missed = Schedule.MISSED_ONE;
    int missedMax = 100;
    long start = 0;
    long end = 0;
    long limit = 0;
    while (i < call.argc()) {
      if (call.is(i, "MISSED") && i + 1 < call.argc()) {
        if (call.is(i + 1, "ONE")) {
          missed = Schedule.MISSED_ONE;
        } else if (call.is(i + 1, "NONE")) {
          missed = Schedule.MISSED_NONE;
        } else if (call.is(i + 1, "ALL")) {
          missed = Schedule.MISSED_ALL;
          if (i + 3 < call.argc() && call.is(i + 2, "MAX")) {
            missedMax = (int) positive(call, i + 3, "MAX", Schedule.MAX_MISSED);
            i += 2;
          }
        } else {
          throw new CommandException(Errors.SYNTAX);
        }
        i += 2;
      } else if ((call.is(i, "START") || call.is(i, "END")) && i + 1 < call.argc()) {
        long t = positive(call, i + 1, "START and END are Unix times in ms:", Long.MAX_VALUE - 1);
        if (call.is(i, "START")) {
          start = t;
        } else {
          end = t;
        }
        i += 2;
      } else if (call.is(i, "LIMIT") && i + 1 < call.argc()) {
        limit = positive(call, i + 1, "LIMIT", Long.MAX_VALUE - 1);
        i += 2;
      } else {
        i = job.parseOneOrRefuse(call, i);
      }
    }
    if (job.id != null || job.delay != 0 || job.at != null) {
      throw CommandException.err(
          "a schedule's runs take no ID, DELAY or AT: each is due at its time");
    }
    if (end > 0 && end < start) {
      throw CommandException.err("END is before START");
    }
    Schedule.Definition def =
        new Schedule.Definition(
            name.clone(),
            kind,
            every,
            align,
            cron,
            zone,
            payload,
            job.priority,
            job.attempts,
            job.backoff,
            job.unique,
            job.group,
            missed,
            missedMax,
            start,
            end,
            limit);
    byte[] definition = QueueCodec.definition(def);
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              long now = call.engine().now();
              JobQueue q = QueueHandlers.queueToAdd(tx);
              boolean fresh = q.schedule(now, def);
              tx.log(QueueCodec.OP_SCHEDULE, new Op().u64(now).bytes(definition).done());
              tx.visitBy(now); // the background fires it, or arms a cron one, from now
              return Reply.bulk(fresh ? "new" : "updated");
            });
  }

  private static long positive(Call call, int i, String what, long max) {
    Long n = Parse.longOrNull(call.arg(i));
    if (n == null || n < 1 || n > max) {
      throw CommandException.err(what + " is a positive integer");
    }
    return n;
  }

  /** QUEUE.UNSCHEDULE key name: 1, or 0 if there was no such schedule. Its jobs stay. */
  static Reply unschedule(Call call) {
    byte[] name = call.arg(2);
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              JobQueue q = QueueHandlers.queue(tx.entry());
              if (!q.unschedule(name)) {
                return Reply.ZERO;
              }
              tx.log(
                  QueueCodec.OP_UNSCHEDULE, new Op().u64(call.engine().now()).bytes(name).done());
              return Reply.integer(1);
            });
  }

  /** QUEUE.SCHEDULES key: each schedule, by name, as a map. */
  static Reply schedules(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              JobQueue q = QueueHandlers.queue(e);
              List<Reply> out = new ArrayList<>();
              for (Schedule s : q.schedules()) {
                out.add(describe(s));
              }
              return Reply.array(out);
            });
  }

  private static Reply describe(Schedule s) {
    Schedule.Definition d = s.def;
    String when =
        d.kind() == Schedule.EVERY
            ? "every " + d.everyMillis() + "ms" + (d.align() ? " aligned" : "")
            : "cron " + d.cron() + " " + d.zone();
    String missed =
        switch (d.missed()) {
          case Schedule.MISSED_ALL -> "all " + d.missedMax();
          case Schedule.MISSED_NONE -> "none";
          default -> "one";
        };
    Reply next =
        s.nextDue == Schedule.DONE || s.nextDue == Schedule.PENDING
            ? Reply.NULL
            : Reply.integer(s.nextDue);
    return Reply.map(
        List.of(
            Reply.bulk("name"), Reply.bulk(d.name()),
            Reply.bulk("when"), Reply.bulk(when),
            Reply.bulk("payload"), Reply.bulk(d.payload()),
            Reply.bulk("next"), next,
            Reply.bulk("done"), Reply.integer(s.nextDue == Schedule.DONE ? 1 : 0),
            Reply.bulk("runs"), Reply.integer(s.runs),
            Reply.bulk("last-run"), s.runs == 0 ? Reply.NULL : Reply.integer(s.lastRun),
            Reply.bulk("missed"), Reply.bulk(missed),
            Reply.bulk("version"), Reply.integer(s.version)));
  }

  /**
   * QUEUE.FIRE key name version expected-due next-due [run-time ...]: fires a schedule with times
   * its firing node computed (a cluster's acting node writes it to the log). Applies only to that
   * version expecting that due time, so a FIRE asked twice, or for an older definition, does
   * nothing. 1 if it applied, 0 if not.
   */
  static Reply fire(Call call) {
    byte[] name = call.arg(2);
    long version = number(call, 3);
    long expected = number(call, 4);
    long next = number(call, 5);
    int n = call.argc() - 6;
    if (n > 100_000) {
      throw CommandException.err("at most 100000 runs a FIRE");
    }
    long[] runs = new long[n];
    for (int i = 0; i < n; i++) {
      runs[i] = number(call, 6 + i);
    }
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              JobQueue q = Entry.valueOrNull(tx.entry(), QueueCodec.INSTANCE);
              if (q == null) {
                return Reply.ZERO;
              }
              long now = call.engine().now();
              if (q.fire(now, name, version, expected, next, runs) < 0) {
                return Reply.ZERO;
              }
              tx.log(
                  QueueCodec.OP_FIRE,
                  QueueCodec.fireOp(
                      now, name, version, new SchedulePlan.Fire(expected, runs, next)));
              if (n > 0) {
                call.engine().waits().wake(call.arg(1), null);
              }
              return Reply.integer(1);
            });
  }

  private static long number(Call call, int i) {
    Long v = Parse.longOrNull(call.arg(i));
    if (v == null) {
      throw CommandException.err("QUEUE.FIRE takes integers after the name");
    }
    return v;
  }

  /** The QUEUE.FIRE words for a plan: what a cluster node asks its log for. */
  static byte[][] fireWords(byte[] key, Schedule s, SchedulePlan.Fire f) {
    List<byte[]> w = new ArrayList<>();
    w.add("QUEUE.FIRE".getBytes(StandardCharsets.US_ASCII));
    w.add(key);
    w.add(s.def.name());
    for (long v : new long[] {s.version, f.expected(), f.next()}) {
      w.add(Long.toString(v).getBytes(StandardCharsets.US_ASCII));
    }
    for (long t : f.runs()) {
      w.add(Long.toString(t).getBytes(StandardCharsets.US_ASCII));
    }
    return w.toArray(byte[][]::new);
  }
}
