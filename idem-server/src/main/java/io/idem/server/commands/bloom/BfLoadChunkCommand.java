package io.idem.server.commands.bloom;

import io.idem.core.filter.ScalableBloomFilter;
import io.idem.server.command.Call;
import io.idem.server.command.CommandException;
import io.idem.server.command.Handler;
import io.idem.server.reply.Reply;
import java.io.IOException;

/**
 * BF.LOADCHUNK key iterator data — takes back what BF.SCANDUMP gave: the header (iterator 1, on a
 * free key) creates the filter with its bits clear, each chunk then ORs its bits in. Everything is
 * checked before anything changes; the only allocation sized by the input is the filter the
 * validated header declares, and only if that memory can be had.
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
              ScalableBloomFilter f = Blooms.filter(tx.entry());
              if (f == null) {
                if (iter != 1) {
                  throw new CommandException(BloomErrors.NOT_FOUND);
                }
                BloomDump.Header h;
                try {
                  h = BloomDump.parseHeader(data);
                } catch (IOException e) {
                  throw badData(e);
                }
                if (!Blooms.memoryFits(call.engine(), h.bytes())) {
                  throw new CommandException(BloomErrors.NO_MEMORY);
                }
                try {
                  tx.create(BloomCodec.INSTANCE, BloomDump.build(h), data);
                } catch (OutOfMemoryError e) {
                  throw new CommandException(BloomErrors.NO_MEMORY); // nothing was created
                }
                return Reply.OK;
              }
              try {
                BloomDump.load(f, iter, data, BloomDump.MAX_CHUNK_WORDS);
              } catch (IOException e) {
                throw badData(e);
              }
              tx.log(BloomCodec.OP_LOAD_CHUNK, BloomCodec.loadChunkPayload(iter, data));
              return Reply.OK;
            });
  }

  private static CommandException badData(IOException e) {
    return new CommandException(BloomErrors.BAD_DATA + ": " + e.getMessage());
  }
}
