package io.idem.server.commands.cms;

import io.idem.core.hash.Hash128;
import io.idem.core.sketch.CountMinSketch;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.dispatch.Parse;
import io.idem.server.reply.Reply;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * CMS.INCRBY key item increment [item increment ...] — adds each increment in order (an item given
 * twice counts twice) and replies each item's estimate after its own increment; an estimate that
 * reached the counters' limit is the error element {@code CMS: INCRBY overflow} in the array, as in
 * RedisBloom. Every increment is checked before any is added.
 */
public final class CmsIncrByCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    int argc = call.argc();
    int n = (argc - 2) / 2;
    long[] h1 = new long[n];
    long[] h2 = new long[n];
    long[] increments = new long[n];
    Hash128 h = new Hash128();
    for (int i = 0; i < n; i++) { // outside the key's lock
      h.hash(call.arg(2 + 2 * i));
      h1[i] = h.h1();
      h2[i] = h.h2();
    }
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              CountMinSketch s = Cms.sketch(tx.entry());
              for (int i = 0; i < n; i++) {
                Long v = Parse.longOrNull(call.arg(3 + 2 * i));
                if (v == null) {
                  throw new CommandException(Cms.BAD_NUMBER);
                }
                if (v < 0) {
                  throw new CommandException(Cms.NEGATIVE);
                }
                increments[i] = v;
              }
              ByteBuffer payload = ByteBuffer.allocate(n * 24);
              List<Reply> out = new ArrayList<>(n);
              for (int i = 0; i < n; i++) {
                long estimate = s.add(h1[i], h2[i], increments[i]);
                payload.putLong(h1[i]).putLong(h2[i]).putLong(increments[i]);
                out.add(
                    estimate == CountMinSketch.MAX_COUNTER
                        ? Reply.error(Cms.INCRBY_OVERFLOW)
                        : Reply.integer(estimate));
              }
              tx.log(CmsCodec.OP_INCRBY, payload.array());
              return Reply.array(out);
            });
  }
}
