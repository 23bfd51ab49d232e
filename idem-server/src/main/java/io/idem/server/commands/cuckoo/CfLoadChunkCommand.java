package io.idem.server.commands.cuckoo;

import io.idem.core.filter.BadDumpException;
import io.idem.core.filter.ScalableCuckoo;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * CF.LOADCHUNK key iterator data — takes back what CF.SCANDUMP gave: the header (iterator 1, on a
 * free key) creates the filter empty, in the layout the header is from; each chunk then writes its
 * bytes. Everything is checked before anything changes; the only allocation sized by the input is
 * the filter the validated header declares, and only if that memory can be had.
 */
public final class CfLoadChunkCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    long iter = CuckooArgs.parseLong(call.arg(2), CuckooErrors.INVALID_POSITION);
    if (iter == 0) {
      throw new CommandException(CuckooErrors.INVALID_POSITION);
    }
    byte[] data = call.arg(3);
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              ScalableCuckoo f = Cuckoos.filter(tx.entry());
              if (iter == 1) {
                if (f != null) {
                  throw new CommandException(CuckooErrors.ITEM_EXISTS);
                }
                Cuckoos.createFromHeader(tx, call.engine(), data);
                return Reply.OK;
              }
              if (f == null) {
                throw new CommandException(CuckooErrors.NOT_FOUND);
              }
              try {
                f.loadChunk(iter, data);
              } catch (BadDumpException e) {
                throw new CommandException(CuckooErrors.refusedDump(e));
              }
              tx.log(CuckooCodec.OP_LOAD_CHUNK, CuckooCodec.loadChunkPayload(iter, data));
              return Reply.OK;
            });
  }
}
