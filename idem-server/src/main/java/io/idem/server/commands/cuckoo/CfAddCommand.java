package io.idem.server.commands.cuckoo;

import io.idem.core.filter.CuckooFilter;
import io.idem.core.filter.RedisBloomCuckoo;
import io.idem.core.hash.Hash128;
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
    Hash128 h = new Hash128().hash(call.arg(2));
    long h1 = h.h1();
    long h2 = h.h2();
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              RedisBloomCuckoo moved = RedisCuckoos.of(tx.entry());
              if (moved != null) {
                return RedisCuckoos.add(call, tx, moved, nx);
              }
              CuckooFilter f = Cuckoos.forInsert(tx, call.engine(), true, Cuckoos.DEFAULT_CAPACITY);
              return switch (Cuckoos.insert(call.engine(), f, h1, h2, nx)) {
                case INSERTED -> {
                  tx.log(
                      nx ? CuckooCodec.OP_ADD_NX : CuckooCodec.OP_ADD,
                      CuckooCodec.pairs(new long[] {h1, h2}, 2));
                  yield Cuckoos.bool(call, true);
                }
                case EXISTS -> Cuckoos.bool(call, false);
                case FULL -> throw new CommandException(CuckooErrors.FULL);
                case NO_MEMORY -> throw new CommandException(CuckooErrors.NO_MEMORY);
              };
            });
  }
}
