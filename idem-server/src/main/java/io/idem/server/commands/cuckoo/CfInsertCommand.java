package io.idem.server.commands.cuckoo;

import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * CF.INSERT key [CAPACITY c] [NOCREATE] ITEMS item [item ...] — adds one more copy of each item: an
 * array of 1 per item, or -1 (RESP3: false) for an item that did not fit. Creates the filter with
 * capacity c (default 1024) if the key is free, unless NOCREATE.
 */
public final class CfInsertCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return insert(call, false);
  }

  /**
   * CF.INSERT and CF.INSERTNX. Options until ITEMS, repeatable (the last CAPACITY counts), as
   * RedisBloom parses them; unlike RedisBloom, which reads only an option's first letter, the whole
   * word must match.
   */
  static Reply insert(Call call, boolean nx) {
    String name = nx ? "cf.insertnx" : "cf.insert";
    int argc = call.argc();
    long capacity = Cuckoos.DEFAULT_CAPACITY;
    boolean create = true;
    int items = -1;
    for (int i = 2; i < argc && items < 0; ) {
      if (call.is(i, "CAPACITY")) {
        if (i + 1 == argc) {
          throw new CommandException(Errors.wrongArity(name));
        }
        capacity = CuckooArgs.parseLong(call.arg(i + 1), CuckooErrors.BAD_CAPACITY);
        if (capacity < 2L * Cuckoos.DEFAULT_BUCKET_SIZE) {
          throw new CommandException(CuckooErrors.CAPACITY_AT_LEAST);
        }
        if (capacity > Cuckoos.MAX_CAPACITY) {
          throw new CommandException(CuckooErrors.CAPACITY_AT_MOST);
        }
        i += 2;
      } else if (call.is(i, "NOCREATE")) {
        create = false;
        i++;
      } else if (call.is(i, "ITEMS")) {
        items = i + 1;
      } else {
        throw new CommandException(CuckooErrors.UNKNOWN_ARGUMENT);
      }
    }
    if (items < 0 || items == argc) {
      throw new CommandException(Errors.wrongArity(name));
    }
    int first = items;
    boolean mayCreate = create;
    long capacityIfNew = capacity;
    return call.engine()
        .write(
            call.arg(1),
            tx ->
                Reply.array(
                    Cuckoos.insertAll(
                        call,
                        tx,
                        Cuckoos.forInsert(tx, call.engine(), mayCreate, capacityIfNew),
                        first,
                        nx)));
  }
}
