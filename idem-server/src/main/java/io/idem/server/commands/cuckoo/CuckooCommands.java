package io.idem.server.commands.cuckoo;

import static io.idem.server.dispatch.CommandSpec.Flag.DENYOOM;
import static io.idem.server.dispatch.CommandSpec.Flag.FAST;
import static io.idem.server.dispatch.CommandSpec.Flag.READONLY;
import static io.idem.server.dispatch.CommandSpec.Flag.WRITE;
import static io.idem.server.dispatch.CommandSpec.command;

import io.idem.server.dispatch.CommandSpec;
import java.util.List;

/**
 * RedisBloom's CF.* commands on cuckoo filters (values of {@link
 * io.idem.server.commands.cuckoo.CuckooCodec}). T is a filter's sub-tables (at most 32), b its
 * bucket size, k its max iterations (kicks), n the items in the command, S the slots of the
 * sub-tables a command visits.
 */
public final class CuckooCommands {

  private CuckooCommands() {}

  /** The family's registration list. */
  public static List<CommandSpec> specs() {
    return List.of(
        command("cf.reserve", -3, new CfReserveCommand())
            .pairsFrom(3)
            .flags(WRITE, DENYOOM)
            .key()
            .build(),
        command("cf.add", 3, new CfAddCommand()).flags(WRITE, DENYOOM).key().build(),
        command("cf.addnx", 3, new CfAddNxCommand()).flags(WRITE, DENYOOM).key().build(),
        command("cf.insert", -4, new CfInsertCommand()).flags(WRITE, DENYOOM).key().build(),
        command("cf.insertnx", -4, new CfInsertNxCommand()).flags(WRITE, DENYOOM).key().build(),
        command("cf.exists", 3, new CfExistsCommand()).flags(READONLY, FAST).key().build(),
        command("cf.mexists", -3, new CfMexistsCommand()).flags(READONLY).key().build(),
        command("cf.count", 3, new CfCountCommand()).flags(READONLY, FAST).key().build(),
        command("cf.del", 3, new CfDelCommand()).flags(WRITE).key().build(),
        command("cf.compact", 2, new CfCompactCommand()).flags(WRITE).key().build(),
        command("cf.info", -2, new CfInfoCommand()).atMost(3).flags(READONLY, FAST).key().build(),
        command("cf.debug", 2, new CfDebugCommand()).flags(READONLY).key().build(),
        command("cf.scandump", 3, new CfScanDumpCommand()).flags(READONLY).key().build(),
        command("cf.loadchunk", 4, new CfLoadChunkCommand()).flags(WRITE, DENYOOM).key().build());
  }
}
