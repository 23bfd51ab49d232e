package io.idem.server.commands.idemkey;

import io.idem.core.dedup.IdempotencyTable;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Handler;
import io.idem.server.engine.Engine;
import io.idem.server.engine.Waits;
import io.idem.server.reply.Reply;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * IDEMKEY.BEGIN key id [FINGERPRINT fp] [LEASE duration] [WAIT duration] — begins a request under
 * its idempotency key: [started, token], [done, result], [in_progress, milliseconds its lease has
 * left] or [mismatch, nil]. With WAIT, an in-progress answer waits (off the event loop) until the
 * key is completed (done), abandoned or its lease ends (started: the caller takes over), or the
 * time is up (in_progress); WAIT 0 waits as long as that takes.
 */
public final class IdemKeyBeginCommand implements Handler {

  /** A begin's arguments; {@code lease} and {@code waitMillis} -1 when not given. */
  record Args(byte[] id, byte[] fingerprint, long lease, long waitMillis) {

    static Args parse(Call call) {
      byte[] id = IdemKeyArgs.id(call, 2);
      byte[] fp = new byte[0];
      long lease = -1;
      long wait = -1;
      boolean fpGiven = false;
      for (int i = 3; i < call.argc(); i += 2) {
        if (i + 1 >= call.argc()) {
          throw new CommandException(Errors.SYNTAX);
        }
        if (call.is(i, "FINGERPRINT") && !fpGiven) {
          fp = IdemKeyArgs.fingerprint(call, i + 1);
          fpGiven = true;
        } else if (call.is(i, "LEASE") && lease < 0) {
          lease = IdemKeyArgs.lease(call, i + 1);
        } else if (call.is(i, "WAIT") && wait < 0) {
          wait = call.is(i + 1, "0") ? 0 : IdemKeyArgs.duration(call, i + 1);
        } else {
          throw new CommandException(Errors.SYNTAX);
        }
      }
      return new Args(id, fp, lease, wait);
    }
  }

  @Override
  public Reply handle(Call call) {
    Args args = Args.parse(call);
    byte[] id = args.id();
    byte[] fp = args.fingerprint();
    long lease = args.lease();
    long wait = args.waitMillis();
    long seen = wait < 0 ? 0 : call.engine().waits().seen(call.arg(1), id);
    Attempt a = attempt(call.engine(), call.arg(1), id, fp, lease, () -> true);
    if (wait >= 0 && call.session().isApplier()) {
      // A record does not wait (a waiting begin writes plain ones, IdemKeyWaitFront): one that
      // asks to, from a transaction, answers as a transaction does, alike on every node.
      return a.begun() instanceof IdempotencyTable.InProgress ? Reply.NULL_ARRAY : a.reply();
    }
    if (wait < 0 || !(a.begun() instanceof IdempotencyTable.InProgress p)) {
      return a.reply();
    }
    Engine engine = call.engine();
    byte[] key = call.arg(1).clone();
    long[] leaseUntil = {p.leaseUntil()}; // the last try's: the timeout's answer
    byte[] fingerprint = fp;
    long leaseMillis = lease;
    return engine
        .waits()
        .await(
            WAITING,
            key,
            id,
            seen,
            p.leaseUntil(),
            wait,
            () -> IdemKeys.inProgress(Math.max(0, leaseUntil[0] - engine.now())),
            wanted -> {
              // Asked again under the key's lock: a waiter answered meanwhile (its timeout, EXEC,
              // a closed connection) must take nothing over, or the key would stay in progress
              // with no one on it.
              Attempt next = attempt(engine, key, id, fingerprint, leaseMillis, wanted);
              return switch (next.begun()) {
                case null -> new Waits.Outcome.Later(Long.MAX_VALUE);
                case IdempotencyTable.InProgress again -> {
                  leaseUntil[0] = again.leaseUntil();
                  yield new Waits.Outcome.Later(again.leaseUntil());
                }
                case IdempotencyTable.Started s ->
                    // If its client went away, the key it took over is free again for the next.
                    new Waits.Outcome.Deliver(
                        next.reply(), () -> giveBack(engine, key, id, s.token()));
                default -> new Waits.Outcome.Deliver(next.reply(), () -> {});
              };
            });
  }

  /** Waiting begins at once, on one server. */
  static final Waits.Limit WAITING =
      new Waits.Limit(10_000, "too many waiting begins (10000); retry without WAIT");

  private static void giveBack(Engine engine, byte[] key, byte[] id, long token) {
    try {
      engine.write(
          key,
          tx -> {
            IdempotencyTable t = tx.value(IdemKeyCodec.INSTANCE);
            if (t != null && t.abandon(IdemKeys.store(tx, engine.rows()), id, token)) {
              engine.waits().wake(key, id);
            }
            return null;
          });
    } catch (RuntimeException e) {
      // The table went: nothing is held.
    }
  }

  /** What a begin answered, and its reply; a begin not {@code wanted} answers null. */
  record Attempt(IdempotencyTable.@Nullable Begun begun, Reply reply) {}

  /**
   * Begins the id at the key's table, under its lock: nothing if not {@code wanted} there (a waiter
   * that gave up meanwhile must take over nothing). A lease of -1 is the table's.
   */
  static Attempt attempt(
      Engine engine, byte[] key, byte[] id, byte[] fp, long lease, BooleanSupplier wanted) {
    return engine.write(
        key,
        tx -> {
          IdempotencyTable t = IdemKeys.table(tx.entry());
          if (!wanted.getAsBoolean()) {
            return new Attempt(null, Reply.NULL);
          }
          long now = engine.now();
          long leaseMillis = lease < 0 ? t.settings().leaseMillis() : lease;
          IdempotencyTable.Begun b =
              IdemKeys.refusing(
                  () -> t.begin(IdemKeys.store(tx, engine.rows()), id, fp, leaseMillis, now));
          return new Attempt(b, IdemKeys.reply(b, now));
        });
  }
}
