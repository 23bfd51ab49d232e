package io.idem.server.dispatch;

import io.idem.server.dispatch.CommandSpec.Flag;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The handler of a command with subcommands (CLIENT, CONFIG, COMMAND, MEMORY): finds the
 * subcommand, checks its arity as Redis does (the error names {@code client|setname}), and runs it.
 * COMMAND INFO and COMMAND DOCS read the subcommand table from here, so it is declared once.
 */
public final class Container implements Handler {

  /**
   * One subcommand.
   *
   * @param name lower case, without the container's name
   * @param arity Redis's convention, counting the container's name and the subcommand's
   * @param syntax the arguments after the subcommand, in {@link Syntax}'s notation
   * @param firstKey position of the first key in the whole command, 0 if none
   */
  public record Sub(
      String name,
      int arity,
      Set<Flag> flags,
      int firstKey,
      int lastKey,
      int step,
      String syntax,
      String summary,
      String complexity,
      Handler handler) {

    public Sub {
      name = name.toLowerCase(Locale.ROOT);
      flags = Set.copyOf(flags);
      Syntax.parse(syntax); // fails at start-up, not at the first COMMAND DOCS
    }

    /** A subcommand without keys. */
    public static Sub of(
        String name,
        int arity,
        Set<Flag> flags,
        String syntax,
        String summary,
        String complexity,
        Handler handler) {
      return new Sub(name, arity, flags, 0, 0, 0, syntax, summary, complexity, handler);
    }

    boolean arityAccepts(int argc) {
      return arity >= 0 ? argc == arity : argc >= -arity;
    }
  }

  private final String name;
  private final Map<String, Sub> subs = new LinkedHashMap<>();
  private final @Nullable Handler bare;

  /**
   * @param bare what a call with no subcommand runs (COMMAND alone), or null if the container's
   *     arity already refuses it
   */
  public Container(String name, @Nullable Handler bare, List<Sub> subs) {
    this.name = name.toLowerCase(Locale.ROOT);
    this.bare = bare;
    for (Sub s : subs) {
      if (this.subs.putIfAbsent(s.name(), s) != null) {
        throw new IllegalStateException("subcommand declared twice: " + s.name());
      }
    }
    this.subs.putIfAbsent(
        "help",
        Sub.of(
            "help",
            2,
            Set.of(Flag.LOADING, Flag.STALE),
            "",
            "Shows the subcommands and what each does.",
            "O(1)",
            call -> help()));
  }

  public String name() {
    return name;
  }

  public Collection<Sub> subs() {
    return subs.values();
  }

  /** The subcommand by name, any case, or null. */
  public @Nullable Sub sub(String subName) {
    return subs.get(subName.toLowerCase(Locale.ROOT));
  }

  @Override
  public Reply handle(Call call) {
    if (call.argc() == 1 && bare != null) {
      return bare.handle(call);
    }
    String given = Parse.text(call.arg(1));
    Sub sub = sub(given);
    if (sub == null) {
      throw new CommandException(Errors.unknownSubcommand(given, name.toUpperCase(Locale.ROOT)));
    }
    if (!sub.arityAccepts(call.argc())) {
      throw new CommandException(Errors.wrongArity(name + "|" + sub.name()));
    }
    return sub.handler().handle(call);
  }

  /** The HELP reply: a header, two lines per subcommand (usage, then what it does), a footer. */
  private Reply help() {
    String upper = name.toUpperCase(Locale.ROOT);
    List<Reply> lines = new ArrayList<>();
    lines.add(Reply.simple(upper + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
    for (Sub s : subs.values()) {
      if (s.name().equals("help")) {
        continue;
      }
      String usage = s.name().toUpperCase(Locale.ROOT);
      String args = Syntax.display(s.syntax());
      lines.add(Reply.simple(args.isEmpty() ? usage : usage + " " + args));
      lines.add(Reply.simple("    " + s.summary()));
    }
    lines.add(Reply.simple("HELP"));
    lines.add(Reply.simple("    Print this help."));
    return Reply.array(lines);
  }
}
