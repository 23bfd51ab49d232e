package io.idem.server.commands.bloom;

import io.idem.core.filter.ScalableBloomFilter;
import io.idem.server.command.Call;
import io.idem.server.command.CommandException;
import io.idem.server.command.Errors;
import io.idem.server.command.Handler;
import io.idem.server.reply.Reply;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * BF.INFO key [CAPACITY | SIZE | FILTERS | ITEMS | EXPANSION | ERROR | FPRATE | BITSPERITEM] —
 * RedisBloom's five figures, or one of them; the last three are Idem's. "Size" is the bytes of the
 * bit arrays: what the filter really holds.
 */
public final class BfInfoCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    if (call.argc() > 3) {
      throw new CommandException(Errors.wrongArity("bf.info"));
    }
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              ScalableBloomFilter f = Blooms.filter(e);
              if (f == null) {
                throw new CommandException(BloomErrors.NOT_FOUND);
              }
              if (call.argc() == 2) {
                return Reply.map(
                    List.of(
                        Reply.simple("Capacity"), Reply.integer(f.capacity()),
                        Reply.simple("Size"), Reply.integer(f.sizeInBytes()),
                        Reply.simple("Number of filters"), Reply.integer(f.layerCount()),
                        Reply.simple("Number of items inserted"), Reply.integer(f.itemCount()),
                        Reply.simple("Expansion rate"), expansion(f)));
              }
              String field = new String(call.arg(2), StandardCharsets.ISO_8859_1);
              return switch (field.toLowerCase(Locale.ROOT)) {
                case "capacity" -> one(call, "Capacity", Reply.integer(f.capacity()));
                case "size" -> one(call, "Size", Reply.integer(f.sizeInBytes()));
                case "filters" -> one(call, "Number of filters", Reply.integer(f.layerCount()));
                case "items" -> one(call, "Number of items inserted", Reply.integer(f.itemCount()));
                case "expansion" -> one(call, "Expansion rate", expansion(f));
                // Idem's own: the configured rate, the rate expected now, and the bits per item
                // of capacity, each as RedisBloom shapes a single field.
                case "error" -> one(call, "Error rate", new Reply.Double(f.configuredErrorRate()));
                case "fprate" ->
                    one(
                        call,
                        "Estimated false positive rate",
                        new Reply.Double(f.estimatedFalsePositiveRate()));
                case "bitsperitem" ->
                    one(
                        call,
                        "Bits per item",
                        new Reply.Double(f.sizeInBytes() * 8.0 / f.capacity()));
                default -> throw new CommandException(BloomErrors.INVALID_INFO);
              };
            });
  }

  private static Reply expansion(ScalableBloomFilter f) {
    return f.isScaling() ? Reply.integer(f.expansion()) : Reply.NULL;
  }

  /** One field: under RESP3 a map of one pair, under RESP2 an array of the value alone. */
  private static Reply one(Call call, String name, Reply value) {
    return Blooms.resp3(call) ? Reply.map(List.of(Reply.simple(name), value)) : Reply.array(value);
  }
}
