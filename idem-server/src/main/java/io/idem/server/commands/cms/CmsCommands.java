package io.idem.server.commands.cms;

import static io.idem.server.dispatch.CommandSpec.Flag.DENYOOM;
import static io.idem.server.dispatch.CommandSpec.Flag.FAST;
import static io.idem.server.dispatch.CommandSpec.Flag.MOVABLEKEYS;
import static io.idem.server.dispatch.CommandSpec.Flag.READONLY;
import static io.idem.server.dispatch.CommandSpec.Flag.WRITE;
import static io.idem.server.dispatch.CommandSpec.command;

import io.idem.server.dispatch.CommandSpec;
import java.util.List;

/**
 * RedisBloom's CMS.* commands on count-min sketches (values of {@link
 * io.idem.server.commands.cms.CmsCodec}). d is a sketch's depth, w its width, n the items in the
 * command, k the sources of a merge.
 */
public final class CmsCommands {

  private CmsCommands() {}

  /** The family's registration list. */
  public static List<CommandSpec> specs() {
    return List.of(
        command("cms.initbydim", 4, CmsInitCommand.byDimensions())
            .flags(WRITE, DENYOOM, FAST)
            .key()
            .group("cms")
            .doc("Creates an empty count-min sketch of the given width and depth", "O(w * d)")
            .build(),
        command("cms.initbyprob", 4, CmsInitCommand.byProbability())
            .flags(WRITE, DENYOOM, FAST)
            .key()
            .group("cms")
            .doc(
                "Creates an empty count-min sketch for an overestimate and its probability",
                "O(w * d)")
            .build(),
        command("cms.incrby", -4, new CmsIncrByCommand())
            .pairsFrom(2)
            .flags(WRITE, DENYOOM)
            .key()
            .group("cms")
            .doc("Adds increments to items and replies their estimates", "O(n * d)")
            .build(),
        command("cms.query", -3, new CmsQueryCommand())
            .flags(READONLY)
            .key()
            .group("cms")
            .doc("Replies the estimated count of items", "O(n * d)")
            .build(),
        command("cms.merge", -4, new CmsMergeCommand())
            .flags(WRITE, DENYOOM, MOVABLEKEYS)
            .key()
            .group("cms")
            .doc("Sets a sketch to the weighted sum of sketches", "O(k * w * d)")
            .build(),
        command("cms.info", 2, new CmsInfoCommand())
            .flags(READONLY, FAST)
            .key()
            .group("cms")
            .doc("Replies a sketch's width, depth and total count", "O(1)")
            .build());
  }
}
