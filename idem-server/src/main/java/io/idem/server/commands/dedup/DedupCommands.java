package io.idem.server.commands.dedup;

import static io.idem.server.dispatch.CommandSpec.Flag.DENYOOM;
import static io.idem.server.dispatch.CommandSpec.Flag.FAST;
import static io.idem.server.dispatch.CommandSpec.Flag.READONLY;
import static io.idem.server.dispatch.CommandSpec.Flag.WRITE;
import static io.idem.server.dispatch.CommandSpec.command;

import io.idem.server.dispatch.CommandSpec;
import java.util.List;

/**
 * Idem's DEDUP.* commands on dedup tables (values of {@link
 * io.idem.server.commands.dedup.DedupCodec}): claims with owners over a sliding window. S is the
 * live slices (at most the table's slices + 1), n the pairs in the command; EXACT adds one store
 * read for each id its in-memory index may hold (up to about 0.5 % of new ids per live slice, and
 * every repeat).
 */
public final class DedupCommands {

  private DedupCommands() {}

  /** The family's registration list. */
  public static List<CommandSpec> specs() {
    return List.of(
        command("dedup.reserve", -3, new DedupReserveCommand()).flags(WRITE, DENYOOM).key().build(),
        command("dedup.claim", -4, new DedupClaimCommand())
            .flags(WRITE, DENYOOM, FAST)
            .key()
            .build(),
        command("dedup.mclaim", -5, new DedupMclaimCommand()).flags(WRITE, DENYOOM).key().build(),
        command("dedup.release", 4, new DedupReleaseCommand()).flags(WRITE, FAST).key().build(),
        command("dedup.exists", 3, new DedupExistsCommand()).flags(READONLY, FAST).key().build(),
        command("dedup.info", 2, new DedupInfoCommand()).flags(READONLY, FAST).key().build(),
        command("dedup.slices", 2, new DedupSlicesCommand()).flags(READONLY, FAST).key().build());
  }
}
