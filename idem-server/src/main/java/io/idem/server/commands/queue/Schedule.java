package io.idem.server.commands.queue;

import io.idem.server.commands.queue.JobQueue.Backoff;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * A repeatable job of a queue: what it adds (a template), when (every so long, or by a cron
 * expression in a time zone), what it does about runs it missed, and where it stands. Each run is a
 * normal job whose id is the schedule's name, a colon and the run's time in ms, so a run added
 * twice is one job. The queue never reads a clock or a cron table for it: the times come in FIRE
 * operations, computed by whoever fires (see {@link SchedulePlan}).
 */
final class Schedule {

  static final byte EVERY = 1;
  static final byte CRON = 2;

  /**
   * What to do about runs missed while the server was down: the latest, all (up to a cap), none.
   */
  static final byte MISSED_ONE = 0;

  static final byte MISSED_ALL = 1;
  static final byte MISSED_NONE = 2;

  /** {@link #nextDue} of a cron schedule not armed yet: its first FIRE computes the first time. */
  static final long PENDING = -1;

  /** {@link #nextDue} of a schedule past its END or LIMIT: it fires no more. */
  static final long DONE = Long.MAX_VALUE;

  static final int MAX_NAME_BYTES = 256;
  static final int MAX_MISSED = 1000;

  /** The definition: what QUEUE.SCHEDULE said, kept as given. */
  record Definition(
      byte[] name,
      byte kind,
      long everyMillis,
      boolean align,
      @Nullable String cron,
      @Nullable String zone,
      byte[] payload,
      int priority,
      int attempts,
      Backoff backoff,
      long uniqueMillis,
      byte @Nullable [] group,
      byte missed,
      int missedMax,
      long start,
      long end,
      long limit) {

    String nameText() {
      return new String(name, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Definition d
          && Arrays.equals(name, d.name)
          && kind == d.kind
          && everyMillis == d.everyMillis
          && align == d.align
          && java.util.Objects.equals(cron, d.cron)
          && java.util.Objects.equals(zone, d.zone)
          && Arrays.equals(payload, d.payload)
          && priority == d.priority
          && attempts == d.attempts
          && backoff.equals(d.backoff)
          && uniqueMillis == d.uniqueMillis
          && Arrays.equals(group, d.group)
          && missed == d.missed
          && missedMax == d.missedMax
          && start == d.start
          && end == d.end
          && limit == d.limit;
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(name);
    }
  }

  final Definition def;

  /** The queue's count of definitions when this one was made: a FIRE names it. */
  final long version;

  long nextDue;
  long runs;
  long lastRun;

  Schedule(Definition def, long version, long nextDue) {
    this.def = def;
    this.version = version;
    this.nextDue = nextDue;
  }

  /** A run's job id: the name, a colon, the run's time in ms. */
  byte[] runId(long at) {
    byte[] t = (":" + at).getBytes(StandardCharsets.US_ASCII);
    byte[] id = Arrays.copyOf(def.name(), def.name().length + t.length);
    System.arraycopy(t, 0, id, def.name().length, t.length);
    return id;
  }

  /**
   * The first due time of an interval schedule made at {@code now}: START, or now, or with ALIGN
   * the first multiple of the interval since the epoch at or after either.
   */
  static long firstDue(Definition d, long now) {
    if (d.kind() != EVERY) {
      return PENDING;
    }
    long from = d.start() > 0 ? d.start() : now;
    long first =
        d.align()
            ? Math.floorDiv(from + d.everyMillis() - 1, d.everyMillis()) * d.everyMillis()
            : from;
    return d.end() > 0 && first > d.end() ? DONE : first;
  }
}
