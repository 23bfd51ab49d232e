package io.idem.server.commands.cuckoo;

import io.idem.core.filter.ScalableCuckoo;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * CF.COMPACT key — moves fingerprints from newer sub-tables into free slots of older ones, drops
 * the newest sub-tables that empty, and resets the delete count: OK.
 */
public final class CfCompactCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              ScalableCuckoo f = Cuckoos.filter(tx.entry());
              if (f == null) {
                throw new CommandException(CuckooErrors.COMPACT_NOT_FOUND);
              }
              if (f.compact()) {
                tx.log(CuckooCodec.OP_COMPACT, new byte[0]);
              }
              return Reply.OK;
            });
  }
}
