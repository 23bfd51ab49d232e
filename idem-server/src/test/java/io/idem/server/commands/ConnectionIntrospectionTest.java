package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.dispatch.CommandSpec;
import io.idem.server.reply.Replies;
import io.idem.server.reply.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** COMMAND and its subcommands, in the shapes redis-cli, Jedis and Lettuce read. */
class ConnectionIntrospectionTest {

  private final Harness h = new Harness();

  private static List<String> bulks(Reply r) {
    List<String> out = new ArrayList<>();
    for (Reply item : ((Reply.Array) r).items()) {
      out.add(new String(((Reply.Bulk) item).bytes(), StandardCharsets.UTF_8));
    }
    return out;
  }

  @Test
  void count_isTheTopLevelCommands() {
    assertThat(h.call("COMMAND", "COUNT")).isEqualTo(Reply.integer(h.commands.size()));
  }

  @Test
  void command_describesEveryCommand() {
    Reply.Array all = (Reply.Array) h.call("COMMAND");
    assertThat(all.items()).hasSize(h.commands.size());
    for (Reply entry : all.items()) {
      assertThat(((Reply.Array) entry).items()).hasSize(10);
    }
  }

  @Test
  void info_keyCommand() {
    assertThat(h.show("COMMAND", "INFO", "del"))
        .isEqualTo(
            "[[\"del\", (integer) -2, <write>, (integer) 1, (integer) -1, (integer) 1, <@keyspace,"
                + " @write, @slow>, <>, [{\"flags\"=<RW, update>,"
                + " \"begin_search\"={\"type\"=\"index\", \"spec\"={\"index\"=(integer) 1}},"
                + " \"find_keys\"={\"type\"=\"range\", \"spec\"={\"lastkey\"=(integer) -1,"
                + " \"keystep\"=(integer) 1, \"limit\"=(integer) 0}}}], <>]]");
  }

  @Test
  void info_unknownIsNil_andSubcommandsByFullName() {
    assertThat(h.show("COMMAND", "INFO", "nope", "also-nope")).isEqualTo("[(nil), (nil)]");
    assertThat(h.show("COMMAND", "INFO", "client|setname"))
        .isEqualTo(
            "[[\"client|setname\", (integer) 3, <loading, stale>, (integer) 0, (integer) 0,"
                + " (integer) 0, <@connection, @slow>, <>, [], <>]]");
  }

  @Test
  void info_containerListsItsSubcommands() {
    Reply.Array entry =
        (Reply.Array) ((Reply.Array) h.call("COMMAND", "INFO", "config")).items().get(0);
    Reply.Array subs = (Reply.Array) entry.items().get(9);
    List<String> names = new ArrayList<>();
    for (Reply s : subs.items()) {
      names.add(new String(((Reply.Bulk) ((Reply.Array) s).items().get(0)).bytes()));
    }
    assertThat(names)
        .containsExactly("config|get", "config|set", "config|resetstat", "config|help");
  }

  @Test
  void docs_withArguments() {
    assertThat(h.show("COMMAND", "DOCS", "ttl", "nope"))
        .isEqualTo(
            "{\"ttl\"={\"summary\"=\"Returns a key's time to live in seconds: -1 if none, -2 if"
                + " no key.\", \"since\"=\"0.1.0\", \"group\"=\"generic\","
                + " \"complexity\"=\"O(1)\", \"arguments\"=[{\"name\"=\"key\", \"type\"=\"key\","
                + " \"display_text\"=\"key\"}]}}");
  }

  @Test
  void docs_ofAContainer_includeItsSubcommands() {
    String docs = h.show("COMMAND", "DOCS", "client");
    assertThat(docs)
        .startsWith("{\"client\"={\"summary\"=")
        .contains("\"subcommands\"={\"client|id\"={")
        .contains(
            "\"client|setname\"={\"summary\"=\"Names the connection; an empty name removes the"
                + " name.\", \"since\"=\"0.1.0\", \"group\"=\"connection\","
                + " \"complexity\"=\"O(1)\", \"arguments\"=[{\"name\"=\"connection-name\","
                + " \"type\"=\"string\", \"display_text\"=\"connection-name\"}]}");
    assertThat(h.show("COMMAND", "DOCS", "CLIENT|SETNAME")).startsWith("{\"client|setname\"={");
  }

  @Test
  void docs_ofEverything_hasSummarySinceAndGroupForEach() {
    Reply.Map all = (Reply.Map) h.call("COMMAND", "DOCS");
    assertThat(all.keysAndValues()).hasSize(2 * h.commands.size());
    for (int i = 1; i < all.keysAndValues().size(); i += 2) {
      String doc = Replies.show(all.keysAndValues().get(i));
      assertThat(doc).startsWith("{\"summary\"=").contains("\"since\"=", "\"group\"=");
    }
  }

  @Test
  void list_namesCommandsAndSubcommands() {
    List<String> names = bulks(h.call("COMMAND", "LIST"));
    assertThat(names).contains("ping", "client", "client|setname", "config|get", "memory|usage");
    for (CommandSpec spec : h.commands.all()) {
      assertThat(names).contains(spec.name());
    }
  }

  @Test
  void list_filters() {
    assertThat(bulks(h.call("COMMAND", "LIST", "FILTERBY", "PATTERN", "config*")))
        .containsExactly("config", "config|get", "config|set", "config|resetstat", "config|help");
    assertThat(bulks(h.call("COMMAND", "LIST", "FILTERBY", "ACLCAT", "connection")))
        .contains("ping", "hello", "client|id")
        .doesNotContain("del");
    assertThat(bulks(h.call("COMMAND", "LIST", "FILTERBY", "MODULE", "bf"))).isEmpty();
    assertThat(h.show("COMMAND", "LIST", "FILTERBY", "COLOR", "red"))
        .isEqualTo("(error) ERR syntax error");
    assertThat(h.show("COMMAND", "LIST", "FILTERBY", "PATTERN"))
        .isEqualTo("(error) ERR syntax error");
  }

  @Test
  void unknownSubcommand() {
    assertThat(h.show("COMMAND", "GETKEYS", "get", "a"))
        .isEqualTo("(error) ERR unknown subcommand 'GETKEYS'. Try COMMAND HELP.");
    assertThat(h.show("COMMAND", "COUNT", "x"))
        .isEqualTo("(error) ERR wrong number of arguments for 'command|count' command");
  }
}
