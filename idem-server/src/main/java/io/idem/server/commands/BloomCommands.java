package io.idem.server.commands;

import io.idem.server.command.CommandSpec;
import java.util.List;

/** RedisBloom's BF.* commands. */
public final class BloomCommands {

  private BloomCommands() {}

  /** The family's registration list. */
  public static List<CommandSpec> specs() {
    return List.of();
  }
}
