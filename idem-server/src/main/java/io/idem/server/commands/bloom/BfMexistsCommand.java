package io.idem.server.commands.bloom;

import io.idem.core.filter.ScalableBloom;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;

/** BF.MEXISTS key item [item ...] — BF.EXISTS's answer for each item, in an array. */
public final class BfMexistsCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              int n = call.argc() - 2;
              boolean[] found = new boolean[n];
              // Another type answers 0 for every item, as in RedisBloom.
              ScalableBloom f = Blooms.bloomOrNone(e);
              if (f != null) {
                // All hashes first, then one batched lookup a layer: the items' misses overlap.
                long[] a = new long[n];
                long[] b = new long[n];
                long[] pair = new long[2];
                for (int i = 0; i < n; i++) {
                  f.hash(call.arg(i + 2), pair);
                  a[i] = pair[0];
                  b[i] = pair[1];
                }
                f.mightContainAll(a, b, n, found);
              }
              List<Reply> out = new ArrayList<>(n);
              for (boolean b : found) {
                out.add(Blooms.bool(call, b));
              }
              return Reply.array(out);
            });
  }
}
