package io.idem.server.commands.cuckoo;

import io.idem.core.filter.ScalableCuckoo;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * CF.ADD key item — adds one more copy of the item, present or not: 1. Creates the filter with the
 * defaults (capacity 1024) if the key is free.
 */
public final class CfAddCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return add(call, false);
  }

  /** CF.ADD and CF.ADDNX: a full filter is an error reply, as RedisBloom's single-item adds. */
  static Reply add(Call call, boolean nx) {
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              ScalableCuckoo f =
                  Cuckoos.forInsert(tx, call.engine(), true, Cuckoos.DEFAULT_CAPACITY);
              long[] pair = new long[2];
              f.hash(call.arg(2), pair);
              return switch (Cuckoos.insert(call.engine(), f, pair[0], pair[1], nx)) {
                case INSERTED -> {
                  tx.log(
                      nx ? CuckooCodec.OP_ADD_NX : CuckooCodec.OP_ADD, Cuckoos.payload(f, pair, 2));
                  yield Cuckoos.bool(call, true);
                }
                case EXISTS -> Cuckoos.bool(call, false);
                case FULL -> throw new CommandException(CuckooErrors.FULL);
                case NO_MEMORY -> throw new CommandException(CuckooErrors.NO_MEMORY);
              };
            });
  }
}
