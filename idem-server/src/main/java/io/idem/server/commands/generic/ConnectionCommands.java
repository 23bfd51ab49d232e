package io.idem.server.commands.generic;

import static io.idem.server.dispatch.CommandSpec.Flag.ADMIN;
import static io.idem.server.dispatch.CommandSpec.Flag.FAST;
import static io.idem.server.dispatch.CommandSpec.Flag.LOADING;
import static io.idem.server.dispatch.CommandSpec.Flag.NO_AUTH;
import static io.idem.server.dispatch.CommandSpec.Flag.STALE;
import static io.idem.server.dispatch.CommandSpec.command;
import static io.idem.server.dispatch.Documented.doc;

import io.idem.server.dispatch.CommandSpec;
import io.idem.server.dispatch.Container;
import io.idem.server.dispatch.Container.Sub;
import java.util.List;
import java.util.Set;

/**
 * Connection commands: PING, ECHO, QUIT, SELECT, HELLO, AUTH, CLIENT, COMMAND. Arity and flags are
 * Redis 7's; NO_AUTH only where Redis allows the command before AUTH.
 */
public final class ConnectionCommands {

  private ConnectionCommands() {}

  static final Container CLIENT =
      new Container(
          "client",
          null,
          List.of(
              Sub.of(
                  "id",
                  2,
                  Set.of(LOADING, STALE),
                  "",
                  "Returns the connection's id.",
                  "O(1)",
                  Clients::id),
              Sub.of(
                  "info",
                  2,
                  Set.of(LOADING, STALE),
                  "",
                  "Returns the connection's CLIENT LIST line.",
                  "O(1)",
                  Clients::info),
              Sub.of(
                  "list",
                  -2,
                  Set.of(ADMIN, LOADING, STALE),
                  "[TYPE (NORMAL | MASTER | REPLICA | PUBSUB)] [ID client-id:integer...]",
                  "Lists the open connections, one line each.",
                  "O(N) where N is the number of connections",
                  Clients::list),
              Sub.of(
                  "kill",
                  -3,
                  Set.of(ADMIN, LOADING, STALE),
                  "(addr | ([ID client-id:integer] [TYPE (NORMAL | MASTER | REPLICA | PUBSUB)]"
                      + " [USER username] [ADDR addr] [LADDR laddr] [SKIPME (YES | NO)]"
                      + " [MAXAGE seconds:integer])...)",
                  "Closes the connections that match: by address (old form), or by filters.",
                  "O(N) where N is the number of connections",
                  Clients::kill),
              Sub.of(
                  "setname",
                  3,
                  Set.of(LOADING, STALE),
                  "connection-name",
                  "Names the connection; an empty name removes the name.",
                  "O(1)",
                  Clients::setName),
              Sub.of(
                  "getname",
                  2,
                  Set.of(LOADING, STALE),
                  "",
                  "Returns the connection's name, or nil.",
                  "O(1)",
                  Clients::getName),
              Sub.of(
                  "setinfo",
                  4,
                  Set.of(LOADING, STALE),
                  "(LIB-NAME libname | LIB-VER libver)",
                  "Accepts the client library's name or version (not kept yet).",
                  "O(1)",
                  Clients::setInfo)));

  static final Container COMMAND =
      new Container(
          "command",
          Introspection::all,
          List.of(
              Sub.of(
                  "count",
                  2,
                  Set.of(LOADING, STALE),
                  "",
                  "Returns the number of commands.",
                  "O(1)",
                  Introspection::count),
              Sub.of(
                  "info",
                  -2,
                  Set.of(LOADING, STALE),
                  "[command-name...]",
                  "Returns the details of the named commands, or of all.",
                  "O(N) where N is the number of commands looked up",
                  Introspection::info),
              Sub.of(
                  "docs",
                  -2,
                  Set.of(LOADING, STALE),
                  "[command-name...]",
                  "Returns the documentation of the named commands, or of all.",
                  "O(N) where N is the number of commands looked up",
                  Introspection::docs),
              Sub.of(
                  "list",
                  -2,
                  Set.of(LOADING, STALE),
                  "[FILTERBY (MODULE module-name | ACLCAT category | PATTERN pattern)]",
                  "Returns the names of the commands and subcommands, optionally filtered.",
                  "O(N) where N is the number of commands",
                  Introspection::list)));

  /** The family's registration list. */
  public static List<CommandSpec> specs() {
    return List.of(
        command("ping", -1, doc("[message]", ConnectionHandlers::ping))
            .atMost(2)
            .flags(FAST)
            .build(),
        command("echo", 2, doc("message", ConnectionHandlers::echo))
            .flags(LOADING, STALE, FAST)
            .build(),
        command("quit", -1, ConnectionHandlers::quit).flags(LOADING, STALE, FAST, NO_AUTH).build(),
        command("select", 2, doc("index:integer", ConnectionHandlers::select))
            .flags(LOADING, STALE, FAST)
            .build(),
        command(
                "hello",
                -1,
                doc(
                    "[protover:integer [AUTH username password] [SETNAME clientname]]",
                    ConnectionHandlers::hello))
            .flags(LOADING, STALE, FAST, NO_AUTH)
            .build(),
        command("auth", -2, doc("[username] password", ConnectionHandlers::auth))
            .flags(LOADING, STALE, FAST, NO_AUTH)
            .build(),
        command("client", -2, CLIENT).build(),
        command("command", -1, COMMAND).flags(LOADING, STALE).build());
  }
}
