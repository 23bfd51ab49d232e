package io.idem.server.reply;

import java.nio.charset.StandardCharsets;

/** Readable renderings of replies, for logs and test assertions. */
public final class Replies {

  private Replies() {}

  /**
   * About the bytes a reply holds and will take encoded: what a connection counts against its
   * output buffer limit while the reply waits for the log. Exact for bulks, within a few bytes an
   * element for the rest.
   */
  public static long approximateBytes(Reply r) {
    return switch (r) {
      case Reply.Simple s -> s.text().length() + 3;
      case Reply.Error e -> e.text().length() + 3;
      case Reply.Bulk b -> b.bytes().length + 16;
      case Reply.Array a -> 16 + sum(a.items());
      case Reply.Map m -> 16 + sum(m.keysAndValues());
      case Reply.Set s -> 16 + sum(s.items());
      case Reply.IntRows rows -> 16 + 24L * rows.values().length;
      case Reply.Verbatim v -> v.text().length() + 24;
      case Reply.Int i -> 24;
      case Reply.Double d -> 32;
      case Reply.Null n -> 5;
      case Reply.NullArray n -> 5;
      case Reply.Bool x -> 4;
      case Reply.None x -> 0;
      case Reply.Deferred x -> 64;
    };
  }

  private static long sum(java.util.List<Reply> items) {
    long n = 0;
    for (Reply r : items) {
      n += approximateBytes(r);
    }
    return n;
  }

  /**
   * One line in the spirit of redis-cli: {@code OK}, {@code (error) ERR x}, {@code (integer) 1},
   * {@code "bulk"}, {@code (nil)}, {@code [a, b]}, {@code {k=v}}, {@code (double) 1.5}, {@code
   * (true)}.
   */
  public static String show(Reply r) {
    StringBuilder b = new StringBuilder();
    show(r, b);
    return b.toString();
  }

  private static void show(Reply r, StringBuilder b) {
    switch (r) {
      case Reply.Simple s -> b.append(s.text());
      case Reply.Error e -> b.append("(error) ").append(e.text());
      case Reply.Int i -> b.append("(integer) ").append(i.value());
      case Reply.Bulk bulk ->
          b.append('"').append(new String(bulk.bytes(), StandardCharsets.UTF_8)).append('"');
      case Reply.Null n -> b.append("(nil)");
      case Reply.NullArray n -> b.append("(nil)");
      case Reply.Array a -> list(a.items(), b, '[', ']');
      case Reply.IntRows rows -> {
        long[] values = rows.values();
        b.append('[');
        for (int i = 0; i < values.length; i++) {
          boolean rowStart = i % rows.width() == 0;
          b.append(i == 0 ? "" : rowStart ? "], " : ", ").append(rowStart ? "[" : "");
          b.append("(integer) ").append(values[i]);
        }
        b.append(values.length > 0 ? "]]" : "]");
      }
      case Reply.Set s -> list(s.items(), b, '<', '>');
      case Reply.Map m -> {
        b.append('{');
        for (int i = 0; i < m.keysAndValues().size(); i += 2) {
          if (i > 0) {
            b.append(", ");
          }
          show(m.keysAndValues().get(i), b);
          b.append('=');
          show(m.keysAndValues().get(i + 1), b);
        }
        b.append('}');
      }
      case Reply.Double d -> b.append("(double) ").append(d.value());
      case Reply.Bool bool -> b.append('(').append(bool.value()).append(')');
      case Reply.Verbatim v -> b.append('"').append(v.text()).append('"');
      case Reply.None n -> b.append("(no reply)");
      case Reply.Deferred d -> show(d.future().join(), b);
    }
  }

  private static void list(java.util.List<Reply> items, StringBuilder b, char open, char close) {
    b.append(open);
    for (int i = 0; i < items.size(); i++) {
      if (i > 0) {
        b.append(", ");
      }
      show(items.get(i), b);
    }
    b.append(close);
  }
}
