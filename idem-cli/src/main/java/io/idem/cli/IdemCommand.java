package io.idem.cli;

import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The top-level {@code idem} command: only dispatches to its subcommands. */
@Command(
    name = "idem",
    mixinStandardHelpOptions = true,
    version = "idem " + Main.VERSION,
    usageHelpAutoWidth = true,
    description = "Have I seen this before? Deduplication and sizing for event streams.",
    commandListHeading = "%nCommands:%n")
final class IdemCommand implements Callable<Integer> {
  @Spec @Nullable CommandSpec spec;

  @Override
  public Integer call() {
    CommandSpec s = spec;
    if (s == null) {
      throw new IllegalStateException("run through picocli: the spec is injected");
    }
    throw new ParameterException(
        s.commandLine(), "missing command: one of " + String.join(", ", s.subcommands().keySet()));
  }
}
