package io.idem.server.request;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One request as it came off the wire: the command name and its arguments, each binary-safe.
 * Argument 0 is the name.
 */
public record Command(byte[][] args) {

  public Command {
    if (args.length == 0) {
      throw new IllegalArgumentException("a command has at least its name");
    }
  }

  public static Command of(String... words) {
    byte[][] args = new byte[words.length][];
    for (int i = 0; i < words.length; i++) {
      args[i] = words[i].getBytes(StandardCharsets.UTF_8);
    }
    return new Command(args);
  }

  /** The name in lower case, the registry's key. */
  public String name() {
    return new String(args[0], StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
  }

  /** Arguments including the name. */
  public int size() {
    return args.length;
  }

  public byte[] arg(int i) {
    return args[i];
  }

  public String argString(int i) {
    return new String(args[i], StandardCharsets.UTF_8);
  }

  /** Whether argument i equals the ASCII keyword, ignoring case. */
  public boolean is(int i, String keyword) {
    byte[] a = args[i];
    if (a.length != keyword.length()) {
      return false;
    }
    for (int j = 0; j < a.length; j++) {
      int c = a[j];
      int k = keyword.charAt(j);
      if (c != k && Character.toLowerCase(c) != Character.toLowerCase(k)) {
        return false;
      }
    }
    return true;
  }
}
