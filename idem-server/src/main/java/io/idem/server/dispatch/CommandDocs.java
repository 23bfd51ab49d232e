package io.idem.server.dispatch;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What COMMAND DOCS says of each command (its group, complexity and summary), read once from {@code
 * commands.tsv} beside the command families: the registration lists then keep to a line a command,
 * as Kvrocks' tables do, and the texts stay in one place.
 */
public final class CommandDocs {

  /** One command's docs. */
  public record Doc(String group, String complexity, String summary) {}

  private static final String RESOURCE = "/io/idem/server/commands/commands.tsv";

  private static final Map<String, Doc> DOCS = load();

  private CommandDocs() {}

  /** The docs of the lower-case command name, or null if it has none. */
  public static @Nullable Doc of(String name) {
    return DOCS.get(name);
  }

  private static Map<String, Doc> load() {
    Map<String, Doc> docs = new HashMap<>();
    try (InputStream in = CommandDocs.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + RESOURCE);
      }
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      int n = 0;
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        n++;
        if (line.isEmpty() || line.startsWith("#")) {
          continue;
        }
        String[] f = line.split("\t", -1);
        if (f.length != 4 || docs.put(f[0], new Doc(f[1], f[2], f[3])) != null) {
          throw new IllegalStateException(
              RESOURCE
                  + " line "
                  + n
                  + ": not name, group,"
                  + " complexity, summary, or a name given twice");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Map.copyOf(docs);
  }
}
