package io.idem.server.commands.hll;

import static io.idem.server.dispatch.CommandSpec.Flag.DENYOOM;
import static io.idem.server.dispatch.CommandSpec.Flag.FAST;
import static io.idem.server.dispatch.CommandSpec.Flag.READONLY;
import static io.idem.server.dispatch.CommandSpec.Flag.WRITE;
import static io.idem.server.dispatch.CommandSpec.command;

import io.idem.server.dispatch.CommandSpec;
import java.util.List;

/**
 * Redis's PF* commands on HyperLogLogs (values of {@link io.idem.server.commands.hll.HllCodec}). n
 * is the elements in the command, k its keys; m = 16384 registers.
 */
public final class HyperLogLogCommands {

  private HyperLogLogCommands() {}

  /** The family's registration list. */
  public static List<CommandSpec> specs() {
    return List.of(
        command("pfadd", -2, new PfAddCommand()).flags(WRITE, DENYOOM, FAST).key().build(),
        command("pfcount", -2, new PfCountCommand()).flags(READONLY).keys(1, -1, 1).build(),
        command("pfmerge", -2, new PfMergeCommand()).flags(WRITE, DENYOOM).keys(1, -1, 1).build());
  }
}
