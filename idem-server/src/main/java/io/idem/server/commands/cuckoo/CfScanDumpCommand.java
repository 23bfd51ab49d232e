package io.idem.server.commands.cuckoo;

import io.idem.core.filter.BadDumpException;
import io.idem.core.filter.DumpChunk;
import io.idem.core.filter.ScalableCuckoo;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * CF.SCANDUMP key iterator — [next iterator, bytes]: the header for iterator 0, then chunks of at
 * most 16 MiB of one sub-table, then [0, nil]. A filter with no items dumps nothing: [0, nil] at
 * once, as RedisBloom. Each call copies one chunk, never the whole filter. The bytes are the
 * layout's own: a filter moved in from RedisBloom dumps in RedisBloom's, which RedisBloom loads.
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
              ScalableCuckoo f = Cuckoos.filter(e);
              if (f == null) {
                throw new CommandException(CuckooErrors.NOT_FOUND);
              }
              if (f.itemCount() == 0) {
                return END;
              }
              if (iter == 0) {
                return Reply.array(Reply.ONE, Reply.bulk(f.dumpHeader()));
              }
              DumpChunk c;
              try {
                c = f.dumpChunk(iter);
              } catch (BadDumpException ex) {
                throw new CommandException(CuckooErrors.refusedDump(ex));
              }
              return c.isEnd() ? END : Reply.array(Reply.integer(c.next()), Reply.bulk(c.bytes()));
            });
  }
}
