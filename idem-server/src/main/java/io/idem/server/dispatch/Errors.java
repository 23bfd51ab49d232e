package io.idem.server.dispatch;

import io.idem.server.engine.WrongTypeException;
import io.idem.server.request.Command;

/** Redis's own error texts that several commands share, verbatim. */
public final class Errors {

  public static final String WRONGTYPE = WrongTypeException.REPLY;
  public static final String SYNTAX = "ERR syntax error";
  public static final String CROSSSLOT = "CROSSSLOT Keys in request don't hash to the same slot";
  public static final String NOT_INTEGER = "ERR value is not an integer or out of range";
  public static final String NOT_FLOAT = "ERR value is not a valid float";
  public static final String NO_SUCH_KEY = "ERR no such key";
  public static final String NOAUTH = "NOAUTH Authentication required.";
  public static final String OOM = "OOM command not allowed when used memory > 'maxmemory'.";

  private Errors() {}

  /** {@code ERR wrong number of arguments for 'bf.add' command}. */
  public static String wrongArity(String name) {
    return "ERR wrong number of arguments for '" + name + "' command";
  }

  /** Redis 7's text for an unknown command, with the first arguments quoted. */
  public static String unknownCommand(Command command) {
    StringBuilder b = new StringBuilder("ERR unknown command '");
    appendClipped(b, command.argString(0));
    b.append("', with args beginning with: ");
    for (int i = 1; i < command.size() && b.length() < 128; i++) {
      b.append('\'');
      appendClipped(b, command.argString(i));
      b.append("' ");
    }
    return b.toString();
  }

  /**
   * Redis's text for an unknown subcommand: {@code ERR unknown subcommand 'x'. Try CLIENT HELP.}
   */
  public static String unknownSubcommand(String sub, String command) {
    StringBuilder b = new StringBuilder("ERR unknown subcommand '");
    appendClipped(b, sub);
    return b.append("'. Try ").append(command).append(" HELP.").toString();
  }

  // Error replies are one line: control characters from a client's bytes must not split them.
  private static void appendClipped(StringBuilder b, String s) {
    int n = Math.min(s.length(), 128);
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      b.append(c < ' ' ? ' ' : c);
    }
  }
}
