package io.idem.server.commands;

import io.idem.server.command.CommandSpec;
import java.util.List;

/** Connection commands: PING, ECHO, QUIT, SELECT, HELLO, AUTH, CLIENT, COMMAND. */
public final class ConnectionCommands {

  private ConnectionCommands() {}

  /** The family's registration list. */
  public static List<CommandSpec> specs() {
    return List.of();
  }
}
