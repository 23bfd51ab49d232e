package io.idem.server.commands.hll;

import io.idem.core.sketch.HyperLogLog;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.engine.Entry;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;

/**
 * PFMERGE destkey [sourcekey ...] — folds the sources (missing ones count as empty) into the
 * destination, creating it if the key is free, so that it counts the union of itself and them. All
 * keys are locked together and every one is checked for its type before anything changes. Logged as
 * the union, which is folded in by maximum on replay.
 */
public final class PfMergeCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    List<byte[]> sources = new ArrayList<>();
    for (int i = 2; i < call.argc(); i++) {
      sources.add(call.arg(i));
    }
    return call.engine()
        .writeWith(
            call.arg(1),
            sources,
            (tx, read) -> {
              HyperLogLog dest = Entry.valueOrNull(tx.entry(), HllCodec.INSTANCE);
              HyperLogLog union = HyperLogLog.create(HyperLogLog.REDIS_PRECISION);
              for (byte[] source : sources) {
                HyperLogLog s = Entry.valueOrNull(read.apply(source), HllCodec.INSTANCE);
                if (s != null) {
                  union.merge(s);
                }
              }
              if (dest == null) {
                dest =
                    tx.create(
                        HllCodec.INSTANCE,
                        HyperLogLog.create(HyperLogLog.REDIS_PRECISION),
                        HllCodec.recipe(HyperLogLog.REDIS_PRECISION));
              }
              if (dest.merge(union)) {
                tx.log(HllCodec.OP_MERGE, union.toBytes());
              }
              return Reply.OK;
            });
  }
}
