package io.idem.server.dispatch;

import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * A command's arguments written as the docs write them, turned into the argument maps COMMAND DOCS
 * replies with (what redis-cli 7 builds its hints from).
 *
 * <p>Notation: an upper-case word is a literal token ({@code NX}); a lower-case word is an
 * argument, a string unless it says otherwise with a suffix ({@code seconds:integer}, {@code
 * time:unix-time}; {@code key}, {@code newkey} and {@code pattern} are typed by name); {@code [ ]}
 * is optional, {@code ( )} groups, {@code |} separates alternatives and {@code ...} after an item
 * repeats it. {@code [MATCH pattern]} is a token followed by its value, {@code [AUTH user pass]} a
 * block that starts with a token.
 */
public final class Syntax {

  private Syntax() {}

  /** One parsed argument. */
  record Arg(
      String name,
      String type,
      @Nullable String token,
      boolean optional,
      boolean multiple,
      List<Arg> children) {

    Arg withFlags(boolean opt, boolean mult) {
      return new Arg(name, type, token, optional || opt, multiple || mult, children);
    }

    Arg withToken(String t) {
      return new Arg(name, type, t, optional, multiple, children);
    }
  }

  /** The text shown to people (HELP, the docs): the notation without type suffixes. */
  public static String display(String syntax) {
    return syntax.replaceAll(":[a-z-]+", "");
  }

  /** The COMMAND DOCS {@code arguments} array for the syntax. */
  public static Reply arguments(String syntax) {
    List<Reply> out = new ArrayList<>();
    for (Arg a : parse(syntax)) {
      out.add(reply(a));
    }
    return Reply.array(out);
  }

  static List<Arg> parse(String syntax) {
    Parser p = new Parser(tokenize(syntax));
    List<Arg> args = p.sequence();
    if (p.pos != p.tokens.size()) {
      throw new IllegalArgumentException(
          "bad syntax near '" + p.tokens.get(p.pos) + "': " + syntax);
    }
    return args;
  }

  private static Reply reply(Arg a) {
    List<Reply> m = new ArrayList<>();
    m.add(Reply.bulk("name"));
    m.add(Reply.bulk(a.name()));
    m.add(Reply.bulk("type"));
    m.add(Reply.bulk(a.type()));
    boolean nested = a.type().equals("oneof") || a.type().equals("block");
    if (!nested) {
      m.add(Reply.bulk("display_text"));
      m.add(Reply.bulk(a.name()));
    }
    if (a.token() != null) {
      m.add(Reply.bulk("token"));
      m.add(Reply.bulk(a.token()));
    }
    if (a.optional() || a.multiple()) {
      List<Reply> flags = new ArrayList<>();
      if (a.optional()) {
        flags.add(Reply.simple("optional"));
      }
      if (a.multiple()) {
        flags.add(Reply.simple("multiple"));
      }
      m.add(Reply.bulk("flags"));
      m.add(new Reply.Set(flags));
    }
    if (nested) {
      List<Reply> children = new ArrayList<>();
      for (Arg c : a.children()) {
        children.add(reply(c));
      }
      m.add(Reply.bulk("arguments"));
      m.add(Reply.array(children));
    }
    return Reply.map(m);
  }

  private static List<String> tokenize(String s) {
    List<String> out = new ArrayList<>();
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c == ' ') {
        i++;
      } else if (c == '[' || c == ']' || c == '(' || c == ')' || c == '|') {
        out.add(String.valueOf(c));
        i++;
      } else if (s.startsWith("...", i)) {
        out.add("...");
        i += 3;
      } else {
        int j = i;
        while (j < s.length() && " []()|".indexOf(s.charAt(j)) < 0 && !s.startsWith("...", j)) {
          j++;
        }
        out.add(s.substring(i, j));
        i = j;
      }
    }
    return out;
  }

  private static final class Parser {
    final List<String> tokens;
    int pos;

    Parser(List<String> tokens) {
      this.tokens = tokens;
    }

    @Nullable String peek() {
      return pos < tokens.size() ? tokens.get(pos) : null;
    }

    List<Arg> sequence() {
      List<Arg> out = new ArrayList<>();
      while (true) {
        String t = peek();
        if (t == null || t.equals("]") || t.equals(")") || t.equals("|")) {
          return out;
        }
        Arg a = element();
        if ("...".equals(peek())) {
          pos++;
          a = a.withFlags(false, true);
        }
        out.add(a);
      }
    }

    Arg element() {
      String t = tokens.get(pos++);
      if (t.equals("[") || t.equals("(")) {
        String close = t.equals("[") ? "]" : ")";
        List<List<Arg>> alternatives = new ArrayList<>();
        alternatives.add(sequence());
        while ("|".equals(peek())) {
          pos++;
          alternatives.add(sequence());
        }
        if (!close.equals(peek())) {
          throw new IllegalArgumentException("missing '" + close + "' in " + tokens);
        }
        pos++;
        return group(alternatives).withFlags(t.equals("["), false);
      }
      if (t.equals("...")) {
        throw new IllegalArgumentException("'...' follows nothing in " + tokens);
      }
      return word(t);
    }
  }

  private static Arg group(List<List<Arg>> alternatives) {
    if (alternatives.size() == 1) {
      return collapse(alternatives.get(0));
    }
    List<Arg> choices = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (List<Arg> alt : alternatives) {
      Arg a = collapse(alt);
      choices.add(a);
      names.add(a.name());
    }
    return new Arg(String.join("-", names), "oneof", null, false, false, choices);
  }

  /** A sequence inside brackets as one argument: itself, a token with its value, or a block. */
  private static Arg collapse(List<Arg> seq) {
    if (seq.isEmpty()) {
      throw new IllegalArgumentException("empty group");
    }
    if (seq.size() == 1) {
      return seq.get(0);
    }
    Arg first = seq.get(0);
    List<Arg> rest = seq.subList(1, seq.size());
    if (first.type().equals("pure-token")) {
      Arg only = rest.get(0);
      if (rest.size() == 1 && only.token() == null && !only.type().equals("pure-token")) {
        return only.withToken(first.token());
      }
      return new Arg(first.name(), "block", first.token(), false, false, List.copyOf(rest));
    }
    return new Arg(first.name(), "block", null, false, false, List.copyOf(seq));
  }

  private static Arg word(String w) {
    if (!w.equals(w.toLowerCase(Locale.ROOT)) && w.equals(w.toUpperCase(Locale.ROOT))) {
      return new Arg(w.toLowerCase(Locale.ROOT), "pure-token", w, false, false, List.of());
    }
    int colon = w.indexOf(':');
    String name = colon < 0 ? w : w.substring(0, colon);
    String type;
    if (colon >= 0) {
      type = w.substring(colon + 1);
    } else if (name.equals("key") || name.equals("newkey")) {
      type = "key";
    } else if (name.equals("pattern")) {
      type = "pattern";
    } else {
      type = "string";
    }
    return new Arg(name, type, null, false, false, List.of());
  }
}
