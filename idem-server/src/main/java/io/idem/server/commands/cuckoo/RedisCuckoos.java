package io.idem.server.commands.cuckoo;

import io.idem.core.filter.BadDumpException;
import io.idem.core.filter.RedisBloomCuckoo;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.engine.Entry;
import io.idem.server.engine.KeyTx;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The CF.* commands on a cuckoo filter moved in from RedisBloom ({@link RedisBloomCuckoo}): the
 * same replies and errors as on Idem's own filters, with RedisBloom's hashing, growth and dump.
 * Each handler asks {@link #of} first and comes here when the key holds one.
 */
final class RedisCuckoos {

  /** RedisBloom's CF.ADD and CF.INSERT refuse to run on a filter with this many sub-filters. */
  static final int MAX_EXPANSIONS = 32;

  private RedisCuckoos() {}

  /** The RedisBloom-layout filter at the entry, or null. */
  static @Nullable RedisBloomCuckoo of(@Nullable Entry e) {
    return e != null && e.codec() == RedisCuckooCodec.INSTANCE
        ? e.valueAs(RedisCuckooCodec.INSTANCE)
        : null;
  }

  private static RedisBloomCuckoo.Insert insert(
      Call call, RedisBloomCuckoo cf, long h, boolean nx) {
    long growth = cf.bytesOfNextFilter();
    boolean mayGrow = growth >= 0 && call.engine().memoryFits(growth);
    try {
      return nx ? cf.insertUnique(h, mayGrow) : cf.insert(h, mayGrow);
    } catch (OutOfMemoryError e) {
      return RedisBloomCuckoo.Insert.TOO_LARGE; // the new sub-filter's array failed; no change
    }
  }

  private static void checkExpansions(RedisBloomCuckoo cf) {
    if (cf.filterCount() >= MAX_EXPANSIONS) {
      throw new CommandException(CuckooErrors.MAX_EXPANSIONS);
    }
  }

  /** CF.ADD and CF.ADDNX of one item. */
  static Reply add(Call call, KeyTx tx, RedisBloomCuckoo cf, boolean nx) {
    checkExpansions(cf);
    long h = RedisBloomCuckoo.hash(call.arg(2));
    return switch (insert(call, cf, h, nx)) {
      case INSERTED -> {
        tx.log(nx ? CuckooCodec.OP_ADD_NX : CuckooCodec.OP_ADD, RedisCuckooCodec.hashes(h));
        yield Cuckoos.bool(call, true);
      }
      case EXISTS -> Cuckoos.bool(call, false);
      case NO_SPACE -> throw new CommandException(CuckooErrors.FULL);
      case TOO_LARGE -> throw new CommandException(CuckooErrors.NO_MEMORY);
    };
  }

  /** CF.INSERT and CF.INSERTNX of arguments {@code [from, argc)}: one reply each. */
  static List<Reply> insertAll(Call call, KeyTx tx, RedisBloomCuckoo cf, int from, boolean nx) {
    checkExpansions(cf);
    List<Reply> replies = new ArrayList<>(call.argc() - from);
    long[] inserted = new long[Math.clamp(call.argc() - from, 1, 1024)];
    int n = 0;
    try {
      for (int i = from; i < call.argc(); i++) {
        long h = RedisBloomCuckoo.hash(call.arg(i));
        RedisBloomCuckoo.Insert r = insert(call, cf, h, nx);
        if (r == RedisBloomCuckoo.Insert.INSERTED) {
          if (n == inserted.length) {
            inserted = Arrays.copyOf(inserted, 2 * n);
          }
          inserted[n++] = h;
        }
        replies.add(
            Cuckoos.multiReply(
                call,
                switch (r) {
                  case INSERTED -> Cuckoos.Outcome.INSERTED;
                  case EXISTS -> Cuckoos.Outcome.EXISTS;
                  case NO_SPACE -> Cuckoos.Outcome.FULL;
                  case TOO_LARGE -> Cuckoos.Outcome.NO_MEMORY;
                },
                nx));
      }
    } finally {
      if (n > 0) {
        tx.log(
            nx ? CuckooCodec.OP_ADD_NX : CuckooCodec.OP_ADD,
            RedisCuckooCodec.hashes(Arrays.copyOf(inserted, n)));
      }
    }
    return replies;
  }

  static boolean contains(RedisBloomCuckoo cf, byte[] item) {
    return cf.contains(RedisBloomCuckoo.hash(item));
  }

  static Reply delete(Call call, KeyTx tx, RedisBloomCuckoo cf) {
    long h = RedisBloomCuckoo.hash(call.arg(2));
    boolean deleted = cf.delete(h);
    if (deleted) {
      tx.log(CuckooCodec.OP_DEL, RedisCuckooCodec.hashes(h));
    }
    return Cuckoos.bool(call, deleted);
  }

  static Reply compact(KeyTx tx, RedisBloomCuckoo cf) {
    cf.compact(true);
    tx.log(CuckooCodec.OP_COMPACT, new byte[0]);
    return Reply.OK;
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
