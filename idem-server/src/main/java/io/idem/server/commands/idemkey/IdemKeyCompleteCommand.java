package io.idem.server.commands.idemkey;

import io.idem.core.dedup.IdempotencyTable;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * IDEMKEY.COMPLETE key id token result — stores the result of the request the token holds the key
 * for: 1; 0 if the token no longer holds it (another caller took it over after its lease, or it was
 * abandoned or completed). Its waiters are answered with the result.
 */
public final class IdemKeyCompleteCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    byte[] id = IdemKeyArgs.id(call, 2);
    long token = IdemKeyArgs.token(call, 3);
    byte[] result = call.arg(4);
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              IdempotencyTable t = IdemKeys.table(tx.entry());
              boolean done =
                  IdemKeys.refusing(
                      () ->
                          t.complete(
                              IdemKeys.store(tx, call.engine().rows()),
                              id,
                              token,
                              result,
                              call.engine().now()));
              if (done) {
                call.engine().waits().wake(call.arg(1), id);
              }
              return Reply.integer(done ? 1 : 0);
            });
  }
}
