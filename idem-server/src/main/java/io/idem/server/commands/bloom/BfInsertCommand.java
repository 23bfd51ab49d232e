package io.idem.server.commands.bloom;

import io.idem.core.filter.ScalableBloomFilter;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * BF.INSERT key [CAPACITY capacity] [ERROR error] [EXPANSION expansion] [NOCREATE] [NONSCALING]
 * ITEMS item [item ...] — BF.MADD, creating the filter as configured if the key is free (options
 * are ignored for an existing filter). RedisBloom tells options apart by their first letters; Idem
 * wants the whole word.
 */
public final class BfInsertCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    int argc = call.argc();
    long capacity = Blooms.DEFAULT_CAPACITY;
    double rate = Blooms.DEFAULT_ERROR_RATE;
    long expansion = Blooms.DEFAULT_EXPANSION;
    boolean scaling = true;
    boolean create = true;
    int items = -1;
    int i = 2;
    while (i < argc && items < 0) {
      if (call.is(i, "ITEMS")) {
        items = ++i;
      } else if (call.is(i, "ERROR")) {
        rate = BloomArgs.parseDouble(value(call, ++i), BloomErrors.INSERT_BAD_ERROR_RATE);
        i++;
      } else if (call.is(i, "EXPANSION")) {
        expansion = BloomArgs.parseLong(value(call, ++i), BloomErrors.INSERT_BAD_EXPANSION);
        if (expansion > ScalableBloomFilter.MAX_EXPANSION) {
          throw new CommandException(BloomErrors.INSERT_BAD_EXPANSION);
        }
        i++;
      } else if (call.is(i, "CAPACITY")) {
        capacity = BloomArgs.parseLong(value(call, ++i), BloomErrors.INSERT_BAD_CAPACITY);
        if (capacity > Blooms.MAX_CAPACITY) {
          throw new CommandException(BloomErrors.INSERT_BAD_CAPACITY);
        }
        i++;
      } else if (call.is(i, "NOCREATE")) {
        create = false;
        i++;
      } else if (call.is(i, "NONSCALING")) {
        scaling = false;
        i++;
      } else {
        throw new CommandException(BloomErrors.UNKNOWN_ARGUMENT);
      }
    }
    if (items < 0 || items == argc) {
      throw new CommandException(Errors.wrongArity("bf.insert"));
    }
    // Ranges once every option is read, in one text, as RedisBloom checks them.
    if (!(rate > 0 && rate < 1) || capacity < 1 || expansion < 1) {
      throw new CommandException(BloomErrors.INSERT_BAD_ARGUMENT);
    }
    int first = items;
    boolean mayCreate = create;
    Blooms.Params p = new Blooms.Params(capacity, rate, scaling ? (int) expansion : 0, scaling);
    return call.engine()
        .write(
            call.arg(1), tx -> Reply.array(Blooms.addToKey(call, tx, mayCreate ? p : null, first)));
  }

  /** The option's value at {@code i}: a missing one is an arity error, as in RedisBloom. */
  private static byte[] value(Call call, int i) {
    if (i == call.argc()) {
      throw new CommandException(Errors.wrongArity("bf.insert"));
    }
    return call.arg(i);
  }
}
