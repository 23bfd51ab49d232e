package io.idem.server.commands.bloom;

import io.idem.core.filter.BadDumpException;
import io.idem.core.filter.ScalableBloom;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * BF.LOADCHUNK key iterator data — takes back what BF.SCANDUMP gave: the header (iterator 1, on a
 * free key) creates the filter with its bits clear, in the layout the header is from; each chunk
 * then writes its bits. Everything is checked before anything changes; the only allocation sized by
 * the input is the filter the validated header declares, and only if that memory can be had.
 */
public final class BfLoadChunkCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    long iter = BloomArgs.parseLong(call.arg(2), BloomErrors.LOADCHUNK_NOT_NUMERIC);
    byte[] data = call.arg(3);
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              ScalableBloom f = Blooms.bloom(tx.entry());
              if (f == null) {
                if (iter != 1) {
                  throw new CommandException(BloomErrors.NOT_FOUND);
                }
                Blooms.createFromHeader(tx, call.engine(), data);
                return Reply.OK;
              }
              try {
                f.loadChunk(iter, data);
              } catch (BadDumpException e) {
                throw new CommandException(BloomErrors.refusedDump(e));
              }
              tx.log(BloomCodec.OP_LOAD_CHUNK, BloomCodec.loadChunkPayload(iter, data));
              return Reply.OK;
            });
  }
}
