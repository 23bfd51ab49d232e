package io.idem.server.commands.tdigest;

import static io.idem.server.dispatch.CommandSpec.Flag.DENYOOM;
import static io.idem.server.dispatch.CommandSpec.Flag.FAST;
import static io.idem.server.dispatch.CommandSpec.Flag.MOVABLEKEYS;
import static io.idem.server.dispatch.CommandSpec.Flag.READONLY;
import static io.idem.server.dispatch.CommandSpec.Flag.WRITE;
import static io.idem.server.dispatch.CommandSpec.command;

import io.idem.server.dispatch.CommandSpec;
import io.idem.server.dispatch.Handler;
import java.util.List;

/**
 * RedisBloom's TDIGEST.* commands on merging t-digests (values of {@link
 * io.idem.server.commands.tdigest.TdigestCodec}). n is the values in the command, c the
 * compression; a digest holds at most 6c + 10 nodes, and a query that compresses first costs O(c
 * log c).
 */
public final class TdigestCommands {

  private TdigestCommands() {}

  /** The family's registration list. */
  public static List<CommandSpec> specs() {
    return List.of(
        write("tdigest.create", -2, new TdigestCreateCommand())
            .pairsFrom(2)
            .atMost(4)
            .flags(WRITE, DENYOOM, FAST)
            .build(),
        write("tdigest.reset", 2, new TdigestResetCommand()).flags(WRITE, DENYOOM, FAST).build(),
        write("tdigest.add", -3, new TdigestAddCommand()).build(),
        write("tdigest.merge", -4, new TdigestMergeCommand())
            .flags(WRITE, DENYOOM, MOVABLEKEYS)
            .build(),
        read("tdigest.min", 2, TdigestQueryCommand.min()).build(),
        read("tdigest.max", 2, TdigestQueryCommand.max()).build(),
        read("tdigest.quantile", -3, TdigestQueryCommand.quantile()).build(),
        read("tdigest.cdf", -3, TdigestQueryCommand.cdf()).build(),
        read("tdigest.rank", -3, TdigestQueryCommand.rank()).build(),
        read("tdigest.revrank", -3, TdigestQueryCommand.revRank()).build(),
        read("tdigest.byrank", -3, TdigestQueryCommand.byRank()).build(),
        read("tdigest.byrevrank", -3, TdigestQueryCommand.byRevRank()).build(),
        read("tdigest.trimmed_mean", 4, TdigestQueryCommand.trimmedMean())
            .flags(READONLY) // not in RedisBloom's fast category
            .build(),
        read("tdigest.info", 2, new TdigestInfoCommand()).build());
  }

  private static CommandSpec.Builder write(String name, int arity, Handler handler) {
    return command(name, arity, handler).flags(WRITE, DENYOOM).key();
  }

  private static CommandSpec.Builder read(String name, int arity, Handler handler) {
    return command(name, arity, handler).flags(READONLY, FAST).key();
  }
}
