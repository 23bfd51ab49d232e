package io.idem.server.commands.cuckoo;

import io.idem.core.filter.CuckooFilter;
import io.idem.core.filter.RedisBloomCuckoo;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.io.IOException;

/**
 * CF.SCANDUMP key iterator — [next iterator, bytes]: the header for iterator 0, then chunks of at
 * most 16 MiB of one sub-table, then [0, nil]. A filter with no items dumps nothing: [0, nil] at
 * once, as RedisBloom. Each call copies one chunk, never the whole filter.
 */
public final class CfScanDumpCommand implements Handler {

  private static final Reply END = Reply.array(Reply.ZERO, Reply.NULL);

  @Override
  public Reply handle(Call call) {
    long iter = CuckooArgs.parseLong(call.arg(2), CuckooErrors.INVALID_POSITION);
    if (iter < 0) {
      throw new CommandException(CuckooErrors.INVALID_POSITION);
    }
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              RedisBloomCuckoo moved = RedisCuckoos.of(e);
              if (moved != null) {
                return RedisCuckoos.scandump(moved, iter);
              }
              CuckooFilter f = Cuckoos.own(e);
              if (f == null) {
                throw new CommandException(CuckooErrors.NOT_FOUND);
              }
              if (f.itemCount() == 0) {
                return END;
              }
              if (iter == 0) {
                return Reply.array(Reply.ONE, Reply.bulk(CuckooDump.header(f)));
              }
              CuckooDump.Chunk c;
              try {
                c = CuckooDump.chunk(f, iter, CuckooDump.MAX_CHUNK_WORDS);
              } catch (IOException ex) {
                throw new CommandException(
                    CuckooErrors.because(CuckooErrors.INVALID_POSITION, ex.getMessage()));
              }
              return c == null ? END : Reply.array(Reply.integer(c.next()), Reply.bulk(c.bytes()));
            });
  }
}
