package io.idem.server.commands;

import io.idem.server.command.CommandRegistry;

/** Every command family of the server, registered once at start. */
public final class Commands {

  private Commands() {}

  public static CommandRegistry registry() {
    return new CommandRegistry()
        .register(ConnectionCommands.specs())
        .register(GenericCommands.specs())
        .register(BloomCommands.specs())
        .register(CuckooCommands.specs());
  }
}
