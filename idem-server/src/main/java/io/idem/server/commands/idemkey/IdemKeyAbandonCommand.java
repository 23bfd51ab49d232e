package io.idem.server.commands.idemkey;

import io.idem.core.dedup.IdempotencyTable;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * IDEMKEY.ABANDON key id token — frees the key the token holds, so that the next begin starts it:
 * 1; 0 if the token does not hold it. A waiter takes it over.
 */
public final class IdemKeyAbandonCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    byte[] id = IdemKeyArgs.id(call, 2);
    long token = IdemKeyArgs.token(call, 3);
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              IdempotencyTable t = IdemKeys.table(tx.entry());
              boolean freed = t.abandon(IdemKeys.store(tx, call.engine().rows()), id, token);
              if (freed) {
                call.engine().waits().wake(call.arg(1), id);
              }
              return Reply.integer(freed ? 1 : 0);
            });
  }
}
