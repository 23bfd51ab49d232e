package io.idem.server.commands.topk;

import io.idem.core.sketch.TopK;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.util.List;

/** TOPK.INFO key — k, width, depth and decay, as RedisBloom shapes them (a map in RESP3). */
public final class TopkInfoCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              TopK t = Topk.sketch(e);
              return Reply.map(
                  List.of(
                      Reply.simple("k"),
                      Reply.integer(t.k()),
                      Reply.simple("width"),
                      Reply.integer(t.width()),
                      Reply.simple("depth"),
                      Reply.integer(t.depth()),
                      Reply.simple("decay"),
                      new Reply.Double(t.decay())));
            });
  }
}
