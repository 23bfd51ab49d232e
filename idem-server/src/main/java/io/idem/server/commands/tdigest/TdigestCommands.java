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
        write("tdigest.create", -2, new TdigestCreateCommand(), "Creates an empty t-digest", "O(1)")
            .pairsFrom(2)
            .atMost(4)
            .flags(WRITE, DENYOOM, FAST)
            .build(),
        write("tdigest.reset", 2, new TdigestResetCommand(), "Forgets every observation", "O(1)")
            .flags(WRITE, DENYOOM, FAST)
            .build(),
        write(
                "tdigest.add",
                -3,
                new TdigestAddCommand(),
                "Adds observations",
                "O(n), O(n + c log c) when the buffer fills")
            .build(),
        write(
                "tdigest.merge",
                -4,
                new TdigestMergeCommand(),
                "Sets a t-digest to the merge of t-digests",
                "O(k * c log c) for k sources")
            .flags(WRITE, DENYOOM, MOVABLEKEYS)
            .build(),
        read(
                "tdigest.min",
                2,
                TdigestQueryCommand.min(),
                "Replies the smallest observation",
                "O(1)")
            .build(),
        read("tdigest.max", 2, TdigestQueryCommand.max(), "Replies the largest observation", "O(1)")
            .build(),
        read(
                "tdigest.quantile",
                -3,
                TdigestQueryCommand.quantile(),
                "Replies the estimated value at each quantile",
                "O(c log c + n * c)")
            .build(),
        read(
                "tdigest.cdf",
                -3,
                TdigestQueryCommand.cdf(),
                "Replies the estimated fraction of observations at most each value",
                "O(c log c + n * c)")
            .build(),
        read(
                "tdigest.rank",
                -3,
                TdigestQueryCommand.rank(),
                "Replies the estimated number of observations below each value",
                "O(c log c + n * c)")
            .build(),
        read(
                "tdigest.revrank",
                -3,
                TdigestQueryCommand.revRank(),
                "Replies the estimated number of observations above each value",
                "O(c log c + n * c)")
            .build(),
        read(
                "tdigest.byrank",
                -3,
                TdigestQueryCommand.byRank(),
                "Replies the estimated value at each rank",
                "O(c log c + n * c)")
            .build(),
        read(
                "tdigest.byrevrank",
                -3,
                TdigestQueryCommand.byRevRank(),
                "Replies the estimated value at each reverse rank",
                "O(c log c + n * c)")
            .build(),
        read(
                "tdigest.trimmed_mean",
                4,
                TdigestQueryCommand.trimmedMean(),
                "Replies the mean of the observations between two quantiles",
                "O(c log c)")
            .flags(READONLY) // not in RedisBloom's fast category
            .build(),
        read(
                "tdigest.info",
                2,
                new TdigestInfoCommand(),
                "Replies a t-digest's compression, nodes and weights",
                "O(1)")
            .build());
  }

  private static CommandSpec.Builder write(
      String name, int arity, Handler handler, String summary, String complexity) {
    return command(name, arity, handler)
        .flags(WRITE, DENYOOM)
        .key()
        .group("tdigest")
        .doc(summary, complexity);
  }

  private static CommandSpec.Builder read(
      String name, int arity, Handler handler, String summary, String complexity) {
    return command(name, arity, handler)
        .flags(READONLY, FAST)
        .key()
        .group("tdigest")
        .doc(summary, complexity);
  }
}
