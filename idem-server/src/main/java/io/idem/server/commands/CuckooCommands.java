package io.idem.server.commands;

import io.idem.server.command.CommandSpec;
import java.util.List;

/** RedisBloom's CF.* commands. */
public final class CuckooCommands {

  private CuckooCommands() {}

  /** The family's registration list. */
  public static List<CommandSpec> specs() {
    return List.of();
  }
}
