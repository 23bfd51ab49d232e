package io.idem.server.commands.bloom;

import io.idem.core.filter.BadDumpException;
import io.idem.core.filter.DumpChunk;
import io.idem.core.filter.ScalableBloom;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * BF.SCANDUMP key iterator — [next iterator, bytes]: the header for iterator 0, then chunks of at
 * most 16 MiB of one layer's bits, then [0, ""]. Each call copies one chunk, never the whole
 * filter. The bytes are the layout's own: a filter moved in from RedisBloom dumps in RedisBloom's,
 * which RedisBloom loads back.
 */
public final class BfScanDumpCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              ScalableBloom f = Blooms.bloom(e);
              if (f == null) {
                throw new CommandException(BloomErrors.NOT_FOUND);
              }
              long iter = BloomArgs.parseLong(call.arg(2), BloomErrors.SCANDUMP_NOT_NUMERIC);
              if (iter == 0) {
                return reply(1, f.dumpHeader());
              }
              DumpChunk chunk;
              try {
                chunk = f.dumpChunk(iter);
              } catch (BadDumpException ex) {
                throw new CommandException(BloomErrors.refusedDump(ex));
              }
              return reply(chunk.next(), chunk.bytes());
            });
  }

  private static Reply reply(long iter, byte[] bytes) {
    return Reply.array(Reply.integer(iter), Reply.bulk(bytes));
  }
}
