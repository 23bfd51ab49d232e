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
            .build(),
        command("cms.initbyprob", 4, CmsInitCommand.byProbability())
            .flags(WRITE, DENYOOM, FAST)
            .key()
            .build(),
        command("cms.incrby", -4, new CmsIncrByCommand())
            .pairsFrom(2)
            .flags(WRITE, DENYOOM)
            .key()
            .build(),
        command("cms.query", -3, new CmsQueryCommand()).flags(READONLY).key().build(),
        command("cms.merge", -4, new CmsMergeCommand())
            .flags(WRITE, DENYOOM, MOVABLEKEYS)
            .key()
            .build(),
        command("cms.info", 2, new CmsInfoCommand()).flags(READONLY, FAST).key().build());
  }
}
