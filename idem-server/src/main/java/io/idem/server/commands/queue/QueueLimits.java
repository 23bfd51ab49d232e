package io.idem.server.commands.queue;

import io.idem.core.rate.Gcra;
import io.idem.server.commands.queue.QueueCodec.Op;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Parse;
import io.idem.server.engine.Entry;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A queue's limits and groups: QUEUE.CONFIG (the queue's rate and concurrency, and the default
 * every group gets), QUEUE.GROUP (one group's weight and limits) and QUEUE.GROUPS (docs/commands/
 * queue.md). Each change is logged with all the settings it leaves, so a replay sets them alike.
 */
final class QueueLimits {

  private QueueLimits() {}

  /** A rate as given: none (OFF), a group's default (DEFAULT), or a quota. */
  private record Rate(byte mode, Gcra.@Nullable Quota quota) {}

  /**
   * RATE count period [BURST n] | RATE OFF (| RATE DEFAULT, for a group) at word {@code i}; the
   * rate and the index of its last word.
   */
  private static Rate rate(Call call, int i, boolean group, int[] end) {
    if (i + 1 < call.argc() && call.is(i + 1, "OFF")) {
      end[0] = i + 1;
      return new Rate(group ? JobGroup.NONE : 0, null);
    }
    if (group && i + 1 < call.argc() && call.is(i + 1, "DEFAULT")) {
      end[0] = i + 1;
      return new Rate(JobGroup.INHERIT, null);
    }
    if (i + 2 >= call.argc()) {
      throw new CommandException(Errors.SYNTAX);
    }
    Long count = Parse.longOrNull(call.arg(i + 1));
    Long period = Parse.durationMillisOrNull(call.arg(i + 2));
    if (count == null || count < 1) {
      throw CommandException.err("a rate's count is a positive integer");
    }
    if (period == null || period < 1000 || period % 1000 != 0) {
      throw CommandException.err("a rate's period is a whole number of seconds (1s, 1m, 1h, 1d)");
    }
    long burst = 0;
    end[0] = i + 2;
    if (i + 4 < call.argc() && call.is(i + 3, "BURST")) {
      Long b = Parse.longOrNull(call.arg(i + 4));
      if (b == null || b < 0) {
        throw CommandException.err("BURST is a non-negative integer");
      }
      burst = b;
      end[0] = i + 4;
    }
    try {
      return new Rate((byte) 1, new Gcra.Quota(burst, count, period / 1000));
    } catch (IllegalArgumentException e) {
      throw CommandException.err("a rate " + e.getMessage());
    }
  }

  /** CONCURRENCY n | CONCURRENCY OFF (| DEFAULT, for a group, as -1) at word {@code i}. */
  private static int concurrency(Call call, int i, boolean group) {
    if (call.is(i, "OFF")) {
      return 0;
    }
    if (group && call.is(i, "DEFAULT")) {
      return -1;
    }
    Long n = Parse.longOrNull(call.arg(i));
    if (n == null || n < 1 || n > QueueHandlers.MAX_CONCURRENCY) {
      throw CommandException.err(
          "a concurrency is an integer from 1 to " + QueueHandlers.MAX_CONCURRENCY + ", or OFF");
    }
    return n.intValue();
  }

