package io.idem.server.commands.hll;

import io.idem.core.sketch.HyperLogLog;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.engine.Entry;
import io.idem.server.reply.Reply;

/**
 * PFCOUNT key [key ...] — the estimated number of distinct elements added to the key, or to the
 * union of the keys; a missing key counts as empty. Several keys are read one after another, each
 * under its own lock, into a union made aside: none of them changes.
 */
public final class PfCountCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    if (call.argc() == 2) {
      return call.engine()
          .read(
              call.arg(1),
              e -> {
                HyperLogLog s = Entry.valueOrNull(e, HllCodec.INSTANCE);
                return Reply.integer(s == null ? 0 : s.count());
              });
    }
    HyperLogLog union = HyperLogLog.create(HyperLogLog.REDIS_PRECISION);
    for (int i = 1; i < call.argc(); i++) {
      call.engine()
          .read(
              call.arg(i),
              e -> {
                HyperLogLog s = Entry.valueOrNull(e, HllCodec.INSTANCE);
                return s == null ? null : union.merge(s);
              });
    }
    return Reply.integer(union.count());
  }
}
