package io.idem.server.commands.bloom;

import io.idem.core.filter.ScalableBloomFilter;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * BF.RESERVE key error_rate capacity [EXPANSION expansion] [NONSCALING] — creates an empty filter.
 * Checks run in RedisBloom's order, so the first error is the one RedisBloom gives; arguments
 * RedisBloom would silently ignore are a syntax error here.
 */
public final class BfReserveCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    int argc = call.argc();
    double rate = BloomArgs.parseDouble(call.arg(2), BloomErrors.BAD_ERROR_RATE);
    if (!(rate > 0 && rate < 1)) {
      throw new CommandException(BloomErrors.ERROR_RATE_RANGE);
    }
    long capacity = BloomArgs.parseLong(call.arg(3), BloomErrors.BAD_CAPACITY);
    if (capacity < 1) {
      throw new CommandException(BloomErrors.CAPACITY_AT_LEAST_ONE);
    }
    if (capacity > Blooms.MAX_CAPACITY) {
      throw new CommandException(BloomErrors.CAPACITY_AT_MOST);
    }
    int nonScalingAt = indexOf(call, "NONSCALING");
    boolean scaling = nonScalingAt < 0;
    int expansionAt = indexOf(call, "EXPANSION");
    if (expansionAt == argc - 1) {
      throw new CommandException(BloomErrors.NO_EXPANSION);
    }
    long expansion = Blooms.DEFAULT_EXPANSION;
    if (expansionAt >= 0) {
      // RedisBloom's order: the conflict first, then the value.
      if (!scaling) {
        throw new CommandException(BloomErrors.NONSCALING_CANNOT_EXPAND);
      }
      expansion = BloomArgs.parseLong(call.arg(expansionAt + 1), BloomErrors.BAD_EXPANSION);
      if (expansion < 1) {
        throw new CommandException(BloomErrors.EXPANSION_AT_LEAST_ONE);
      }
      if (expansion > ScalableBloomFilter.MAX_EXPANSION) {
        throw new CommandException(BloomErrors.EXPANSION_AT_MOST);
      }
    }
    for (int i = 4; i < argc; i++) {
      if (i != nonScalingAt && i != expansionAt && i != expansionAt + 1) {
        throw new CommandException(Errors.SYNTAX);
      }
    }
    Blooms.Params p = new Blooms.Params(capacity, rate, scaling ? (int) expansion : 0, scaling);
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              if (tx.entry() != null) {
                Blooms.bloom(tx.entry()); // WRONGTYPE first, as RedisBloom
                throw new CommandException(BloomErrors.ITEM_EXISTS);
              }
              Blooms.create(tx, call, p);
              return Reply.OK;
            });
  }

  /** The first option argument equal to the keyword, or -1. */
  private static int indexOf(Call call, String keyword) {
    for (int i = 4; i < call.argc(); i++) {
      if (call.is(i, keyword)) {
        return i;
      }
    }
    return -1;
  }
}
