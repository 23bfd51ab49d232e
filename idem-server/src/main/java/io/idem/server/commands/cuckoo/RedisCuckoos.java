package io.idem.server.commands.cuckoo;

import io.idem.core.filter.BadDumpException;
import io.idem.core.filter.RedisBloomCuckoo;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.engine.Entry;
import io.idem.server.engine.KeyTx;
import io.idem.server.reply.Reply;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The CF.* commands on a cuckoo filter moved in from RedisBloom ({@link RedisBloomCuckoo}): the
 * same replies and errors as on Idem's own filters, with RedisBloom's hashing, growth and dump. The
 * item-level commands reach both layouts through {@link io.idem.core.filter.ScalableCuckoo}; what
 * is left here is each layout's own: CF.INFO's fields and the dump.
 */
final class RedisCuckoos {

  /** The RedisBloom-layout filter at the entry, or null. */
  static @Nullable RedisBloomCuckoo of(@Nullable Entry e) {
    return e != null && e.codec() == RedisCuckooCodec.INSTANCE
        ? e.valueAs(RedisCuckooCodec.INSTANCE)
        : null;
  }

  /** CF.INFO: RedisBloom's fields; of Idem's own, only the capacity (slots) applies. */
  static Reply info(Call call, RedisBloomCuckoo cf) {
    if (call.argc() == 2) {
      return Reply.map(
          List.of(
              Reply.simple("Size"), Reply.integer(cf.sizeInBytes()),
              Reply.simple("Number of buckets"), Reply.integer(cf.bucketCount()),
              Reply.simple("Number of filters"), Reply.integer(cf.filterCount()),
              Reply.simple("Number of items inserted"), Reply.integer(cf.itemCount()),
              Reply.simple("Number of items deleted"), Reply.integer(cf.deleteCount()),
              Reply.simple("Bucket size"), Reply.integer(cf.bucketSize()),
              Reply.simple("Expansion rate"), Reply.integer(cf.expansion()),
              Reply.simple("Max iterations"), Reply.integer(cf.maxIterations())));
    }
    String field = new String(call.arg(2), java.nio.charset.StandardCharsets.ISO_8859_1);
    if (field.toLowerCase(Locale.ROOT).equals("capacity")) {
      long slots = cf.slotCount();
      return Cuckoos.resp3(call)
          ? Reply.map(List.of(Reply.simple("Capacity"), Reply.integer(slots)))
          : Reply.array(Reply.integer(slots));
    }
    throw new CommandException(CuckooErrors.INVALID_INFO);
  }

  private static final Reply END = Reply.array(Reply.ZERO, Reply.NULL);

  /** CF.SCANDUMP in RedisBloom's format, which RedisBloom's CF.LOADCHUNK takes back. */
  static Reply scandump(RedisBloomCuckoo cf, long position) {
    if (cf.itemCount() == 0) {
      return END;
    }
    if (position == 0) {
      return Reply.array(Reply.ONE, Reply.bulk(cf.header()));
    }
    RedisBloomCuckoo.Chunk c = cf.chunkAt(position);
    return c == null ? END : Reply.array(Reply.integer(c.next()), Reply.bulk(c.bytes()));
  }

  /** CF.LOADCHUNK of a data chunk into a filter moved in from RedisBloom. */
  static Reply loadChunk(KeyTx tx, RedisBloomCuckoo cf, long position, byte[] data) {
    try {
      cf.loadChunk(position, data);
    } catch (BadDumpException e) {
      throw new CommandException(CuckooErrors.because(e.reply(), e.getMessage()));
    }
    tx.log(CuckooCodec.OP_LOAD_CHUNK, CuckooCodec.loadChunkPayload(position, data));
    return Reply.OK;
  }

  /** CF.LOADCHUNK of a header that is RedisBloom's: the free key gets a filter in its layout. */
  static Reply create(Call call, KeyTx tx, byte[] data) {
    RedisBloomCuckoo cf;
    try {
      cf = RedisBloomCuckoo.fromHeader(data, call.engine()::memoryFits);
    } catch (BadDumpException e) {
      throw new CommandException(CuckooErrors.because(CuckooErrors.CANNOT_CREATE, e.getMessage()));
    } catch (OutOfMemoryError e) {
      throw new CommandException(CuckooErrors.NO_MEMORY_TO_CREATE);
    }
    tx.create(RedisCuckooCodec.INSTANCE, cf, data);
    return Reply.OK;
  }
}
