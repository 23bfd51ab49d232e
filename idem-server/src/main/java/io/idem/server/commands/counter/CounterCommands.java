package io.idem.server.commands.counter;

import static io.idem.server.dispatch.CommandSpec.Flag.DENYOOM;
import static io.idem.server.dispatch.CommandSpec.Flag.FAST;
import static io.idem.server.dispatch.CommandSpec.Flag.READONLY;
import static io.idem.server.dispatch.CommandSpec.Flag.WRITE;
import static io.idem.server.dispatch.CommandSpec.command;

import io.idem.server.dispatch.CommandSpec;
import java.util.List;

/**
 * Idem's COUNTER.* commands on windowed counter tables (values of {@link
 * io.idem.server.commands.counter.CounterCodec}): exact counts by name in time buckets, summed over
 * windows. n is the names in the command, r the table's resolutions, w the windows; a store read is
 * one row of 64 buckets.
 */
public final class CounterCommands {

  private CounterCommands() {}

  /** The family's registration list. */
  public static List<CommandSpec> specs() {
    return List.of(
        command("counter.reserve", -2, new CounterReserveCommand())
            .flags(WRITE, DENYOOM, FAST)
            .key()
            .build(),
        command("counter.incrby", -5, new CounterIncrByCommand())
            .pairsFrom(3)
            .flags(WRITE, DENYOOM)
            .key()
            .build(),
        command("counter.query", -6, new CounterQueryCommand()).flags(READONLY).key().build(),
        command("counter.allow", -6, new CounterAllowCommand())
            .atMost(8)
            .flags(WRITE, DENYOOM)
            .key()
            .build(),
        command("counter.info", 2, new CounterInfoCommand()).flags(READONLY, FAST).key().build());
  }
}
