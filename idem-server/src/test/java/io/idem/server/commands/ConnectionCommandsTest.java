package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.dispatch.Session;
import io.idem.server.reply.Replies;
import io.idem.server.reply.Reply;
import io.idem.server.request.Command;
import org.junit.jupiter.api.Test;

/** PING, ECHO, QUIT, SELECT, HELLO and AUTH. */
class ConnectionCommandsTest {

  private final Harness h = new Harness();

  /** A connection that has not authenticated, as the server opens one when requirepass is set. */
  private Session stranger() {
    Session s = new Session(7, "10.0.0.7:4000", "127.0.0.1:6379", 0, false, () -> {});
    h.sessions.add(s);
    return s;
  }

  private String as(Session s, String... words) {
    return Replies.show(h.dispatcher.dispatch(s, Command.of(words)));
  }

  @Test
  void ping_pongOrMessage() {
    assertThat(h.call("PING")).isEqualTo(Reply.simple("PONG"));
    assertThat(h.show("ping", "hi")).isEqualTo("\"hi\"");
    assertThat(h.show("PING", "a", "b"))
        .isEqualTo("(error) ERR wrong number of arguments for 'ping' command");
  }

  @Test
  void echo_returnsTheBytes() {
    byte[] binary = {0, (byte) 0xff, '\r', '\n'};
    Reply r = h.call(Harness.bytes("ECHO"), binary);
    assertThat(((Reply.Bulk) r).bytes()).isEqualTo(binary);
    assertThat(h.show("ECHO"))
        .isEqualTo("(error) ERR wrong number of arguments for 'echo' command");
  }

  @Test
  void quit_repliesOk_thenCloses() {
    assertThat(h.show("QUIT")).isEqualTo("OK");
    assertThat(h.session.closing()).isTrue();
  }

  @Test
  void select_onlyDatabaseZero() {
    assertThat(h.show("SELECT", "0")).isEqualTo("OK");
    assertThat(h.show("SELECT", "1")).isEqualTo("(error) ERR DB index is out of range");
    assertThat(h.show("SELECT", "-1")).isEqualTo("(error) ERR DB index is out of range");
    assertThat(h.show("SELECT", "x"))
        .isEqualTo("(error) ERR value is not an integer or out of range");
    assertThat(h.show("SELECT", "4294967296"))
        .isEqualTo("(error) ERR value is not an integer or out of range");
  }

  @Test
  void hello_describesTheServer_inTheNewProtocol() {
    assertThat(h.show("HELLO", "3"))
        .isEqualTo(
            "{\"server\"=\"idem\", \"version\"=\"7.4.0\", \"proto\"=(integer) 3, \"id\"=(integer)"
                + " 1, \"mode\"=\"standalone\", \"role\"=\"master\", \"modules\"=[]}");
    assertThat(h.session.protocol()).isEqualTo(3);
    assertThat(h.show("HELLO")).contains("\"proto\"=(integer) 3");
    assertThat(h.show("HELLO", "2")).contains("\"proto\"=(integer) 2");
    assertThat(h.session.protocol()).isEqualTo(2);
  }

  @Test
  void hello_setname() {
    h.call("HELLO", "3", "SETNAME", "worker-1");
    assertThat(h.session.name()).isEqualTo("worker-1");
  }

  @Test
  void hello_badArguments_changeNothing() {
    assertThat(h.show("HELLO", "4")).isEqualTo("(error) NOPROTO unsupported protocol version");
    assertThat(h.show("HELLO", "1")).isEqualTo("(error) NOPROTO unsupported protocol version");
    assertThat(h.show("HELLO", "three"))
        .isEqualTo("(error) ERR Protocol version is not an integer or out of range");
    assertThat(h.show("HELLO", "3", "FAST"))
        .isEqualTo("(error) ERR Syntax error in HELLO option 'FAST'");
    assertThat(h.show("HELLO", "3", "AUTH", "default"))
        .isEqualTo("(error) ERR Syntax error in HELLO option 'AUTH'");
    assertThat(h.show("HELLO", "3", "SETNAME", "two words"))
        .isEqualTo(
            "(error) ERR Client names cannot contain spaces, newlines or special characters.");
    assertThat(h.show("HELLO", "3", "AUTH", "bob", "pw"))
        .isEqualTo("(error) WRONGPASS invalid username-password pair or user is disabled.");
    assertThat(h.session.protocol()).isEqualTo(2);
    assertThat(h.session.name()).isNull();
  }

  @Test
  void auth_withoutRequirepass() {
    assertThat(h.show("AUTH", "pw"))
        .isEqualTo(
            "(error) ERR AUTH <password> called without any password configured for the default"
                + " user. Are you sure your configuration is correct?");
    assertThat(h.show("AUTH", "default", "anything")).isEqualTo("OK");
    assertThat(h.show("AUTH", "bob", "anything"))
        .isEqualTo("(error) WRONGPASS invalid username-password pair or user is disabled.");
    assertThat(h.show("AUTH", "a", "b", "c")).isEqualTo("(error) ERR syntax error");
    assertThat(h.show("AUTH"))
        .isEqualTo("(error) ERR wrong number of arguments for 'auth' command");
  }

  @Test
  void requirepass_onlyNoAuthCommandsRunBeforeAuth() {
    h.config.set("requirepass", "s3cret");
    Session s = stranger();
    assertThat(as(s, "PING")).isEqualTo("(error) NOAUTH Authentication required.");
    assertThat(as(s, "CLIENT", "ID")).isEqualTo("(error) NOAUTH Authentication required.");
    assertThat(as(s, "HELLO", "3"))
        .isEqualTo(
            "(error) NOAUTH HELLO must be called with the client already authenticated, otherwise"
                + " the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the"
                + " client and select the RESP protocol version at the same time");
    assertThat(s.protocol()).isEqualTo(2);
    assertThat(as(s, "AUTH", "wrong"))
        .isEqualTo("(error) WRONGPASS invalid username-password pair or user is disabled.");
    assertThat(as(s, "AUTH", "default", "wrong"))
        .isEqualTo("(error) WRONGPASS invalid username-password pair or user is disabled.");
    assertThat(s.authenticated()).isFalse();
    assertThat(as(s, "AUTH", "s3cret")).isEqualTo("OK");
    assertThat(s.authenticated()).isTrue();
    assertThat(as(s, "PING")).isEqualTo("PONG");
  }

  @Test
  void requirepass_helloAuthenticatesAndSwitches() {
    h.config.set("requirepass", "s3cret");
    Session s = stranger();
    assertThat(as(s, "HELLO", "3", "AUTH", "default", "s3cret", "SETNAME", "w"))
        .contains("\"proto\"=(integer) 3, \"id\"=(integer) 7");
    assertThat(s.authenticated()).isTrue();
    assertThat(s.name()).isEqualTo("w");
  }

  @Test
  void requirepass_quitIsAllowed() {
    h.config.set("requirepass", "s3cret");
    Session s = stranger();
    assertThat(as(s, "QUIT")).isEqualTo("OK");
    assertThat(s.closing()).isTrue();
  }

  @Test
  void clusterCommands_onAServerAlone_sayClusterSupportIsDisabled() {
    for (String[] c :
        new String[][] {
          {"CLUSTER", "INFO"}, {"CLUSTER", "SLOTS"}, {"CLUSTER", "KEYSLOT", "k"}, {"READONLY"}
        }) {
      assertThat(h.show(c)).isEqualTo("(error) ERR This instance has cluster support disabled");
    }
    assertThat(h.show("INFO", "cluster")).contains("cluster_enabled:0");
  }
}
