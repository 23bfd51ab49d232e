package io.idem.server.commands.bloom;

import io.idem.core.filter.ScalableBloom;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.engine.Entry;
import io.idem.server.reply.Reply;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * BF.INFO key [CAPACITY | SIZE | FILTERS | ITEMS | EXPANSION | ERROR | FPRATE | BITSPERITEM |
 * LAYOUT] — RedisBloom's five figures, or one of them; the last four are Idem's. "Size" is the
 * bytes of the bit arrays: what the filter really holds.
 */
public final class BfInfoCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              Shown f = shown(e);
              if (call.argc() == 2) {
                return Reply.map(
                    List.of(
                        Reply.simple("Capacity"), Reply.integer(f.capacity()),
                        Reply.simple("Size"), Reply.integer(f.size()),
                        Reply.simple("Number of filters"), Reply.integer(f.filters()),
                        Reply.simple("Number of items inserted"), Reply.integer(f.items()),
                        Reply.simple("Expansion rate"), f.expansionReply()));
              }
              String field = new String(call.arg(2), StandardCharsets.ISO_8859_1);
              return switch (field.toLowerCase(Locale.ROOT)) {
                case "capacity" -> one(call, "Capacity", Reply.integer(f.capacity()));
                case "size" -> one(call, "Size", Reply.integer(f.size()));
                case "filters" -> one(call, "Number of filters", Reply.integer(f.filters()));
                case "items" -> one(call, "Number of items inserted", Reply.integer(f.items()));
                case "expansion" -> one(call, "Expansion rate", f.expansionReply());
                // Idem's own: the configured rate, the rate expected now, and the bits per item
                // of capacity, each as RedisBloom shapes a single field.
                case "error" -> one(call, "Error rate", new Reply.Double(f.error()));
                case "fprate" ->
                    one(call, "Estimated false positive rate", new Reply.Double(f.fprate()));
                case "bitsperitem" ->
                    one(call, "Bits per item", new Reply.Double(f.size() * 8.0 / f.capacity()));
                case "layout" -> one(call, "Layout", Reply.bulk(f.layout()));
                default -> throw new CommandException(BloomErrors.INVALID_INFO);
              };
            });
  }

  /** What BF.INFO shows of a filter, in Idem's layout or RedisBloom's. */
  private record Shown(
      long capacity,
      long size,
      int filters,
      long items,
      boolean scaling,
      int expansion,
      double error,
      double fprate,
      String layout) {
    Reply expansionReply() {
      return scaling ? Reply.integer(expansion) : Reply.NULL;
    }
  }

  private static Shown shown(@Nullable Entry e) {
    ScalableBloom f = Blooms.bloom(e);
    if (f == null) {
      throw new CommandException(BloomErrors.NOT_FOUND);
    }
    return new Shown(
        f.capacity(),
        f.sizeInBytes(),
        f.layerCount(),
        f.itemCount(),
        f.isScaling(),
        f.expansion(),
        f.configuredErrorRate(),
        f.estimatedFalsePositiveRate(),
        f.layoutName());
  }

  /** One field: under RESP3 a map of one pair, under RESP2 an array of the value alone. */
  private static Reply one(Call call, String name, Reply value) {
    return Blooms.resp3(call) ? Reply.map(List.of(Reply.simple(name), value)) : Reply.array(value);
  }
}
