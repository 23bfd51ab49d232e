package io.idem.server.commands.generic;

import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.CommandSpec;
import io.idem.server.dispatch.CommandSpec.Flag;
import io.idem.server.dispatch.Container;
import io.idem.server.dispatch.Documented;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Parse;
import io.idem.server.dispatch.Syntax;
import io.idem.server.engine.Glob;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * COMMAND and its subcommands: the registry described in Redis 7's shapes, which redis-cli (hints),
 * Jedis and Lettuce read.
 */
public final class Introspection {

  /** What COMMAND DOCS reports as "since": the Idem version that first had the command. */
  static final String SINCE = "0.1.0";

  private static final Flag[] FLAG_ORDER = {
    Flag.WRITE,
    Flag.READONLY,
    Flag.DENYOOM,
    Flag.ADMIN,
    Flag.LOADING,
    Flag.STALE,
    Flag.FAST,
    Flag.NO_AUTH
  };

  private Introspection() {}

  /** COMMAND: every command's info. */
  public static Reply all(Call call) {
    List<Reply> out = new ArrayList<>();
    for (CommandSpec spec : call.server().commands().all()) {
      out.add(info(spec));
    }
    return Reply.array(out);
  }

  /** COMMAND COUNT: top-level commands, as Redis counts them. */
  public static Reply count(Call call) {
    return Reply.integer(call.server().commands().size());
  }

  /** COMMAND INFO [name ...]: each name's info, or null where unknown; all with no names. */
  public static Reply info(Call call) {
    if (call.argc() == 2) {
      return all(call);
    }
    List<Reply> out = new ArrayList<>();
    for (int i = 2; i < call.argc(); i++) {
      out.add(lookupInfo(call, Parse.text(call.arg(i))));
    }
    return Reply.array(out);
  }

  /** COMMAND DOCS [name ...]: a map of name to docs; unknown names are left out. */
  public static Reply docs(Call call) {
    List<Reply> out = new ArrayList<>();
    if (call.argc() == 2) {
      for (CommandSpec spec : call.server().commands().all()) {
        out.add(Reply.bulk(spec.name()));
        out.add(docs(spec));
      }
      return Reply.map(out);
    }
    for (int i = 2; i < call.argc(); i++) {
      String name = Parse.text(call.arg(i)).toLowerCase(Locale.ROOT);
      int bar = name.indexOf('|');
      CommandSpec spec = call.server().commands().get(bar < 0 ? name : name.substring(0, bar));
      if (spec == null) {
        continue;
      }
      if (bar < 0) {
        out.add(Reply.bulk(spec.name()));
        out.add(docs(spec));
        continue;
      }
      Container.Sub sub = subOf(spec, name.substring(bar + 1));
      if (sub != null) {
        out.add(Reply.bulk(spec.name() + "|" + sub.name()));
        out.add(docs(spec, sub));
      }
    }
    return Reply.map(out);
  }

  /** COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern]. */
  public static Reply list(Call call) {
    @Nullable String filter = null;
    @Nullable String arg = null;
    for (int i = 2; i < call.argc(); i++) {
      int more = call.argc() - 1 - i;
      if (call.is(i, "FILTERBY") && more == 2) {
        if (call.is(i + 1, "MODULE") || call.is(i + 1, "ACLCAT") || call.is(i + 1, "PATTERN")) {
          filter = Parse.text(call.arg(i + 1)).toLowerCase(Locale.ROOT);
          arg = Parse.text(call.arg(i + 2));
        } else {
          throw new CommandException(Errors.SYNTAX);
        }
        i += 2;
      } else {
        throw new CommandException(Errors.SYNTAX);
      }
    }
    List<Reply> out = new ArrayList<>();
    for (CommandSpec spec : call.server().commands().all()) {
      addIfKept(out, spec.name(), spec.flags(), spec.group(), filter, arg);
      if (spec.handler() instanceof Container c) {
        for (Container.Sub s : c.subs()) {
          addIfKept(out, spec.name() + "|" + s.name(), s.flags(), spec.group(), filter, arg);
        }
      }
    }
    return Reply.array(out);
  }

  private static void addIfKept(
      List<Reply> out,
      String fullName,
      Set<Flag> flags,
      String group,
      @Nullable String filter,
      @Nullable String arg) {
    boolean keep =
        filter == null
            || switch (filter) {
              // Idem's commands are built in: no module has any.
              case "module" -> false;
              case "aclcat" ->
                  categories(flags, group).contains("@" + arg.toLowerCase(Locale.ROOT));
              default -> Glob.matches(arg.toLowerCase(Locale.ROOT), fullName);
            };
    if (keep) {
      out.add(Reply.bulk(fullName));
    }
  }

  private static Reply lookupInfo(Call call, String given) {
    String name = given.toLowerCase(Locale.ROOT);
    int bar = name.indexOf('|');
    CommandSpec spec = call.server().commands().get(bar < 0 ? name : name.substring(0, bar));
    if (spec == null) {
      return Reply.NULL;
    }
    if (bar < 0) {
      return info(spec);
    }
    Container.Sub sub = subOf(spec, name.substring(bar + 1));
    return sub == null ? Reply.NULL : info(spec, sub);
  }

  private static Container.@Nullable Sub subOf(CommandSpec spec, String subName) {
    return spec.handler() instanceof Container c ? c.sub(subName) : null;
  }

