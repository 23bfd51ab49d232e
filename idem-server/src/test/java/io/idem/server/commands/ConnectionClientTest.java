package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.dispatch.Session;
import io.idem.server.reply.Reply;
import org.junit.jupiter.api.Test;

/** CLIENT and its subcommands. */
class ConnectionClientTest {

  private final Harness h = new Harness();

  private Session other(long id, String addr) {
    Session s = new Session(id, addr, "127.0.0.1:6379", 0, true, () -> {});
    h.sessions.add(s);
    return s;
  }

  private String text(String... words) {
    Reply r = h.call(words);
    assertThat(r).isInstanceOf(Reply.Verbatim.class);
    return ((Reply.Verbatim) r).text();
  }

  @Test
  void id_andNames() {
    assertThat(h.show("CLIENT", "ID")).isEqualTo("(integer) 1");
    assertThat(h.show("CLIENT", "GETNAME")).isEqualTo("(nil)");
    assertThat(h.show("CLIENT", "SETNAME", "worker-1")).isEqualTo("OK");
    assertThat(h.show("client", "getname")).isEqualTo("\"worker-1\"");
    assertThat(h.show("CLIENT", "SETNAME", "")).isEqualTo("OK");
    assertThat(h.show("CLIENT", "GETNAME")).isEqualTo("(nil)");
  }

  @Test
  void setname_refusesSpacesAndControlBytes() {
    h.call("CLIENT", "SETNAME", "keep");
    for (String bad : new String[] {"two words", "line\nbreak", "é"}) {
      assertThat(h.show("CLIENT", "SETNAME", bad))
          .as(bad)
          .isEqualTo(
              "(error) ERR Client names cannot contain spaces, newlines or special characters.");
    }
    assertThat(h.session.name()).isEqualTo("keep");
  }

  @Test
  void arityAndUnknownSubcommands_areRedisTexts() {
    assertThat(h.show("CLIENT"))
        .isEqualTo("(error) ERR wrong number of arguments for 'client' command");
    assertThat(h.show("CLIENT", "Pause", "10"))
        .isEqualTo("(error) ERR unknown subcommand 'Pause'. Try CLIENT HELP.");
    assertThat(h.show("CLIENT", "SETNAME"))
        .isEqualTo("(error) ERR wrong number of arguments for 'client|setname' command");
    assertThat(h.show("CLIENT", "ID", "extra"))
        .isEqualTo("(error) ERR wrong number of arguments for 'client|id' command");
  }

  @Test
  void info_isThisConnectionsLine() {
    h.call("CLIENT", "SETNAME", "me");
    assertThat(text("CLIENT", "INFO"))
        .matches(
            "id=1 addr=127\\.0\\.0\\.1:0 laddr=127\\.0\\.0\\.1:0 name=me age=\\d+ idle=\\d+ flags=N"
                + " db=0 sub=0 psub=0 ssub=0 multi=-1 watch=0 qbuf=0 omem=0 tot-mem=0 cmd=client user=default redir=-1"
                + " resp=2\n");
  }

  @Test
  void list_oneLinePerConnection_filteredByTypeOrId() {
    other(2, "10.0.0.2:5000");
    assertThat(text("CLIENT", "LIST").split("\n")).hasSize(2);
    assertThat(text("CLIENT", "LIST", "TYPE", "normal").split("\n")).hasSize(2);
    assertThat(text("CLIENT", "LIST", "TYPE", "pubsub")).isEmpty();
    assertThat(text("CLIENT", "LIST", "ID", "2", "99")).startsWith("id=2 addr=10.0.0.2:5000 ");
    assertThat(text("CLIENT", "LIST", "ID", "2", "99").split("\n")).hasSize(1);
  }

  @Test
  void list_badArguments() {
    assertThat(h.show("CLIENT", "LIST", "TYPE", "robot"))
        .isEqualTo("(error) ERR Unknown client type 'robot'");
    assertThat(h.show("CLIENT", "LIST", "ID", "two")).isEqualTo("(error) ERR Invalid client ID");
    assertThat(h.show("CLIENT", "LIST", "ALL")).isEqualTo("(error) ERR syntax error");
  }

