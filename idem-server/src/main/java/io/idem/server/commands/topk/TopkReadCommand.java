package io.idem.server.commands.topk;

import io.idem.core.hash.Hash128;
import io.idem.core.sketch.TopK;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;

/**
 * TOPK.QUERY key item [item ...] — whether each item is in the heap (RESP3 booleans, RESP2 1/0);
 * TOPK.COUNT key item [item ...] — each item's count as RedisBloom estimates it from the buckets
 * that hold its fingerprint (deprecated there since 2.4, and not the heap's count).
 */
public final class TopkReadCommand implements Handler {

  private final boolean counts;

  private TopkReadCommand(boolean counts) {
    this.counts = counts;
  }

  public static TopkReadCommand query() {
    return new TopkReadCommand(false);
  }

  public static TopkReadCommand count() {
    return new TopkReadCommand(true);
  }

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              TopK sketch = Topk.sketch(e);
              Hash128 h = new Hash128();
              List<Reply> out = new ArrayList<>(call.argc() - 2);
              for (int i = 2; i < call.argc(); i++) {
                byte[] item = call.arg(i);
                out.add(
                    counts
                        ? Reply.integer(sketch.count(item, h.hash(item)))
                        : new Reply.Bool(sketch.contains(item, h.hash(item))));
              }
              return Reply.array(out);
            });
  }
}
