package io.idem.server.commands.hll;

import io.idem.core.hash.Hash128;
import io.idem.core.sketch.HyperLogLog;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.engine.Entry;
import io.idem.server.reply.Reply;
import java.util.Arrays;

/**
 * PFADD key [element ...] — adds the elements to the HyperLogLog at the key, creating it if the key
 * is free; replies 1 if a register rose or the key was made, else 0, as Redis does. Only the
 * registers that rose are logged.
 */
public final class PfAddCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    int n = call.argc() - 2;
    long[] hashes = new long[n];
    Hash128 h = new Hash128();
    for (int i = 0; i < n; i++) { // outside the key's lock
      hashes[i] = h.hash(call.arg(2 + i)).h1();
    }
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              HyperLogLog sketch = Entry.valueOrNull(tx.entry(), HllCodec.INSTANCE);
              boolean made = sketch == null;
              if (made) {
                sketch =
                    tx.create(
                        HllCodec.INSTANCE,
                        HyperLogLog.create(HyperLogLog.REDIS_PRECISION),
                        HllCodec.recipe(HyperLogLog.REDIS_PRECISION));
              }
              byte[] raised = new byte[3 * n];
              int at = 0;
              for (long hash : hashes) {
                int register = sketch.registerOf(hash);
                int rank = sketch.rankOf(hash);
                if (sketch.raise(register, rank)) {
                  HllCodec.putRaise(raised, at, register, rank);
                  at += 3;
                }
              }
              if (at > 0) {
                tx.log(HllCodec.OP_RAISE, Arrays.copyOf(raised, at));
              }
              return made || at > 0 ? Reply.ONE : Reply.ZERO;
            });
  }
}
