package io.idem.server.commands.cuckoo;

import io.idem.core.filter.CuckooFilter;
import io.idem.core.filter.RedisBloomCuckoo;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.io.IOException;

/**
 * CF.LOADCHUNK key iterator data — takes back what CF.SCANDUMP gave: the header (iterator 1, on a
 * free key) creates the filter empty, each chunk then writes its words. Everything is checked
 * before anything changes; the only allocation sized by the input is the filter the validated
 * header declares, and only if that memory can be had.
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
              RedisBloomCuckoo moved = RedisCuckoos.of(tx.entry());
              if (moved != null && iter != 1) {
                return RedisCuckoos.loadChunk(tx, moved, iter, data);
              }
              CuckooFilter f = moved == null ? Cuckoos.own(tx.entry()) : null;
              if (iter == 1) {
                if (f != null || moved != null) {
                  throw new CommandException(CuckooErrors.ITEM_EXISTS);
                }
                if (data.length == RedisBloomCuckoo.HEADER_LENGTH) {
                  return RedisCuckoos.create(call, tx, data); // RedisBloom's header
                }
                if (data.length != CuckooDump.HEADER_BYTES) {
                  throw new CommandException(CuckooErrors.INVALID_HEADER);
                }
                CuckooDump.Header h;
                try {
                  h = CuckooDump.parseHeader(data);
                } catch (IOException e) {
                  throw cannotCreate(e.getMessage());
                }
                long bytes = h.shape().bytes();
                if (!Cuckoos.memoryFits(call.engine(), bytes)) {
                  throw cannotCreate("no memory for its " + bytes + " bytes");
                }
                try {
                  tx.create(CuckooCodec.INSTANCE, CuckooDump.build(h), data);
                } catch (OutOfMemoryError e) {
                  throw cannotCreate("no memory for its " + bytes + " bytes"); // nothing created
                }
                return Reply.OK;
              }
              if (f == null) {
                throw new CommandException(CuckooErrors.NOT_FOUND);
              }
              try {
                CuckooDump.load(f, iter, data, CuckooDump.MAX_CHUNK_WORDS);
              } catch (IOException e) {
                throw new CommandException(
                    CuckooErrors.because(CuckooErrors.CANNOT_LOAD, e.getMessage()));
              }
              tx.log(CuckooCodec.OP_LOAD_CHUNK, CuckooCodec.loadChunkPayload(iter, data));
              return Reply.OK;
            });
  }

  private static CommandException cannotCreate(String reason) {
    return new CommandException(CuckooErrors.because(CuckooErrors.CANNOT_CREATE, reason));
  }
}
