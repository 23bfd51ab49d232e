package io.idem.server.commands.topk;

import static io.idem.server.dispatch.CommandSpec.Flag.DENYOOM;
import static io.idem.server.dispatch.CommandSpec.Flag.FAST;
import static io.idem.server.dispatch.CommandSpec.Flag.READONLY;
import static io.idem.server.dispatch.CommandSpec.Flag.WRITE;
import static io.idem.server.dispatch.CommandSpec.command;

import io.idem.server.dispatch.CommandSpec;
import java.util.List;

/**
 * RedisBloom's TOPK.* commands on HeavyKeeper top-k sketches (values of {@link
 * io.idem.server.commands.topk.TopkCodec}). n is the items in the command, d the sketch's depth, k
 * its heap's size, i an increment.
 */
public final class TopkCommands {

  private TopkCommands() {}

  /** The family's registration list. */
  public static List<CommandSpec> specs() {
    return List.of(
        command("topk.reserve", -3, new TopkReserveCommand())
            .flags(WRITE, DENYOOM, FAST)
            .key()
            .build(),
        command("topk.add", -3, TopkAddCommand.add()).flags(WRITE, DENYOOM).key().build(),
        command("topk.incrby", -4, TopkAddCommand.incrBy())
            .pairsFrom(2)
            .flags(WRITE, DENYOOM)
            .key()
            .build(),
        command("topk.query", -3, TopkReadCommand.query()).flags(READONLY).key().build(),
        command("topk.count", -3, TopkReadCommand.count()).flags(READONLY).key().build(),
        command("topk.list", -2, new TopkListCommand()).atMost(3).flags(READONLY).key().build(),
        command("topk.info", 2, new TopkInfoCommand()).flags(READONLY, FAST).key().build());
  }
}
