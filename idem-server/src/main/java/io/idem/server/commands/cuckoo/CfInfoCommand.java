package io.idem.server.commands.cuckoo;

import io.idem.core.filter.CuckooFilter;
import io.idem.core.filter.RedisBloomCuckoo;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * CF.INFO key [CAPACITY | ERROR | FPRATE | BITSPERITEM] — RedisBloom's eight figures; or, Idem's
 * own, one of: the capacity asked for, the configured error rate, the false-positive rate expected
 * now, and the sub-tables' bits per item of capacity. "Size" is the true memory: sub-tables plus
 * the objects that hold them ({@link CuckooCodec#memoryUsage}).
 */
public final class CfInfoCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              RedisBloomCuckoo moved = RedisCuckoos.of(e);
              if (moved != null) {
                return RedisCuckoos.info(call, moved);
              }
              CuckooFilter f = Cuckoos.own(e);
              if (f == null) {
                throw new CommandException(CuckooErrors.NOT_FOUND);
              }
              if (call.argc() == 2) {
                return Reply.map(
                    List.of(
                        Reply.simple("Size"),
                        Reply.integer(CuckooCodec.INSTANCE.memoryUsage(f)),
                        Reply.simple("Number of buckets"),
                        Reply.integer(f.bucketCount()),
                        Reply.simple("Number of filters"),
                        Reply.integer(f.tableCount()),
                        Reply.simple("Number of items inserted"),
                        Reply.integer(f.itemCount()),
                        Reply.simple("Number of items deleted"),
                        Reply.integer(f.deleteCount()),
                        Reply.simple("Bucket size"),
                        Reply.integer(f.bucketSize()),
                        Reply.simple("Expansion rate"),
                        Reply.integer(f.expansion()),
                        Reply.simple("Max iterations"),
                        Reply.integer(f.maxIterations())));
              }
              String field = new String(call.arg(2), StandardCharsets.ISO_8859_1);
              return switch (field.toLowerCase(Locale.ROOT)) {
                case "capacity" -> one(call, "Capacity", Reply.integer(f.capacity()));
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
                default -> throw new CommandException(CuckooErrors.INVALID_INFO);
              };
            });
  }

  /** One field, shaped as RedisBloom's BF.INFO shapes one: RESP3 a map of one, RESP2 [value]. */
  private static Reply one(Call call, String name, Reply value) {
    return Cuckoos.resp3(call) ? Reply.map(List.of(Reply.simple(name), value)) : Reply.array(value);
  }
}
