package io.idem.server.commands.bloom;

import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Parse;

/** Numbers from client arguments, read as strictly as Redis reads them for modules. */
final class BloomArgs {

  private BloomArgs() {}

  /**
   * A 64-bit integer as Redis's string2ll reads it ({@link Parse#longOrNull}).
   *
   * @throws CommandException with {@code error} otherwise
   */
  static long parseLong(byte[] a, String error) {
    Long v = Parse.longOrNull(a);
    if (v == null) {
      throw new CommandException(error);
    }
    return v;
  }

  /**
   * A double as Redis reads one for a module ({@link Parse#doubleOrNull}).
   *
   * @throws CommandException with {@code error} otherwise
   */
  static double parseDouble(byte[] a, String error) {
    Double v = Parse.doubleOrNull(a);
    if (v == null) {
      throw new CommandException(error);
    }
    return v;
  }
}
