package io.idem.server.commands.idemkey;

import io.idem.core.dedup.DedupLimits;
import io.idem.core.dedup.IdempotencyTable;
import io.idem.core.dedup.IdempotencyTable.Settings;
import io.idem.server.commands.bloom.BloomCodec;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * IDEMKEY.RESERVE key retention [SLICES n] [CAPACITY n] [MAXRESULT bytes] [MAXPENDING n] [LEASE
 * duration] — creates an empty idempotency-key table: a done key's result is kept at least the
 * retention after it was stored, and at most one slice more.
 */
public final class IdemKeyReserveCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    long retention = IdemKeyArgs.duration(call, 2);
    int slices = DedupLimits.DEFAULT_SLICES;
    long capacity = DedupLimits.DEFAULT_CAPACITY;
    int maxResult = IdempotencyTable.DEFAULT_MAX_RESULT;
    int maxPending = IdempotencyTable.DEFAULT_MAX_PENDING;
    long lease = IdempotencyTable.DEFAULT_LEASE_MILLIS;
    boolean slicesGiven = false;
    java.util.Set<String> given = new java.util.HashSet<>();
    for (int i = 3; i < call.argc(); i += 2) {
      String name = new String(call.arg(i), java.nio.charset.StandardCharsets.US_ASCII);
      if (i + 1 >= call.argc() || !given.add(name.toUpperCase(java.util.Locale.ROOT))) {
        throw new CommandException(Errors.SYNTAX);
      }
      if (call.is(i, "SLICES")) {
        slices =
            (int)
                IdemKeyArgs.positive(
                    call, i + 1, DedupLimits.MAX_SLICES, DedupLimits.Problem.SLICES.message());
        slicesGiven = true;
      } else if (call.is(i, "CAPACITY")) {
        capacity =
            IdemKeyArgs.positive(
                call, i + 1, DedupLimits.MAX_CAPACITY, DedupLimits.Problem.CAPACITY.message());
      } else if (call.is(i, "MAXRESULT")) {
        maxResult =
            (int)
                IdemKeyArgs.positive(
                    call,
                    i + 1,
                    IdempotencyTable.MAX_RESULT_LIMIT,
                    "MAXRESULT must be from 1 to " + IdempotencyTable.MAX_RESULT_LIMIT + " bytes");
      } else if (call.is(i, "MAXPENDING")) {
        maxPending =
            (int)
                IdemKeyArgs.positive(
                    call,
                    i + 1,
                    IdempotencyTable.MAX_PENDING_LIMIT,
                    "MAXPENDING must be from 1 to " + IdempotencyTable.MAX_PENDING_LIMIT);
      } else if (call.is(i, "LEASE")) {
        lease = IdemKeyArgs.lease(call, i + 1);
      } else {
        throw new CommandException(Errors.SYNTAX);
      }
    }
    if (!slicesGiven) {
      slices = (int) Math.max(1, Math.min(slices, retention / 1000)); // slices of a second or more
    }
    Settings s = new Settings(retention, slices, capacity, maxResult, maxPending, lease);
    String problem = s.problem();
    if (problem != null) {
      throw CommandException.err(problem);
    }
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              if (tx.entry() != null) {
                IdemKeys.table(tx.entry()); // WRONGTYPE first
                throw new CommandException(IdemKeyArgs.EXISTS);
              }
              IdempotencyTable t =
                  IdempotencyTable.create(s, call.engine().now(), BloomCodec.STORAGE);
              if (!call.engine().memoryFits(t.memoryBytes())) {
                throw new CommandException(IdemKeyArgs.NO_MEMORY);
              }
              tx.create(IdemKeyCodec.INSTANCE, t, t.recipe());
              return Reply.OK;
            });
  }
}
