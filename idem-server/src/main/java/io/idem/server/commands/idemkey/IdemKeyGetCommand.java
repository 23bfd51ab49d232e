package io.idem.server.commands.idemkey;

import io.idem.core.dedup.IdempotencyTable;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.util.List;

/**
 * IDEMKEY.GET key id — the key's state: nil if it is free (never begun, abandoned, its lease ran
 * out, or its result past the retention); else a map with state (in_progress or done), fingerprint,
 * began, and lease_until, or completed and result. No token: a reader cannot complete.
 */
public final class IdemKeyGetCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    byte[] id = IdemKeyArgs.id(call, 2);
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              IdempotencyTable t = IdemKeys.table(e);
              long now = call.engine().now();
              IdempotencyTable.Lease l = t.inProgress(id, now);
              if (l != null) {
                return Reply.map(
                    List.of(
                        Reply.bulk("state"),
                        IdemKeys.IN_PROGRESS,
                        Reply.bulk("fingerprint"),
                        Reply.bulk(l.fingerprint()),
                        Reply.bulk("began"),
                        Reply.integer(l.began()),
                        Reply.bulk("lease_until"),
                        Reply.integer(l.leaseUntil())));
              }
              IdempotencyTable.Completed d =
                  IdemKeys.refusing(
                      () -> t.done(IdemKeys.reading(call.engine().rows(), e.id()), id, now));
              if (d == null) {
                return Reply.NULL;
              }
              return Reply.map(
                  List.of(
                      Reply.bulk("state"),
                      IdemKeys.DONE,
                      Reply.bulk("fingerprint"),
                      Reply.bulk(d.fingerprint()),
                      Reply.bulk("began"),
                      Reply.integer(d.began()),
                      Reply.bulk("completed"),
                      Reply.integer(d.completed()),
                      Reply.bulk("result"),
                      Reply.bulk(d.result())));
            });
  }
}
