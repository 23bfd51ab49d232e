package io.idem.server.commands.idemkey;

import io.idem.core.dedup.IdempotencyTable;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;

/**
 * IDEMKEY.PENDING key [COUNT n] — the keys in progress: [their number, [[id, began, lease_until],
 * ...]], up to COUNT of them (default 100), the soonest lease end first.
 */
public final class IdemKeyPendingCommand implements Handler {

  static final int DEFAULT_COUNT = 100;

  @Override
  public Reply handle(Call call) {
    int count = DEFAULT_COUNT;
    if (call.argc() == 4 && call.is(2, "COUNT")) {
      count = (int) IdemKeyArgs.positive(call, 3, IdemKeyArgs.MAX_COUNT, IdemKeyArgs.BAD_COUNT);
    } else if (call.argc() != 2) {
      throw new CommandException(Errors.SYNTAX);
    }
    int n = count;
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              IdempotencyTable t = IdemKeys.table(e);
              long now = call.engine().now();
              List<Reply> keys = new ArrayList<>();
              for (IdempotencyTable.Lease l : t.inProgress(now, n)) {
                keys.add(
                    Reply.array(
                        Reply.bulk(l.id()),
                        Reply.integer(l.began()),
                        Reply.integer(l.leaseUntil())));
              }
              return Reply.array(Reply.integer(t.inProgressCount(now)), Reply.array(keys));
            });
  }
}
