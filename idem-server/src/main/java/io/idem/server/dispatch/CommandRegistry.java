package io.idem.server.dispatch;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Every command the server knows, by lower-case name. Filled once at start, then read-only. */
public final class CommandRegistry {

  private final Map<String, CommandSpec> specs = new LinkedHashMap<>();

  /** Adds one family's registration list. */
  public CommandRegistry register(List<CommandSpec> family) {
    for (CommandSpec spec : family) {
      if (specs.putIfAbsent(spec.name(), spec) != null) {
        throw new IllegalStateException("command registered twice: " + spec.name());
      }
    }
    return this;
  }

  public @Nullable CommandSpec get(String lowerCaseName) {
    return specs.get(lowerCaseName);
  }

  public Collection<CommandSpec> all() {
    return Collections.unmodifiableCollection(specs.values());
  }

  public int size() {
    return specs.size();
  }
}
