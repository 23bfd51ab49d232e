package io.idem.server.dispatch;

import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What the dispatcher knows of a command before running it: name, arity, flags and key positions
 * (the shape {@code COMMAND INFO} reports), plus the docs {@code COMMAND DOCS} reports.
 *
 * @param arity Redis's convention: n means exactly n arguments counting the name, -n at least n
 * @param maxArgs the most arguments, name included, for a command with optional ones; 0 if any
 * @param pairsFrom where arguments that come in pairs start (CMS.INCRBY's item-increment pairs at
 *     2): the arguments from there are an even number; 0 if none
 * @param firstKey position of the first key, 0 if none
 * @param lastKey position of the last key, -1 for the last argument, 0 if none
 * @param step distance between keys
 * @param logFront on a node with a log, what runs the command instead of the log taking it as it is
 *     (a blocking form); null: the log takes it
 */
public record CommandSpec(
    String name,
    int arity,
    int maxArgs,
    int pairsFrom,
    Set<Flag> flags,
    int firstKey,
    int lastKey,
    int step,
    String group,
    String summary,
    String complexity,
    Handler handler,
    @Nullable LogFront logFront) {

  /** Command flags, named on the wire as {@code COMMAND INFO} names them. */
  public enum Flag {
    /** Changes the keyspace: its reply waits until the change is in the write-ahead log. */
    WRITE,
    READONLY,
    /** May grow memory: refused with OOM past maxmemory. */
    DENYOOM,
    ADMIN,
    FAST,
    /** Allowed before AUTH. */
    NO_AUTH,
    LOADING,
    STALE,
    /**
     * Touches keys beyond its key positions (sources after a count): a transaction that holds it
     * locks every key.
     */
    MOVABLEKEYS,
    /** Refused inside MULTI, as Redis's no-multi: its reply comes later than EXEC's could. */
    NO_MULTI;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public CommandSpec {
    name = name.toLowerCase(Locale.ROOT);
    flags = Set.copyOf(flags);
  }

  public boolean has(Flag flag) {
    return flags.contains(flag);
  }

  /**
   * Whether a command of {@code argc} arguments (name included) fits the arity, its most arguments
   * and its pairs: what the dispatcher refuses as Redis's wrong-arity error before the handler.
   */
  public boolean arityAccepts(int argc) {
    return (arity >= 0 ? argc == arity : argc >= -arity)
        && (maxArgs == 0 || argc <= maxArgs)
        && (pairsFrom == 0 || (argc - pairsFrom) % 2 == 0);
  }

  /** A builder, for the registration lists that read one line per command. */
  public static Builder command(String name, int arity, Handler handler) {
    return new Builder(name, arity, handler);
  }

  /** Fills the optional parts of a spec; {@link #build} checks nothing is contradictory. */
  public static final class Builder {
    private final String name;
    private final int arity;
    private final Handler handler;
    private int maxArgs;
    private int pairsFrom;
    private Set<Flag> flags = Set.of();
    private int firstKey;
    private int lastKey;
    private int step;
    private @Nullable String group;
    private @Nullable String summary;
    private @Nullable String complexity;
    private @Nullable LogFront logFront;

    private Builder(String name, int arity, Handler handler) {
      this.name = name;
      this.arity = arity;
      this.handler = handler;
    }

    /** On a node with a log, the commands {@code front} takes run there, not as records. */
    public Builder logFront(LogFront front) {
      this.logFront = front;
      return this;
    }

    public Builder flags(Flag... flags) {
      this.flags = Set.of(flags);
      return this;
    }

    /** At most {@code n} arguments, the name included (for a variadic arity). */
    public Builder atMost(int n) {
      this.maxArgs = n;
      return this;
    }

    /** The arguments from {@code index} on come in pairs. */
    public Builder pairsFrom(int index) {
      this.pairsFrom = index;
      return this;
    }

    /** Keys at first, first+step, ..., last (-1: through the last argument). */
    public Builder keys(int first, int last, int step) {
      this.firstKey = first;
      this.lastKey = last;
      this.step = step;
      return this;
    }

    /** The common case: argument 1 is the only key. */
    public Builder key() {
      return keys(1, 1, 1);
    }

    public Builder group(String group) {
      this.group = group;
      return this;
    }

    public Builder doc(String summary, String complexity) {
      this.summary = summary;
      this.complexity = complexity;
      return this;
    }

    /**
     * The spec, its group and docs from {@link CommandDocs} unless given here.
     *
     * @throws IllegalStateException if the command has no docs, or contradictory settings
     */
    public CommandSpec build() {
      String g = group;
      String s = summary;
      String c = complexity;
      if (g == null || s == null || c == null) {
        CommandDocs.Doc d = CommandDocs.of(name.toLowerCase(Locale.ROOT));
        if (d == null) {
          throw new IllegalStateException(name + " has no line in commands.tsv");
        }
        g = g != null ? g : d.group();
        s = s != null ? s : d.summary();
        c = c != null ? c : d.complexity();
      }
      if (flags.contains(Flag.WRITE) && flags.contains(Flag.READONLY)) {
        throw new IllegalStateException(name + " is both write and readonly");
      }
      if (maxArgs != 0 && (arity >= 0 || maxArgs < -arity)) {
        throw new IllegalStateException(name + ": at most " + maxArgs + " against arity " + arity);
      }
      if (pairsFrom != 0 && (arity >= 0 || pairsFrom < 1)) {
        throw new IllegalStateException(name + ": pairs from " + pairsFrom + ", arity " + arity);
      }
      return new CommandSpec(
          name, arity, maxArgs, pairsFrom, flags, firstKey, lastKey, step, g, s, c, handler,
          logFront);
    }
  }
}
