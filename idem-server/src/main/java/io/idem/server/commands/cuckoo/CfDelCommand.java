package io.idem.server.commands.cuckoo;

import io.idem.core.filter.CuckooFilter;
import io.idem.core.filter.RedisBloomCuckoo;
import io.idem.core.hash.Hash128;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * CF.DEL key item — removes one copy of the item's fingerprint, newest sub-table first: 1 if one
 * was removed, 0 if none was stored. Delete only items you added: deleting another can remove a
 * look-alike's copy, a false negative for it. When the filter has grown and deletes pass a tenth of
 * its items, it compacts as RedisBloom does.
 */
public final class CfDelCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    Hash128 h = new Hash128().hash(call.arg(2));
    long h1 = h.h1();
    long h2 = h.h2();
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              RedisBloomCuckoo moved = RedisCuckoos.of(tx.entry());
              if (moved != null) {
                return RedisCuckoos.delete(call, tx, moved);
              }
              CuckooFilter f = Cuckoos.filter(tx.entry());
              if (f == null) {
                throw new CommandException(CuckooErrors.DEL_NOT_FOUND);
              }
              boolean deleted = CuckooCodec.delete(f, h1, h2);
              if (deleted) {
                tx.log(CuckooCodec.OP_DEL, CuckooCodec.pairs(new long[] {h1, h2}, 2));
              }
              return Cuckoos.bool(call, deleted);
            });
  }
}
