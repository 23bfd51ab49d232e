package io.idem.server.commands.idemkey;

import static io.idem.server.dispatch.CommandSpec.Flag.DENYOOM;
import static io.idem.server.dispatch.CommandSpec.Flag.FAST;
import static io.idem.server.dispatch.CommandSpec.Flag.READONLY;
import static io.idem.server.dispatch.CommandSpec.Flag.WRITE;
import static io.idem.server.dispatch.CommandSpec.command;

import io.idem.server.dispatch.CommandSpec;
import java.util.List;

/**
 * Idem's IDEMKEY.* commands on idempotency-key tables (values of {@link IdemKeyCodec}): an API's
 * requests begun once under their keys, their first result stored and replayed to every retry. S is
 * the live slices (at most the table's slices + 1): a begin of a key not in progress probes each
 * one's filter and reads a row for each that may hold it.
 */
public final class IdemKeyCommands {

  private IdemKeyCommands() {}

  /** The family's registration list. */
  public static List<CommandSpec> specs() {
    return List.of(
        command("idemkey.reserve", -3, new IdemKeyReserveCommand())
            .flags(WRITE, DENYOOM)
            .key()
            .build(),
        command("idemkey.begin", -3, new IdemKeyBeginCommand())
            .flags(WRITE, DENYOOM, FAST)
            .key()
            .logFront(IdemKeyWaitFront.INSTANCE)
            .build(),
        command("idemkey.complete", 5, new IdemKeyCompleteCommand())
            .flags(WRITE, DENYOOM, FAST)
            .key()
            .build(),
        command("idemkey.abandon", 4, new IdemKeyAbandonCommand()).flags(WRITE, FAST).key().build(),
        command("idemkey.get", 3, new IdemKeyGetCommand()).flags(READONLY, FAST).key().build(),
        command("idemkey.pending", -2, new IdemKeyPendingCommand()).flags(READONLY).key().build(),
        command("idemkey.info", 2, new IdemKeyInfoCommand()).flags(READONLY).key().build());
  }
}
