package io.idem.server.dispatch;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Every command the server knows, by lower-case name. Filled once at start, then read-only. */
public final class CommandRegistry {

  private final Map<String, CommandSpec> specs = new LinkedHashMap<>();

  /**
   * The specs again, open-addressed by a case-blind hash of the name's bytes: the dispatcher finds
   * a command from its name as it came off the wire, without making a lower-case string of it.
   */
  private CommandSpec[] table = new CommandSpec[0];

  private byte[][] names = new byte[0][];

  /** Adds one family's registration list. */
  public CommandRegistry register(List<CommandSpec> family) {
    for (CommandSpec spec : family) {
      if (specs.putIfAbsent(spec.name(), spec) != null) {
        throw new IllegalStateException("command registered twice: " + spec.name());
      }
    }
    index();
    return this;
  }

  private void index() {
    int size = Integer.highestOneBit(Math.max(16, specs.size() * 4));
    table = new CommandSpec[size];
    names = new byte[size][];
    for (CommandSpec spec : specs.values()) {
      byte[] name = spec.name().getBytes(StandardCharsets.ISO_8859_1);
      int i = hash(name) & (size - 1);
      while (table[i] != null) {
        i = (i + 1) & (size - 1);
      }
      table[i] = spec;
      names[i] = name;
    }
  }

  /** A hash of the bytes with ASCII letters folded to lower case. */
  private static int hash(byte[] b) {
    int h = 0;
    for (byte x : b) {
      h = 31 * h + lower(x);
    }
    return h ^ (h >>> 16);
  }

  private static int lower(byte x) {
    return x >= 'A' && x <= 'Z' ? x + 32 : x;
  }

  public @Nullable CommandSpec get(String lowerCaseName) {
    return specs.get(lowerCaseName);
  }

  /** The command named by {@code name} in any case, as a client sent it; null if none. */
  public @Nullable CommandSpec get(byte[] name) {
    int mask = table.length - 1;
    for (int i = hash(name) & mask; table[i] != null; i = (i + 1) & mask) {
      if (equalsFolded(names[i], name)) {
        return table[i];
      }
    }
    return null;
  }

  /** Whether {@code wire} is the lower-case {@code name} in any case. */
  private static boolean equalsFolded(byte[] name, byte[] wire) {
    if (name.length != wire.length) {
      return false;
    }
    for (int i = 0; i < name.length; i++) {
      if (name[i] != lower(wire[i])) {
        return false;
      }
    }
    return true;
  }

  public Collection<CommandSpec> all() {
    return Collections.unmodifiableCollection(specs.values());
  }

  public int size() {
    return specs.size();
  }
}
