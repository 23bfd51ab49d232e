package io.idem.server.commands.distinct;

import static io.idem.server.dispatch.CommandSpec.Flag.DENYOOM;
import static io.idem.server.dispatch.CommandSpec.Flag.FAST;
import static io.idem.server.dispatch.CommandSpec.Flag.READONLY;
import static io.idem.server.dispatch.CommandSpec.Flag.WRITE;
import static io.idem.server.dispatch.CommandSpec.command;

import io.idem.server.dispatch.CommandSpec;
import java.util.List;

/**
 * Idem's windowed distinct counts, DISTINCT.* (values of {@link
 * io.idem.server.commands.distinct.DistinctCodec}). n is the pairs or names in the command, r the
 * table's resolutions, w the windows, b the buckets a window spans, m = 2^p registers.
 */
public final class DistinctCommands {

  private DistinctCommands() {}

  /** The family's registration list. */
  public static List<CommandSpec> specs() {
    return List.of(
        command("distinct.reserve", -2, new DistinctReserveCommand())
            .flags(WRITE, DENYOOM, FAST)
            .key()
            .group("distinct")
            .doc(
                "Creates an empty distinct table with its precision, resolutions and retentions",
                "O(1)")
            .build(),
        command("distinct.add", -5, new DistinctAddCommand())
            .pairsFrom(3)
            .flags(WRITE, DENYOOM)
            .key()
            .group("distinct")
            .doc(
                "Adds members to names at an event time, in every resolution that keeps it",
                "O(n * r) store reads and writes")
            .build(),
        command("distinct.count", -6, new DistinctCountCommand())
            .flags(READONLY)
            .key()
            .group("distinct")
            .doc(
                "Replies each name's estimated distinct members over windows ending at a time",
                "O(n * b) store reads, O(n * w * b) sketch unions of up to m registers each")
            .build(),
        command("distinct.info", 2, new DistinctInfoCommand())
            .flags(READONLY, FAST)
            .key()
            .group("distinct")
            .doc("Replies a table's resolutions, precision, error, memory and disk", "O(1)")
            .build());
  }
}
