package io.idem.cli;

import java.io.Console;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Whether standard error is a terminal, to decide if a progress line may be drawn there. */
final class Terminal {
  private Terminal() {}

  static boolean stderrIsTerminal() {
    // Console.isTerminal() asks about stdin and stdout, which are pipes or files exactly when
    // uniq is used on a large input; where /proc exists, ask about fd 2 itself.
    try {
      String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
      return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      Console console = System.console();
      return console != null && console.isTerminal();
    }
  }
}
