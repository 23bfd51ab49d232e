package io.idem.server.commands.cuckoo;

import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * CF.RESERVE key capacity [BUCKETSIZE b] [MAXITERATIONS k] [EXPANSION e] — creates an empty filter
 * with 8-bit fingerprints, as RedisBloom's, sized so {@code capacity} items fit without growing.
 * Options may come in any order, each at most once; their errors come in RedisBloom's order
 * (MAXITERATIONS, BUCKETSIZE, EXPANSION, then the capacity's range). Unlike RedisBloom, which
 * ignores words it does not know, an unknown option is an error.
 */
public final class CfReserveCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    int argc = call.argc();
    long capacity = CuckooArgs.parseLong(call.arg(2), CuckooErrors.BAD_CAPACITY);
    int maxIterationsAt = 0;
    int bucketSizeAt = 0;
    int expansionAt = 0;
    for (int i = 3; i < argc; i += 2) {
      if (call.is(i, "MAXITERATIONS")) {
        maxIterationsAt = once(maxIterationsAt, i + 1);
      } else if (call.is(i, "BUCKETSIZE")) {
        bucketSizeAt = once(bucketSizeAt, i + 1);
      } else if (call.is(i, "EXPANSION")) {
        expansionAt = once(expansionAt, i + 1);
      } else {
        throw new CommandException(CuckooErrors.UNKNOWN_ARGUMENT);
      }
    }
    int maxIterations =
        option(
            call,
            maxIterationsAt,
            Cuckoos.DEFAULT_MAX_ITERATIONS,
            1,
            65535,
            CuckooErrors.BAD_MAX_ITERATIONS,
            CuckooErrors.MAX_ITERATIONS_RANGE);
    int bucketSize =
        option(
            call,
            bucketSizeAt,
            Cuckoos.DEFAULT_BUCKET_SIZE,
            1,
            255,
            CuckooErrors.BAD_BUCKET_SIZE,
            CuckooErrors.BUCKET_SIZE_RANGE);
    int expansion =
        option(
            call,
            expansionAt,
            Cuckoos.DEFAULT_EXPANSION,
            0,
            32768,
            CuckooErrors.BAD_EXPANSION,
            CuckooErrors.EXPANSION_RANGE);
    if (capacity < 2L * bucketSize) {
      throw new CommandException(CuckooErrors.CAPACITY_AT_LEAST);
    }
    if (capacity > Cuckoos.MAX_CAPACITY) {
      throw new CommandException(CuckooErrors.CAPACITY_AT_MOST);
    }
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              if (Cuckoos.filter(tx.entry()) != null) {
                throw new CommandException(CuckooErrors.ITEM_EXISTS);
              }
              Cuckoos.create(tx, call.engine(), capacity, bucketSize, maxIterations, expansion);
              return Reply.OK;
            });
  }

  private static int once(int seenAt, int valueAt) {
    if (seenAt != 0) {
      throw new CommandException(Errors.SYNTAX);
    }
    return valueAt;
  }

  private static int option(
      Call call, int at, int def, int min, int max, String unparsable, String outOfRange) {
    if (at == 0) {
      return def;
    }
    long v = CuckooArgs.parseLong(call.arg(at), unparsable);
    if (v < min || v > max) {
      throw new CommandException(outOfRange);
    }
    return (int) v;
  }
}
