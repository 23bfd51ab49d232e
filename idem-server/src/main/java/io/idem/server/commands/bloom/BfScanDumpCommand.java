package io.idem.server.commands.bloom;

import io.idem.core.filter.RedisBloomChain;
import io.idem.core.filter.ScalableBloomFilter;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.io.IOException;

/**
 * BF.SCANDUMP key iterator — [next iterator, bytes]: the header for iterator 0, then chunks of at
 * most 16 MiB of one layer's bits, then [0, ""]. Each call copies one chunk, never the whole
 * filter.
 */
public final class BfScanDumpCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              RedisBloomChain c = Blooms.chain(e);
              ScalableBloomFilter f = c == null ? Blooms.filter(e) : null;
              if (c == null && f == null) {
                throw new CommandException(BloomErrors.NOT_FOUND);
              }
              long iter = BloomArgs.parseLong(call.arg(2), BloomErrors.SCANDUMP_NOT_NUMERIC);
              if (c != null) {
                // RedisBloom's own dump, which RedisBloom loads back.
                if (iter == 0) {
                  return reply(1, c.header());
                }
                RedisBloomChain.Chunk chunk = c.chunkAt(iter);
                return reply(chunk.next(), chunk.bytes());
              }
              if (iter == 0) {
                return reply(1, BloomDump.header(f));
              }
              try {
                BloomDump.Chunk chunk = BloomDump.chunk(f, iter, BloomDump.MAX_CHUNK_WORDS);
                return reply(chunk.next(), chunk.bytes());
              } catch (IOException ex) {
                throw new CommandException(BloomErrors.INVALID_ITERATOR + ": " + ex.getMessage());
              }
            });
  }

  private static Reply reply(long iter, byte[] bytes) {
    return Reply.array(Reply.integer(iter), Reply.bulk(bytes));
  }
}
