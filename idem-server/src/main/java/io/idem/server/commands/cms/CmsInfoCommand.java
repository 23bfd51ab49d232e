package io.idem.server.commands.cms;

import io.idem.core.sketch.CountMinSketch;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.util.List;

/**
 * CMS.INFO key — width, depth and count (the total of all increments), as RedisBloom shapes them: a
 * map under RESP3, a flat array of names and values under RESP2.
 */
public final class CmsInfoCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              CountMinSketch s = Cms.sketch(e);
              return Reply.map(
                  List.of(
                      Reply.simple("width"), Reply.integer(s.width()),
                      Reply.simple("depth"), Reply.integer(s.depth()),
                      Reply.simple("count"), Reply.integer(s.count())));
            });
  }
}
