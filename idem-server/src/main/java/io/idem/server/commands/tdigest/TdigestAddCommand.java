package io.idem.server.commands.tdigest;

import io.idem.core.sketch.TDigest;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.dispatch.Parse;
import io.idem.server.reply.Reply;

/**
 * TDIGEST.ADD key value [value ...] — adds each value with weight 1, in order. The key must hold a
 * digest (no auto-create), and every value is checked before any is added: one that does not parse
 * (or is nan) or is infinite refuses the command, which changes nothing. So does a total weight
 * that would pass 2^63 - 1, which RedisBloom finds part-way.
 */
public final class TdigestAddCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              TDigest digest = Tdigest.digest(tx.entry());
              double[] values = new double[call.argc() - 2];
              for (int i = 0; i < values.length; i++) {
                Double v = Parse.doubleOrNull(call.arg(2 + i));
                if (v == null || v.isNaN()) {
                  throw new CommandException(Tdigest.BAD_VALUE);
                }
                if (v.isInfinite()) {
                  throw new CommandException(Tdigest.VALUE_NOT_FINITE);
                }
                values[i] = v;
              }
              if (digest.observations() > Long.MAX_VALUE - values.length) {
                throw new CommandException(Tdigest.OVERFLOW);
              }
              // Everything that may fail comes first: the record, the slots, the logging. Then
              // the adds, which cannot fail (finite values, a weight that fits, slots reserved),
              // so the digest is always what its log says.
              byte[] logged;
              try {
                logged = TdigestCodec.added(digest, values);
              } catch (IllegalArgumentException | OutOfMemoryError e) {
                throw new CommandException(Tdigest.TOO_LARGE);
              }
              try {
                digest.reserve(values.length);
              } catch (OutOfMemoryError e) {
                throw new CommandException(Tdigest.NO_MEMORY);
              }
              tx.log(TdigestCodec.OP_ADD, logged);
              for (double v : values) {
                digest.add(v);
              }
              return Reply.OK;
            });
  }
}
