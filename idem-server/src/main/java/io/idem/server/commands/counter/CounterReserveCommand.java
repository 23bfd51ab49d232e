package io.idem.server.commands.counter;

import io.idem.core.window.Resolution;
import io.idem.server.commands.window.Windows;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;

/**
 * COUNTER.RESERVE key [RESOLUTION bucket retention ...] — creates an empty counter table that
 * counts in buckets of each resolution and keeps each bucket for its retention. Without RESOLUTION:
 * minute buckets kept 2 hours and hour buckets kept 8 days.
 */
public final class CounterReserveCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    List<Resolution> given = new ArrayList<>();
    for (int i = 2; i < call.argc(); ) {
      i = Windows.resolution(call, i, given);
    }
    List<Resolution> chosen = Windows.chosen(given);
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              if (tx.entry() != null) {
                Counters.tableOrNull(tx.entry()); // WRONGTYPE first
                throw new CommandException(Windows.EXISTS);
              }
              tx.create(
                  CounterCodec.INSTANCE,
                  Counters.newTable(chosen, call.engine().now()),
                  CounterCodec.recipe(chosen));
              return Reply.OK;
            });
  }
}
