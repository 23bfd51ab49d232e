package io.idem.server.commands.queue;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a schedule should fire at a time: its runs due, and its next due time after them. Computed
 * by the node that fires (the server alone, or a cluster's acting node, which writes them into a
 * QUEUE.FIRE record), never where a FIRE is applied: replays and replicas take the times as given,
 * so they need neither this node's clock nor its time zone rules. Cron expressions are Unix's five
 * fields, evaluated by cron-utils in the schedule's time zone.
 */
final class SchedulePlan {

  /** A FIRE: the due time it expects the schedule at, the runs, and the next due time. */
  record Fire(long expected, long[] runs, long next) {}

  private static final CronParser UNIX =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));

  private SchedulePlan() {}

  /** A parsed cron expression, or an IllegalArgumentException saying what is wrong with it. */
  static ExecutionTime cron(String expression) {
    try {
      var cron = UNIX.parse(expression);
      cron.validate();
      return ExecutionTime.forCron(cron);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "a cron expression is five fields (minute hour day-of-month month day-of-week): "
              + e.getMessage(),
          e);
    }
  }

  /** The first time after {@code afterMillis} the expression matches in the zone, or DONE. */
  static long nextCron(ExecutionTime cron, ZoneId zone, long afterMillis) {
    ZonedDateTime from = ZonedDateTime.ofInstant(Instant.ofEpochMilli(afterMillis), zone);
    Optional<ZonedDateTime> next = cron.nextExecution(from);
    return next.map(t -> t.toInstant().toEpochMilli()).orElse(Schedule.DONE);
  }

  /** The last time at or before {@code atMillis} the expression matched, or -1. */
  static long lastCron(ExecutionTime cron, ZoneId zone, long atMillis) {
    ZonedDateTime from = ZonedDateTime.ofInstant(Instant.ofEpochMilli(atMillis + 1), zone);
    Optional<ZonedDateTime> last = cron.lastExecution(from);
    return last.map(t -> t.toInstant().toEpochMilli()).orElse(-1L);
  }

  /** How late a run may be and still be on time, for MISSED NONE: a second, or a tenth of it. */
  static long grace(Schedule s) {
    return s.def.kind() == Schedule.EVERY ? Math.min(1000, s.def.everyMillis() / 10) : 1000;
  }

  /** The FIRE due at {@code now}, or null if none is (not yet due, or done). */
  static @Nullable Fire plan(Schedule s, long now) {
    Schedule.Definition d = s.def;
    if (s.nextDue == Schedule.DONE) {
      return null;
    }
    ExecutionTime cron = d.kind() == Schedule.CRON ? cron(d.cron()) : null;
    ZoneId zone = d.kind() == Schedule.CRON ? ZoneId.of(d.zone()) : null;
    if (s.nextDue == Schedule.PENDING) {
      long from = Math.max(now, d.start() - 1);
      return new Fire(Schedule.PENDING, new long[0], bounded(d, nextCron(cron, zone, from)));
    }
    if (s.nextDue > now) {
      return null;
    }
    long left = d.limit() > 0 ? d.limit() - s.runs : Long.MAX_VALUE;
    List<Long> runs = new ArrayList<>();
    long next;
    if (d.missed() == Schedule.MISSED_ALL) {
      long t = s.nextDue;
      int cap = Math.min(d.missedMax(), (int) Math.min(left, Integer.MAX_VALUE));
      while (t <= now && (d.end() == 0 || t <= d.end()) && runs.size() < cap) {
        runs.add(t);
        t = cron == null ? t + d.everyMillis() : nextCron(cron, zone, t);
      }
      next = t;
    } else {
      long latest;
      if (cron == null) {
        long k = (now - s.nextDue) / d.everyMillis();
        latest = s.nextDue + k * d.everyMillis();
        next = latest + d.everyMillis();
      } else {
        latest = Math.max(s.nextDue, lastCron(cron, zone, now));
        next = nextCron(cron, zone, now);
      }
      if (d.end() > 0 && latest > d.end()) {
        latest = -1; // past its end: no more runs
      }
      boolean onTime = latest >= 0 && now - latest <= grace(s);
      if (latest >= 0 && left > 0 && (d.missed() == Schedule.MISSED_ONE || onTime)) {
        runs.add(latest);
      }
    }
    long[] times = runs.stream().mapToLong(Long::longValue).toArray();
    if (left - times.length <= 0) {
      next = Schedule.DONE;
    }
    return new Fire(s.nextDue, times, bounded(d, next));
  }

  private static long bounded(Schedule.Definition d, long next) {
    return d.end() > 0 && next > d.end() ? Schedule.DONE : next;
  }
}
