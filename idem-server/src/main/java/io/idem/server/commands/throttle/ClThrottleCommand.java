package io.idem.server.commands.throttle;

import io.idem.core.rate.Gcra;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Handler;
import io.idem.server.dispatch.Parse;
import io.idem.server.reply.Reply;

/**
 * CL.THROTTLE key max_burst count period [quantity] — redis-cell's rate limiter: lets a request of
 * {@code quantity} (default 1) through if the key's limiter allows {@code count} a {@code period}
 * seconds with bursts of {@code max_burst} more, by the generic cell rate algorithm. Replies as
 * redis-cell: [limited (0 or 1), limit, remaining, retry after (seconds, -1 if not limited), reset
 * after (seconds)]. A request let through moves the limiter on, and the key expires when it would
 * be full again; a limited one changes nothing.
 */
public final class ClThrottleCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    if (call.argc() > 6) {
      throw new CommandException(Errors.wrongArity("cl.throttle"));
    }
    long maxBurst = Parse.longArg(call.arg(2));
    long count = Parse.longArg(call.arg(3));
    long period = Parse.longArg(call.arg(4));
    long quantity = call.argc() == 6 ? Parse.longArg(call.arg(5)) : 1;
    Gcra.Quota quota;
    try {
      quota = new Gcra.Quota(maxBurst, count, period);
    } catch (IllegalArgumentException e) {
      throw CommandException.err(e.getMessage());
    }
    if (quantity < 0 || quantity > Gcra.MAX_AMOUNT) {
      throw CommandException.err("quantity must be from 0 to " + Gcra.MAX_AMOUNT);
    }
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              ThrottleCodec.Limiter limiter = tx.value(ThrottleCodec.INSTANCE);
              long nowMillis = call.engine().now();
              long now = nowMillis * 1_000_000L;
              Gcra.Decision d =
                  Gcra.decide(quota, limiter == null ? -1 : limiter.tatNanos, now, quantity);
              if (!d.limited()) {
                // The key lives until the TAT, in whole milliseconds, rounded up.
                long expireAt = Math.ceilDiv(d.newTatNanos(), 1_000_000L);
                if (expireAt > nowMillis) {
                  if (limiter == null) {
                    limiter =
                        tx.create(ThrottleCodec.INSTANCE, new ThrottleCodec.Limiter(), new byte[0]);
                  }
                  limiter.tatNanos = d.newTatNanos();
                  tx.log(ThrottleCodec.OP_SET, ThrottleCodec.set(d.newTatNanos()));
                  tx.expireAt(expireAt);
                } else if (limiter != null) {
                  tx.delete(); // a look (quantity 0) at a limiter already full: as if none
                }
              }
              return Reply.array(
                  d.limited() ? Reply.ONE : Reply.ZERO,
                  Reply.integer(d.limit()),
                  Reply.integer(d.remaining()),
                  Reply.integer(Gcra.replySeconds(d.retryAfterNanos())),
                  Reply.integer(Gcra.replySeconds(d.resetAfterNanos())));
            });
  }
}
