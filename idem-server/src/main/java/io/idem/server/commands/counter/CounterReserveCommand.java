package io.idem.server.commands.counter;

import io.idem.core.window.Resolution;
import io.idem.core.window.WindowedCounters;
import io.idem.server.command.Call;
import io.idem.server.command.CommandException;
import io.idem.server.command.Errors;
import io.idem.server.command.Handler;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * COUNTER.RESERVE key [RESOLUTION bucket retention ...] — creates an empty counter table that
 * counts in buckets of each resolution and keeps each bucket for its retention. Without RESOLUTION:
 * minute buckets kept 2 hours and hour buckets kept 8 days.
 */
public final class CounterReserveCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    List<Resolution> resolutions = new ArrayList<>();
    for (int i = 2; i < call.argc(); i += 3) {
      if (!call.is(i, "RESOLUTION") || i + 2 >= call.argc()) {
        throw new CommandException(Errors.SYNTAX);
      }
      if (resolutions.size() == WindowedCounters.MAX_RESOLUTIONS) {
        throw new CommandException(Counters.TOO_MANY_RESOLUTIONS);
      }
      long bucket = Counters.window(call.arg(i + 1));
      long retention = Counters.window(call.arg(i + 2));
      String bad = Resolution.problem(bucket, retention);
      if (bad != null) {
        throw new CommandException("ERR " + bad);
      }
      resolutions.add(new Resolution(bucket, retention));
    }
    if (resolutions.isEmpty()) {
      resolutions = new ArrayList<>(Counters.DEFAULT);
    }
    resolutions.sort(Comparator.comparingLong(Resolution::bucketMillis));
    for (int i = 1; i < resolutions.size(); i++) {
      if (resolutions.get(i).bucketMillis() == resolutions.get(i - 1).bucketMillis()) {
        throw new CommandException(Counters.SAME_BUCKET);
      }
    }
    List<Resolution> chosen = List.copyOf(resolutions);
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              if (tx.entry() != null) {
                Counters.tableOrNull(tx.entry()); // WRONGTYPE first
                throw new CommandException(Counters.EXISTS);
              }
              tx.create(
                  CounterCodec.INSTANCE,
                  Counters.newTable(chosen, call.engine().now()),
                  CounterCodec.recipe(chosen));
              return Reply.OK;
            });
  }
}
