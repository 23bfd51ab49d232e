package io.idem.server.commands.cuckoo;

import io.idem.core.filter.RedisBloomCuckoo;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.engine.Entry;
import io.idem.server.reply.Reply;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The CF.* commands on a cuckoo filter moved in from RedisBloom ({@link RedisBloomCuckoo}): the
 * same replies and errors as on Idem's own filters, with RedisBloom's hashing, growth and dump. The
 * other commands reach both layouts through {@link io.idem.core.filter.ScalableCuckoo}; what is
 * left here is this layout's own CF.INFO fields.
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
}
