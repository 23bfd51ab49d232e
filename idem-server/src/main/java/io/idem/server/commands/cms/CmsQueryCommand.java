package io.idem.server.commands.cms;

import io.idem.core.hash.Hash128;
import io.idem.core.sketch.CountMinSketch;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;

/** CMS.QUERY key item [item ...] — each item's estimate: the least of its counters. */
public final class CmsQueryCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    int n = call.argc() - 2;
    long[] h1 = new long[n];
    long[] h2 = new long[n];
    Hash128 h = new Hash128();
    for (int i = 0; i < n; i++) {
      h.hash(call.arg(2 + i));
      h1[i] = h.h1();
      h2[i] = h.h2();
    }
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              CountMinSketch s = Cms.sketch(e);
              List<Reply> out = new ArrayList<>(n);
              for (int i = 0; i < n; i++) {
                out.add(Reply.integer(s.estimate(h1[i], h2[i])));
              }
              return Reply.array(out);
            });
  }
}
