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
            .build(),
        command("distinct.add", -5, new DistinctAddCommand())
            .pairsFrom(3)
            .flags(WRITE, DENYOOM)
            .key()
            .build(),
        command("distinct.count", -6, new DistinctCountCommand()).flags(READONLY).key().build(),
        command("distinct.info", 2, new DistinctInfoCommand()).flags(READONLY, FAST).key().build());
  }
}
