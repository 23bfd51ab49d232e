package io.idem.cli;

import io.idem.core.filter.BloomFilter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/** The {@code idem} entry point: parses the command line and exits with the command's code. */
public final class Main {
  /** The version {@code idem --version} prints; kept equal to the Maven project version. */
  public static final String VERSION = "0.1.0-SNAPSHOT";

  /** Exit code of a usage error (picocli's convention, and the shell's for bad arguments). */
  static final int USAGE = CommandLine.ExitCode.USAGE;

  private Main() {}

  public static void main(String[] args) {
    System.exit(run(System.in, new FileOutputStream(FileDescriptor.out), System.err, args));
  }

  /** Runs one command line against the given streams; returns the exit code. */
  static int run(InputStream in, OutputStream out, PrintStream err, String... args) {
    String probeError = BloomFilter.probeModeError(); // every command may build a Bloom filter
    if (probeError != null) {
      err.println("idem: " + probeError);
      err.flush();
      return USAGE;
    }
    SizeCommand size = new SizeCommand();
    size.out = out;
    size.err = err;
    UniqCommand uniq = new UniqCommand();
    uniq.in = in;
    uniq.out = out;
    uniq.err = err;
    PrintWriter outWriter = new PrintWriter(out, true, StandardCharsets.UTF_8);
    PrintWriter errWriter = new PrintWriter(err, true);
    ServeCommand serve = new ServeCommand();
    serve.err = err;
    CommandLine cl = newCommandLine(serve, size, uniq);
    cl.setOut(outWriter);
    cl.setErr(errWriter);
    int code = cl.execute(args);
    outWriter.flush();
    errWriter.flush();
    return code;
  }

  /** The command tree over these command objects, with idem's error handling. */
  static CommandLine newCommandLine(ServeCommand serve, SizeCommand size, UniqCommand uniq) {
    CommandLine cl =
        new CommandLine(new IdemCommand())
            .addSubcommand(serve)
            .addSubcommand(new CheckpointCommand())
            .addSubcommand(size)
            .addSubcommand(uniq);
    // The settings come last, as the server defines them, one per line: not reflowed as text.
    CommandLine serveLine = cl.getSubcommands().get("serve");
    serveLine.getHelpSectionMap().put("settings", help -> ServeCommand.settingsHelp());
    List<String> sections = new ArrayList<>(serveLine.getHelpSectionKeys());
    sections.add("settings");
    serveLine.setHelpSectionKeys(sections);
    cl.setParameterExceptionHandler(Main::usageError);
    cl.setExecutionExceptionHandler(
        (ex, commandLine, parseResult) -> {
          String name = commandLine.getCommandSpec().qualifiedName();
          if (ex instanceof CliException cli) {
            commandLine.getErr().println(name + ": " + cli.getMessage());
            commandLine.getErr().flush();
            return cli.exitCode();
          }
          throw ex; // a bug: keep the stack trace
        });
    return cl;
  }

  /** One line, {@code "idem uniq: <what is wrong> (see idem uniq --help)"}, and exit code 2. */
  private static int usageError(ParameterException ex, String[] args) {
    CommandLine cl = ex.getCommandLine();
    String name = cl.getCommandSpec().qualifiedName();
    String message = String.valueOf(ex.getMessage());
    // picocli capitalises its messages ("Unknown option: ..."); ours continue a "name: " prefix.
    if (message.length() > 1
        && Character.isUpperCase(message.charAt(0))
        && Character.isLowerCase(message.charAt(1))) {
      message = Character.toLowerCase(message.charAt(0)) + message.substring(1);
    }
    cl.getErr().println(name + ": " + message + " (see " + name + " --help)");
    cl.getErr().flush();
    return USAGE;
  }
}
