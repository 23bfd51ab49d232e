package io.idem.server.commands.bloom;

import static io.idem.server.dispatch.CommandSpec.Flag.DENYOOM;
import static io.idem.server.dispatch.CommandSpec.Flag.FAST;
import static io.idem.server.dispatch.CommandSpec.Flag.READONLY;
import static io.idem.server.dispatch.CommandSpec.Flag.WRITE;
import static io.idem.server.dispatch.CommandSpec.command;

import io.idem.server.dispatch.CommandSpec;
import java.util.List;

/**
 * RedisBloom's BF.* commands on scalable Bloom filters (values of {@link
 * io.idem.server.commands.bloom.BloomCodec}). k is a layer's hash count, L the filter's layers, n
 * the items in the command.
 */
public final class BloomCommands {

  private BloomCommands() {}

  /** The family's registration list. */
  public static List<CommandSpec> specs() {
    return List.of(
        command("bf.reserve", -4, new BfReserveCommand())
            .atMost(7)
            .flags(WRITE, DENYOOM)
            .key()
            .build(),
        command("bf.add", 3, new BfAddCommand()).flags(WRITE, DENYOOM, FAST).key().build(),
        command("bf.madd", -3, new BfMaddCommand()).flags(WRITE, DENYOOM).key().build(),
        command("bf.insert", -4, new BfInsertCommand()).flags(WRITE, DENYOOM).key().build(),
        command("bf.exists", 3, new BfExistsCommand()).flags(READONLY, FAST).key().build(),
        command("bf.mexists", -3, new BfMexistsCommand()).flags(READONLY).key().build(),
        command("bf.info", -2, new BfInfoCommand()).atMost(3).flags(READONLY, FAST).key().build(),
        command("bf.card", 2, new BfCardCommand()).flags(READONLY, FAST).key().build(),
        command("bf.debug", 2, new BfDebugCommand()).flags(READONLY).key().build(),
        command("bf.scandump", 3, new BfScanDumpCommand()).flags(READONLY).key().build(),
        command("bf.loadchunk", 4, new BfLoadChunkCommand()).flags(WRITE, DENYOOM).key().build());
  }
}
