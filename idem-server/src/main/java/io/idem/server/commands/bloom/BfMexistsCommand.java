package io.idem.server.commands.bloom;

import io.idem.core.filter.RedisBloomChain;
import io.idem.core.filter.ScalableBloomFilter;
import io.idem.core.hash.Hash128;
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
              RedisBloomChain c = Blooms.chain(e);
              // Another type answers 0 for every item, as in RedisBloom.
              ScalableBloomFilter f =
                  c == null && e != null && e.codec() == BloomCodec.INSTANCE
                      ? e.valueAs(BloomCodec.INSTANCE)
                      : null;
              // All hashes first, then one batched lookup a layer: the items' misses overlap.
              if (c != null) {
                long[] a = new long[n];
                long[] b = new long[n];
                for (int i = 0; i < n; i++) {
                  long[] h = RedisBloomChain.hash(call.arg(i + 2));
                  a[i] = h[0];
                  b[i] = h[1];
                }
                c.mightContainAll(a, b, n, found);
              } else if (f != null) {
                long[] h1 = new long[n];
                long[] h2 = new long[n];
                Hash128 h = new Hash128();
                for (int i = 0; i < n; i++) {
                  h.hash(call.arg(i + 2));
                  h1[i] = h.h1();
                  h2[i] = h.h2();
                }
                f.mightContainAll(h1, h2, n, found, new boolean[n]);
              }
              List<Reply> out = new ArrayList<>(n);
              for (boolean b : found) {
                out.add(Blooms.bool(call, b));
              }
              return Reply.array(out);
            });
  }
}
