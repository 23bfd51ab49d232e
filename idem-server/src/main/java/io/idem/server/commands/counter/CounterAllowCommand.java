package io.idem.server.commands.counter;

import io.idem.core.window.WindowedCounters;
import io.idem.server.commands.window.Windows;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.dispatch.Parse;
import io.idem.server.engine.Rows;
import io.idem.server.reply.Reply;
import java.io.IOException;

/**
 * COUNTER.ALLOW key time name limit window [COST n] — a sliding-window rate limit over a counter
 * table: if the name's count in the window ending at {@code time} ({@code *}: the server's clock),
 * plus {@code cost} (default 1), is at most {@code limit}, counts the cost at {@code time} (as
 * COUNTER.INCRBY) and allows it; otherwise changes nothing. Replies [allowed 1 or 0, remaining,
 * reset ms]: reset is when the window next lets more through (allowed: when its oldest counted
 * bucket leaves it; refused: when enough have left for the cost to fit, -1 if it never can). Exact
 * counts, and the same table answers COUNTER.QUERY: a limiter's counts are the data's counts. A
 * free key becomes a table with the default resolutions.
 */
public final class CounterAllowCommand implements Handler {

  /** The most buckets a window reads: each is one sum of one read. */
  static final int MAX_BUCKETS = 10_000;

  @Override
  public Reply handle(Call call) {
    byte[] name = Windows.name(call, 3);
    Long limit = Parse.longOrNull(call.arg(4));
    if (limit == null || limit < 0) {
      throw CommandException.err("a limit is a non-negative integer");
    }
    long window = Windows.window(call.arg(5));
    long cost = 1;
    if (call.argc() == 8 && call.is(6, "COST")) {
      Long c = Parse.longOrNull(call.arg(7));
      if (c == null || c < 1) {
        throw CommandException.err("COST is a positive integer");
      }
      cost = c;
    } else if (call.argc() != 6) {
      throw new CommandException(io.idem.server.dispatch.Errors.SYNTAX);
    }
    long wanted = cost;
    Rows rows = call.engine().rows();
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              long now = call.engine().now();
              long time = Windows.time(call, 2, now);
              boolean create = tx.entry() == null;
              WindowedCounters table = Counters.tableToWrite(tx, now);
              Windows.checkTime(table, time, now);
              int r = table.resolve(window, time, now);
              if (r < 0) {
                throw CommandException.err(
                    "no resolution of the table divides a window of "
                        + Windows.show(window)
                        + " and keeps it to that time");
              }
              long bucket = table.resolutions().get(r).bucketMillis();
              if (window / bucket > MAX_BUCKETS) {
                throw CommandException.err(
                    "a window is at most " + MAX_BUCKETS + " of its resolution's buckets");
              }
              int n = (int) (window / bucket);
              // The last k buckets' sums for k = 1..n, in one read: each bucket is a difference.
              long[] suffixes = new long[n];
              int[] resolution = new int[n];
              for (int k = 0; k < n; k++) {
                suffixes[k] = (k + 1) * bucket;
                resolution[k] = r;
              }
              long id = create ? -1 : tx.entry().id();
              long[] sums;
              try {
                sums =
                    create
                        ? new long[n]
                        : table.sums(Windows.rowSource(rows, id), name, suffixes, resolution, time);
              } catch (ArithmeticException e) {
                throw new CommandException(Counters.SUM_OVERFLOW);
              } catch (IOException e) {
                throw new CommandException(Counters.CORRUPT);
              }
              long total = sums[n - 1];
              long current = Math.floorDiv(time, bucket);
              boolean allowed = total <= limit - wanted;
              long reset;
              if (allowed) {
                Counters.count(
                    tx, rows, table, now, time, new byte[][] {name}, new long[] {wanted});
                // The oldest bucket that counts anything now (the current one, at least).
                int oldest = 0;
                for (int m = n - 1; m >= 1; m--) {
                  if (sums[m] != sums[m - 1]) {
                    oldest = m;
                    break;
                  }
                }
                reset = (current - oldest + n) * bucket - time;
              } else {
                reset = -1;
                long left = total;
                for (int m = n - 1; m >= 0; m--) {
                  left -= sums[m] - (m == 0 ? 0 : sums[m - 1]); // bucket current - m leaves
                  if (left <= limit - wanted) {
                    reset = (current - m + n) * bucket - time;
                    break;
                  }
                }
              }
              long remaining = Math.max(0, limit - total - (allowed ? wanted : 0));
              return Reply.array(
                  Reply.integer(allowed ? 1 : 0), Reply.integer(remaining), Reply.integer(reset));
            });
  }
}
