package io.idem.server.commands;

import io.idem.server.command.CommandSpec;
import java.util.List;

/**
 * Redis's keyspace commands (DEL, EXPIRE, SCAN, ...) and server commands (INFO, CONFIG, SAVE, ...).
 */
public final class GenericCommands {

  private GenericCommands() {}

  /** The family's registration list. */
  public static List<CommandSpec> specs() {
    return List.of();
  }
}
