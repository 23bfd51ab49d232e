package io.idem.server.commands.tdigest;

import io.idem.core.sketch.TDigest;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.util.List;

/**
 * TDIGEST.INFO key — RedisBloom's nine fields (a map in RESP3), without compressing. Memory usage
 * is this server's: the node slots in use, which grow as nodes arrive, where RedisBloom allocates
 * them all at creation (80 + 16 × capacity bytes).
 */
public final class TdigestInfoCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              TDigest t = Tdigest.digest(e);
              return Reply.map(
                  List.of(
                      Reply.simple("Compression"),
                      Reply.integer(t.compression()),
                      Reply.simple("Capacity"),
                      Reply.integer(t.capacity()),
                      Reply.simple("Merged nodes"),
                      Reply.integer(t.mergedNodes()),
                      Reply.simple("Unmerged nodes"),
                      Reply.integer(t.unmergedNodes()),
                      Reply.simple("Merged weight"),
                      Reply.integer(t.mergedWeight()),
                      Reply.simple("Unmerged weight"),
                      Reply.integer(t.unmergedWeight()),
                      Reply.simple("Observations"),
                      Reply.integer(t.observations()),
                      Reply.simple("Total compressions"),
                      Reply.integer(t.totalCompressions()),
                      Reply.simple("Memory usage"),
                      Reply.integer(TdigestCodec.INSTANCE.memoryUsage(t))));
            });
  }
}
