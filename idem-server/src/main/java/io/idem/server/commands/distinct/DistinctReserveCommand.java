package io.idem.server.commands.distinct;

import io.idem.core.window.Resolution;
import io.idem.core.window.WindowedDistinct;
import io.idem.server.commands.window.Windows;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.dispatch.Parse;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;

/**
 * DISTINCT.RESERVE key [PRECISION p] [RESOLUTION bucket retention ...] — creates an empty distinct
 * table: a HyperLogLog of 2^p registers per name and bucket of each resolution, each bucket kept
 * for its retention. Without RESOLUTION: minute buckets kept 2 hours and hour buckets kept 8 days;
 * p is 14 unless given.
 */
public final class DistinctReserveCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    int precision = Distincts.DEFAULT_PRECISION;
    List<Resolution> given = new ArrayList<>();
    for (int i = 2; i < call.argc(); ) {
      if (call.is(i, "PRECISION") && i + 1 < call.argc()) {
        Long p = Parse.longOrNull(call.arg(i + 1));
        if (p == null || p < Distincts.MIN_PRECISION || p > Distincts.MAX_PRECISION) {
          throw new CommandException(Distincts.BAD_PRECISION);
        }
        precision = p.intValue();
        i += 2;
        continue;
      }
      i = Windows.resolution(call, i, given);
      String bad = WindowedDistinct.problem(given.getLast());
      if (bad != null) {
        throw new CommandException("ERR " + bad);
      }
    }
    List<Resolution> chosen = Windows.chosen(given);
    int p = precision;
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              if (tx.entry() != null) {
                Distincts.tableOrNull(tx.entry()); // WRONGTYPE first
                throw new CommandException(Windows.EXISTS);
              }
              tx.create(
                  DistinctCodec.INSTANCE,
                  Distincts.newTable(p, chosen, call.engine().now()),
                  DistinctCodec.recipe(p, chosen));
              return Reply.OK;
            });
  }
}