  /**
   * QUEUE.CONFIG key [RATE count period [BURST n] | RATE OFF] [CONCURRENCY n | CONCURRENCY OFF]
   * [GROUP-RATE count period [BURST n] | GROUP-RATE OFF] [GROUP-CONCURRENCY n | GROUP-CONCURRENCY
   * OFF] [RESULTS duration | RESULTS OFF] [EVENTS n | EVENTS OFF]: sets the queue's limits, how
   * long results are kept and how many events are (those not named stay), and answers them all;
   * with no option, answers them.
   */
  static Reply config(Call call) {
    Rate[] rates = {null, null};
    Integer[] concurrencies = {null, null};
    Long[] results = {null};
    Integer[] events = {null};
    int[] end = {0};
    for (int i = 2; i < call.argc(); i++) {
      if (call.is(i, "EVENTS") && i + 1 < call.argc()) {
        if (call.is(++i, "OFF")) {
          events[0] = 0;
        } else {
          Long n = Parse.longOrNull(call.arg(i));
          if (n == null || n < 1 || n > QueueCodec.MAX_EVENTS) {
            throw CommandException.err(
                "EVENTS is how many to keep, from 1 to " + QueueCodec.MAX_EVENTS + ", or OFF");
          }
          events[0] = n.intValue();
        }
      } else if (call.is(i, "RESULTS") && i + 1 < call.argc()) {
        if (call.is(++i, "OFF")) {
          results[0] = 0L;
        } else {
          Long ms = Parse.durationMillisOrNull(call.arg(i));
          if (ms == null || ms < 1000) {
            throw CommandException.err("RESULTS is a duration of a second or more, or OFF");
          }
          results[0] = ms;
        }
      } else if (call.is(i, "RATE") || call.is(i, "GROUP-RATE")) {
        rates[call.is(i, "RATE") ? 0 : 1] = rate(call, i, false, end);
        i = end[0];
      } else if ((call.is(i, "CONCURRENCY") || call.is(i, "GROUP-CONCURRENCY"))
          && i + 1 < call.argc()) {
        concurrencies[call.is(i, "CONCURRENCY") ? 0 : 1] = concurrency(call, ++i, false);
      } else {
        throw new CommandException(Errors.SYNTAX);
      }
    }
    boolean changes = call.argc() > 2;
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              JobQueue q =
                  changes
                      ? QueueHandlers.queueToAdd(tx)
                      : Entry.valueOrNull(tx.entry(), QueueCodec.INSTANCE);
              if (q == null) {
                throw new CommandException(QueueHandlers.NOT_FOUND);
              }
              if (results[0] != null && results[0] != q.resultMillis()) {
                long now = call.engine().now(); // once: the op carries what was applied
                q.configureResults(now, results[0]);
                tx.log(QueueCodec.OP_RESULTS, new Op().u64(now).u64(results[0]).done());
                tx.visitBy(now); // its slices leave in the background
              }
              if (events[0] != null && events[0] != q.eventCapacity()) {
                q.configureEvents(events[0]);
                tx.log(
                    QueueCodec.OP_EVENTS, new Op().u64(call.engine().now()).i32(events[0]).done());
              }
              boolean limits =
                  rates[0] != null
                      || rates[1] != null
                      || concurrencies[0] != null
                      || concurrencies[1] != null;
              if (limits) {
                Gcra.Quota rate = rates[0] != null ? rates[0].quota() : q.rate();
                Gcra.Quota groupRate = rates[1] != null ? rates[1].quota() : q.groupRate();
                int conc = concurrencies[0] != null ? concurrencies[0] : q.concurrency();
                int groupConc = concurrencies[1] != null ? concurrencies[1] : q.groupConcurrency();
                q.configure(rate, conc, groupRate, groupConc);
                tx.log(
                    QueueCodec.OP_CONFIG,
                    new Op()
                        .u64(call.engine().now())
                        .rate(rate == null ? 0 : 1, rate)
                        .i32(conc)
                        .rate(groupRate == null ? 0 : 1, groupRate)
                        .i32(groupConc)
                        .done());
                call.engine().waits().wake(call.arg(1), null); // looser limits may let one go
              }
              return Reply.map(
                  List.of(
                      Reply.bulk("rate"), rate(q.rate()),
                      Reply.bulk("concurrency"), Reply.integer(q.concurrency()),
                      Reply.bulk("group-rate"), rate(q.groupRate()),
                      Reply.bulk("group-concurrency"), Reply.integer(q.groupConcurrency()),
                      Reply.bulk("results"), Reply.integer(q.resultMillis()),
                      Reply.bulk("events"), Reply.integer(q.eventCapacity())));
            });
  }

  /** A rate as replies give it: [count, period in seconds, max burst], or nil for none. */
  private static Reply rate(Gcra.@Nullable Quota q) {
    return q == null
        ? Reply.NULL
        : Reply.array(
            Reply.integer(q.count()),
            Reply.integer(q.periodSeconds()),
            Reply.integer(q.maxBurst()));
  }

  /**
   * QUEUE.GROUP key name [WEIGHT w] [RATE count period [BURST n] | RATE OFF | RATE DEFAULT]
   * [CONCURRENCY n | CONCURRENCY OFF | CONCURRENCY DEFAULT] [RESET]: sets a group's settings (made
   * if new; RESET first takes them back to the defaults) and answers the group as QUEUE.GROUPS
   * does.
   */
  static Reply group(Call call) {
    byte[] name = QueueHandlers.groupName(call, 2);
    Integer weight = null;
    Rate rate = null;
    Integer conc = null;
    boolean reset = false;
    int[] end = {0};
    for (int i = 3; i < call.argc(); i++) {
      if (call.is(i, "WEIGHT") && i + 1 < call.argc()) {
        Long w = Parse.longOrNull(call.arg(++i));
        if (w == null || w < 1 || w > JobGroup.MAX_WEIGHT) {
          throw CommandException.err("WEIGHT is an integer from 1 to " + JobGroup.MAX_WEIGHT);
        }
        weight = w.intValue();
      } else if (call.is(i, "RATE")) {
        rate = rate(call, i, true, end);
        i = end[0];
      } else if (call.is(i, "CONCURRENCY") && i + 1 < call.argc()) {
        conc = concurrency(call, ++i, true);
      } else if (call.is(i, "RESET")) {
        reset = true;
      } else {
        throw new CommandException(Errors.SYNTAX);
      }
    }
    Integer w0 = weight;
    Rate r0 = rate;
    Integer c0 = conc;
    boolean reset0 = reset;
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              JobQueue q = QueueHandlers.queueToAdd(tx);
              long now = call.engine().now();
              JobGroup g = q.group(name);
              boolean fresh = g == null || reset0;
              int weightNow = w0 != null ? w0 : fresh ? 1 : g.weight;
              byte mode = r0 != null ? r0.mode() : fresh ? JobGroup.INHERIT : g.rateMode;
              Gcra.Quota quota = r0 != null ? r0.quota() : fresh ? null : g.rate;
              int concNow = c0 != null ? c0 : fresh ? -1 : g.concurrency;
              q.configureGroup(now, name, weightNow, mode, quota, concNow);
              tx.log(
                  QueueCodec.OP_GROUP,
                  new Op()
                      .u64(now)
                      .bytes(name)
                      .i32(weightNow)
                      .rate(mode, quota)
                      .i32(concNow)
                      .done());
              call.engine().waits().wake(call.arg(1), null);
              JobGroup after = q.group(name);
              return after == null ? Reply.NULL : describe(after);
            });
  }

  /**
   * QUEUE.GROUPS key [COUNT n]: the first n (default 100, at most 10,000) named groups in the order
   * they were made, each as QUEUE.GROUP answers.
   */
  static Reply groups(Call call) {
    int count = 100;
    if (call.argc() == 4 && call.is(2, "COUNT")) {
      Long c = Parse.longOrNull(call.arg(3));
      if (c == null || c < 1 || c > 10_000) {
        throw CommandException.err("COUNT is an integer from 1 to 10000");
      }
      count = c.intValue();
    } else if (call.argc() != 2) {
      throw new CommandException(Errors.SYNTAX);
    }
    int n = count;
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              JobQueue q = QueueHandlers.queue(e);
              List<Reply> out = new ArrayList<>();
              for (JobGroup g : q.groups()) {
                if (out.size() == n) {
                  break;
                }
                out.add(describe(g));
              }
              return Reply.array(out);
            });
  }

  /** A group: name, weight, paused, rate (its own; "default" or nil), concurrency, counts. */
  private static Reply describe(JobGroup g) {
    Reply rate =
        switch (g.rateMode) {
          case JobGroup.OWN -> rate(g.rate);
          case JobGroup.NONE -> Reply.NULL;
          default -> Reply.bulk("default");
        };
    Reply conc = g.concurrency < 0 ? Reply.bulk("default") : Reply.integer(g.concurrency);
    return Reply.map(
        List.of(
            Reply.bulk("name"), Reply.bulk(g.name),
            Reply.bulk("weight"), Reply.integer(g.weight),
            Reply.bulk("paused"), Reply.integer(g.paused ? 1 : 0),
            Reply.bulk("rate"), rate,
            Reply.bulk("concurrency"), conc,
            Reply.bulk("ready"), Reply.integer(g.ready.size()),
            Reply.bulk("leased"), Reply.integer(g.leased),
            Reply.bulk("jobs"), Reply.integer(g.jobs)));
  }
}
