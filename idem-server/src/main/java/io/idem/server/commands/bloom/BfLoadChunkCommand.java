package io.idem.server.commands.bloom;

import io.idem.core.filter.BadDumpException;
import io.idem.core.filter.RedisBloomChain;
import io.idem.core.filter.ScalableBloomFilter;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.engine.KeyTx;
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
              RedisBloomChain c = Blooms.chain(tx.entry());
              if (c != null) {
                try {
                  c.loadChunk(iter, data);
                } catch (BadDumpException e) {
                  throw refused(e, "");
                }
                tx.log(BloomCodec.OP_LOAD_CHUNK, BloomCodec.loadChunkPayload(iter, data));
                return Reply.OK;
              }
              ScalableBloomFilter f = Blooms.filter(tx.entry());
              if (f == null) {
                if (iter != 1) {
                  throw new CommandException(BloomErrors.NOT_FOUND);
                }
                if (!BloomDump.isIdemHeader(data)) {
                  return createFromRedisBloom(call, tx, data);
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

  /**
   * A header from RedisBloom's BF.SCANDUMP: the key gets a filter in RedisBloom's layout, which
   * keeps answering as RedisBloom did and dumps back in RedisBloom's chunks.
   */
  private static Reply createFromRedisBloom(Call call, KeyTx tx, byte[] data) {
    RedisBloomChain chain;
    try {
      chain = RedisBloomChain.fromHeader(data, call.engine()::memoryFits);
    } catch (BadDumpException e) {
      throw refused(e, "neither Idem's header nor RedisBloom's: ");
    } catch (OutOfMemoryError e) {
      throw new CommandException(BloomErrors.NO_MEMORY); // nothing was created
    }
    tx.create(RedisBloomCodec.INSTANCE, chain, data);
    return Reply.OK;
  }

  /** RedisBloom's text; after bad data, what was wrong, as for Idem's own dumps. */
  private static CommandException refused(BadDumpException e, String context) {
    String text = "ERR " + e.reply();
    return new CommandException(
        text.equals(BloomErrors.BAD_DATA) ? text + ": " + context + e.getMessage() : text);
  }

  private static CommandException badData(IOException e) {
    return new CommandException(BloomErrors.BAD_DATA + ": " + e.getMessage());
  }
}