  @Test
  void kill_oldForm_byAddress() {
    Session s = other(2, "10.0.0.2:5000");
    assertThat(h.show("CLIENT", "KILL", "10.0.0.9:1")).isEqualTo("(error) ERR No such client");
    assertThat(s.closing()).isFalse();
    assertThat(h.show("CLIENT", "KILL", "10.0.0.2:5000")).isEqualTo("OK");
    assertThat(s.closing()).isTrue();
  }

  @Test
  void kill_filters_countAndSkipTheCaller() {
    Session s = other(2, "10.0.0.2:5000");
    assertThat(h.show("CLIENT", "KILL", "ID", "1")).isEqualTo("(integer) 0");
    assertThat(h.show("CLIENT", "KILL", "ADDR", "10.0.0.2:5000", "TYPE", "pubsub"))
        .isEqualTo("(integer) 0");
    assertThat(h.show("CLIENT", "KILL", "USER", "default", "ID", "2")).isEqualTo("(integer) 1");
    assertThat(s.closing()).isTrue();
    assertThat(h.session.closing()).isFalse();
    assertThat(h.show("CLIENT", "KILL", "ID", "1", "SKIPME", "no")).isEqualTo("(integer) 1");
    assertThat(h.session.closing()).isTrue();
  }

  @Test
  void kill_badFilters_killNobody() {
    Session s = other(2, "10.0.0.2:5000");
    assertThat(h.show("CLIENT", "KILL", "ID", "0"))
        .isEqualTo("(error) ERR client-id should be greater than 0");
    assertThat(h.show("CLIENT", "KILL", "ID", "x"))
        .isEqualTo("(error) ERR client-id should be greater than 0");
    assertThat(h.show("CLIENT", "KILL", "MAXAGE", "0"))
        .isEqualTo("(error) ERR maxage should be greater than 0");
    assertThat(h.show("CLIENT", "KILL", "MAXAGE", "old"))
        .isEqualTo("(error) ERR maxage is not an integer or out of range");
    assertThat(h.show("CLIENT", "KILL", "USER", "bob")).isEqualTo("(error) ERR No such user 'bob'");
    assertThat(h.show("CLIENT", "KILL", "TYPE", "robot"))
        .isEqualTo("(error) ERR Unknown client type 'robot'");
    assertThat(h.show("CLIENT", "KILL", "SKIPME", "maybe")).isEqualTo("(error) ERR syntax error");
    assertThat(h.show("CLIENT", "KILL", "ID", "2", "ADDR")).isEqualTo("(error) ERR syntax error");
    assertThat(h.show("CLIENT", "KILL", "ID", "2", "COLOR", "red"))
        .isEqualTo("(error) ERR syntax error");
    assertThat(s.closing()).isFalse();
  }

  @Test
  void setinfo_acceptsLibraryNameAndVersion() {
    assertThat(h.show("CLIENT", "SETINFO", "LIB-NAME", "jedis")).isEqualTo("OK");
    assertThat(h.show("CLIENT", "SETINFO", "lib-ver", "5.1.0")).isEqualTo("OK");
    assertThat(h.show("CLIENT", "SETINFO", "lib-color", "red"))
        .isEqualTo("(error) ERR Unrecognized option 'lib-color'");
    assertThat(h.show("CLIENT", "SETINFO", "LIB-NAME", "my lib"))
        .isEqualTo("(error) ERR LIB-NAME cannot contain spaces, newlines or special characters.");
  }

  @Test
  void help_listsEverySubcommand() {
    Reply.Array help = (Reply.Array) h.call("CLIENT", "HELP");
    assertThat(help.items().get(0))
        .isEqualTo(Reply.simple("CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
    assertThat(help.items())
        .contains(Reply.simple("SETNAME connection-name"), Reply.simple("GETNAME"))
        .endsWith(Reply.simple("HELP"), Reply.simple("    Print this help."));
    // A header, two lines for each of the 7 subcommands, and two for HELP.
    assertThat(help.items()).hasSize(1 + 7 * 2 + 2);
  }
}
