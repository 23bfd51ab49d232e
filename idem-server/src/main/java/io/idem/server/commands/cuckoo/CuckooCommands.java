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
            .group("cf")
            .doc("Creates an empty cuckoo filter for the given capacity", "O(1) plus zeroed memory")
            .build(),
        command("cf.add", 3, new CfAddCommand())
            .flags(WRITE, DENYOOM)
            .key()
            .group("cf")
            .doc(
                "Adds one more copy of an item, creating the filter if the key is free",
                "O(T * b + k), plus zeroed memory when it grows")
            .build(),
        command("cf.addnx", 3, new CfAddNxCommand())
            .flags(WRITE, DENYOOM)
            .key()
            .group("cf")
            .doc(
                "Adds an item unless it may be present, creating the filter if the key is free",
                "O(T * b + k), plus zeroed memory when it grows")
            .build(),
        command("cf.insert", -4, new CfInsertCommand())
            .flags(WRITE, DENYOOM)
            .key()
            .group("cf")
            .doc(
                "Adds one more copy of each item, creating the filter as configured if allowed",
                "O(n * (T * b + k))")
            .build(),
        command("cf.insertnx", -4, new CfInsertNxCommand())
            .flags(WRITE, DENYOOM)
            .key()
            .group("cf")
            .doc(
                "Adds each item unless it may be present, creating the filter if allowed",
                "O(n * (T * b + k))")
            .build(),
        command("cf.exists", 3, new CfExistsCommand())
            .flags(READONLY, FAST)
            .key()
            .group("cf")
            .doc("Tells whether an item may be present", "O(T * b)")
            .build(),
        command("cf.mexists", -3, new CfMexistsCommand())
            .flags(READONLY)
            .key()
            .group("cf")
            .doc("Tells, for each item, whether it may be present", "O(n * T * b)")
            .build(),
        command("cf.count", 3, new CfCountCommand())
            .flags(READONLY, FAST)
            .key()
            .group("cf")
            .doc("Counts the copies of an item's fingerprint in its buckets", "O(T * b)")
            .build(),
        command("cf.del", 3, new CfDelCommand())
            .flags(WRITE)
            .key()
            .group("cf")
            .doc(
                "Removes one copy of an item added before",
                "O(T * b), plus O(S) when it triggers a compaction")
            .build(),
        command("cf.compact", 2, new CfCompactCommand())
            .flags(WRITE)
            .key()
            .group("cf")
            .doc(
                "Moves items into older sub-tables and drops the newest that empty", "O(S * T * b)")
            .build(),
        command("cf.info", -2, new CfInfoCommand())
            .atMost(3)
            .flags(READONLY, FAST)
            .key()
            .group("cf")
            .doc("Returns a filter's size, buckets, sub-tables, items and settings", "O(T)")
            .build(),
        command("cf.debug", 2, new CfDebugCommand())
            .flags(READONLY)
            .key()
            .group("cf")
            .doc("Describes a filter, as RedisBloom's CF.DEBUG", "O(1)")
            .build(),
        command("cf.scandump", 3, new CfScanDumpCommand())
            .flags(READONLY)
            .key()
            .group("cf")
            .doc("Returns the next chunk of a filter's dump", "O(chunk), at most 16 MiB")
            .build(),
        command("cf.loadchunk", 4, new CfLoadChunkCommand())
            .flags(WRITE, DENYOOM)
            .key()
            .group("cf")
            .doc(
                "Restores a chunk of a filter's dump made by CF.SCANDUMP",
                "O(chunk); the header allocates the whole filter")
            .build());
  }
}
