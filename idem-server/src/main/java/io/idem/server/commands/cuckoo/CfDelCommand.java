package io.idem.server.commands.cuckoo;

import io.idem.core.filter.ScalableCuckoo;
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
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              ScalableCuckoo f = Cuckoos.filter(tx.entry());
              if (f == null) {
                throw new CommandException(CuckooErrors.DEL_NOT_FOUND);
              }
              long[] pair = new long[2];
              f.hash(call.arg(2), pair);
              boolean deleted = f.delete(pair[0], pair[1]);
              if (deleted) {
                tx.log(CuckooCodec.OP_DEL, Cuckoos.payload(f, pair, 2));
              }
              return Cuckoos.bool(call, deleted);
            });
  }
}
