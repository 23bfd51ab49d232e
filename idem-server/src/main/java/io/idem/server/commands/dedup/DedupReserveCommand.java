package io.idem.server.commands.dedup;

import io.idem.core.dedup.DedupLimits;
import io.idem.core.dedup.DedupSnapshot;
import io.idem.core.dedup.DedupTable;
import io.idem.core.dedup.DedupTable.Mode;
import io.idem.core.dedup.DedupTable.Params;
import io.idem.core.dedup.TimeSlices;
import io.idem.server.commands.bloom.BloomCodec;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * DEDUP.RESERVE key window [EXACT | FILTER error_rate capacity | RECENT slots] [SLICES n] [CAPACITY
 * n] — creates an empty dedup table. EXACT is the default; CAPACITY (exact only) sizes the
 * in-memory index for the claims expected per window, which grows past it if needed.
 */
public final class DedupReserveCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    int argc = call.argc();
    long window = DedupArgs.windowMillis(call.arg(2));
    Mode mode = Mode.EXACT;
    long capacity = DedupArgs.DEFAULT_CAPACITY;
    double error = DedupTable.EXACT_INDEX_ERROR;
    long slots = 0;
    int i = 3;
    if (i < argc && call.is(i, "EXACT")) {
      i++;
    } else if (i < argc && call.is(i, "FILTER")) {
      if (i + 2 >= argc) {
        throw new CommandException(Errors.SYNTAX);
      }
      mode = Mode.FILTER;
      error = DedupArgs.errorRate(call.arg(i + 1));
      capacity =
          DedupArgs.positive(call.arg(i + 2), DedupArgs.MAX_CAPACITY, DedupArgs.BAD_CAPACITY);
      i += 3;
    } else if (i < argc && call.is(i, "RECENT")) {
      if (i + 1 >= argc) {
        throw new CommandException(Errors.SYNTAX);
      }
      mode = Mode.RECENT;
      slots = DedupArgs.positive(call.arg(i + 1), DedupArgs.MAX_SLOTS, DedupArgs.BAD_SLOTS);
      i += 2;
    }
    int slices = DedupArgs.DEFAULT_SLICES;
    boolean slicesGiven = false;
    boolean capacityGiven = false;
    for (; i < argc; i += 2) {
      if (i + 1 >= argc) {
        throw new CommandException(Errors.SYNTAX);
      }
      if (call.is(i, "SLICES") && !slicesGiven) {
        slices =
            (int) DedupArgs.positive(call.arg(i + 1), DedupArgs.MAX_SLICES, DedupArgs.BAD_SLICES);
        slicesGiven = true;
      } else if (call.is(i, "CAPACITY") && mode == Mode.EXACT && !capacityGiven) {
        capacity =
            DedupArgs.positive(call.arg(i + 1), DedupArgs.MAX_CAPACITY, DedupArgs.BAD_CAPACITY);
        capacityGiven = true;
      } else {
        throw new CommandException(Errors.SYNTAX);
      }
    }
    if (!slicesGiven) {
      // A short window keeps slices of at least a second.
      slices = (int) Math.min(slices, window / 1000);
    }
    Params p = new Params(mode, window, slices, capacity, error, slots);
    DedupLimits.Problem bad = DedupLimits.check(p);
    if (bad != null) {
      throw new CommandException(DedupArgs.text(bad));
    }
    if (!call.engine().memoryFits(DedupTable.initialBytes(p))) {
      throw new CommandException(DedupArgs.NO_MEMORY);
    }
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              if (tx.entry() != null) {
                Dedups.table(tx.entry()); // WRONGTYPE first
                throw new CommandException(DedupArgs.EXISTS);
              }
              long now = call.engine().now();
              long created = TimeSlices.createdAt(p, now);
              tx.create(
                  DedupCodec.INSTANCE,
                  DedupTable.create(p, created, BloomCodec.STORAGE),
                  DedupSnapshot.recipe(p, created));
              return Reply.OK;
            });
  }
}