  /** The 10-item COMMAND INFO entry of a top-level command. */
  static Reply info(CommandSpec spec) {
    Reply subs;
    if (spec.handler() instanceof Container c) {
      List<Reply> items = new ArrayList<>();
      for (Container.Sub s : c.subs()) {
        items.add(info(spec, s));
      }
      subs = Reply.array(items);
    } else {
      subs = new Reply.Set(List.of());
    }
    return entry(
        spec.name(),
        spec.arity(),
        spec.flags(),
        spec.firstKey(),
        spec.lastKey(),
        spec.step(),
        spec.group(),
        subs);
  }

  private static Reply info(CommandSpec container, Container.Sub s) {
    return entry(
        container.name() + "|" + s.name(),
        s.arity(),
        s.flags(),
        s.firstKey(),
        s.lastKey(),
        s.step(),
        container.group(),
        new Reply.Set(List.of()));
  }

  private static Reply entry(
      String name,
      int arity,
      Set<Flag> flags,
      int firstKey,
      int lastKey,
      int step,
      String group,
      Reply subcommands) {
    List<Reply> flagReplies = new ArrayList<>();
    for (Flag f : FLAG_ORDER) {
      if (flags.contains(f)) {
        flagReplies.add(Reply.simple(f.wireName()));
      }
    }
    List<Reply> cats = new ArrayList<>();
    for (String c : categories(flags, group)) {
      cats.add(Reply.simple(c));
    }
    List<Reply> keySpecs = new ArrayList<>();
    if (firstKey > 0) {
      keySpecs.add(keySpec(flags, firstKey, lastKey, step));
    }
    return Reply.array(
        Reply.bulk(name),
        Reply.integer(arity),
        new Reply.Set(flagReplies),
        Reply.integer(firstKey),
        Reply.integer(lastKey),
        Reply.integer(step),
        new Reply.Set(cats),
        new Reply.Set(List.of()),
        Reply.array(keySpecs),
        subcommands);
  }

  /** Redis 7's key specification for keys at fixed positions: an index, then a range. */
  private static Reply keySpec(Set<Flag> flags, int firstKey, int lastKey, int step) {
    List<Reply> keyFlags =
        flags.contains(Flag.WRITE)
            ? List.of(Reply.simple("RW"), Reply.simple("update"))
            : List.of(Reply.simple("RO"), Reply.simple("access"));
    int relativeLast = lastKey < 0 ? lastKey : lastKey - firstKey;
    return Reply.map(
        List.of(
            Reply.bulk("flags"),
            new Reply.Set(keyFlags),
            Reply.bulk("begin_search"),
            Reply.map(
                List.of(
                    Reply.bulk("type"),
                    Reply.bulk("index"),
                    Reply.bulk("spec"),
                    Reply.map(List.of(Reply.bulk("index"), Reply.integer(firstKey))))),
            Reply.bulk("find_keys"),
            Reply.map(
                List.of(
                    Reply.bulk("type"),
                    Reply.bulk("range"),
                    Reply.bulk("spec"),
                    Reply.map(
                        List.of(
                            Reply.bulk("lastkey"),
                            Reply.integer(relativeLast),
                            Reply.bulk("keystep"),
                            Reply.integer(step),
                            Reply.bulk("limit"),
                            Reply.ZERO))))));
  }

  /** ACL categories derived from the flags and the group, as Redis derives its implicit ones. */
  static List<String> categories(Set<Flag> flags, String group) {
    List<String> out = new ArrayList<>();
    switch (group) {
      case "generic" -> out.add("@keyspace");
      case "connection" -> out.add("@connection");
      default -> {}
    }
    if (flags.contains(Flag.WRITE)) {
      out.add("@write");
    }
    if (flags.contains(Flag.READONLY)) {
      out.add("@read");
    }
    if (flags.contains(Flag.ADMIN)) {
      out.add("@admin");
      out.add("@dangerous");
    }
    out.add(flags.contains(Flag.FAST) ? "@fast" : "@slow");
    return out;
  }

  /** The COMMAND DOCS map of a top-level command. */
  static Reply docs(CommandSpec spec) {
    List<Reply> m = docHead(spec.summary(), spec.group(), spec.complexity());
    if (spec.handler() instanceof Documented d && !d.syntax().isEmpty()) {
      m.add(Reply.bulk("arguments"));
      m.add(Syntax.arguments(d.syntax()));
    }
    if (spec.handler() instanceof Container c) {
      List<Reply> subs = new ArrayList<>();
      for (Container.Sub s : c.subs()) {
        subs.add(Reply.bulk(spec.name() + "|" + s.name()));
        subs.add(docs(spec, s));
      }
      m.add(Reply.bulk("subcommands"));
      m.add(Reply.map(subs));
    }
    return Reply.map(m);
  }

  private static Reply docs(CommandSpec container, Container.Sub s) {
    List<Reply> m = docHead(s.summary(), container.group(), s.complexity());
    if (!s.syntax().isEmpty()) {
      m.add(Reply.bulk("arguments"));
      m.add(Syntax.arguments(s.syntax()));
    }
    return Reply.map(m);
  }

  // redis-cli reads summary, since and group of every entry without checking they are there.
  private static List<Reply> docHead(String summary, String group, String complexity) {
    List<Reply> m = new ArrayList<>();
    m.add(Reply.bulk("summary"));
    m.add(Reply.bulk(summary));
    m.add(Reply.bulk("since"));
    m.add(Reply.bulk(SINCE));
    m.add(Reply.bulk("group"));
    m.add(Reply.bulk(group));
    m.add(Reply.bulk("complexity"));
    m.add(Reply.bulk(complexity));
    return m;
  }
}
