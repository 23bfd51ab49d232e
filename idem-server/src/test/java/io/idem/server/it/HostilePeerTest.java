package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.idem.server.commands.generic.ServerAdmin;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** What a web page, a stranger on the network or a password guesser can do: nothing, and logged. */
class HostilePeerTest {

  @TempDir Path dir;

  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

  private final Logger admin = (Logger) LoggerFactory.getLogger(ServerAdmin.class);

  @BeforeEach
  void captureLogs() {
    logs.start();
    root.addAppender(logs);
    admin.setLevel(Level.INFO); // CONFIG SET's line is at INFO; the tests log WARN and above
  }

  @AfterEach
  void releaseLogs() {
    root.detachAppender(logs);
    admin.setLevel(null);
  }

  private List<String> logLines() {
    return logs.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  /** Everything the server sends until it closes the connection. */
  private static String sendAndReadToEnd(int port, String text) throws Exception {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
      s.setSoTimeout(10_000);
      s.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      InputStream in = s.getInputStream();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      in.transferTo(got); // ends when the server closes; a timeout fails the test
      return got.toString(StandardCharsets.US_ASCII);
    }
  }

  @Test
  void httpPost_carryingFlushall_isClosedBeforeItRuns() throws Exception {
    try (ServerHarness h = new ServerHarness(dir.resolve("d"));
        RespClient c = new RespClient(h.port())) {
      assertThat(c.call("BF.ADD", "seen", "x")).isEqualTo(1L);
      // What `curl -X POST --data-binary $'\r\nFLUSHALL\r\n'` sends, as a browser would.
      String request =
          "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
              + "Content-Length: 12\r\n\r\n\r\nFLUSHALL\r\n";
      assertThat(sendAndReadToEnd(h.port(), request)).isEmpty();
      assertThat(c.call("DBSIZE")).isEqualTo(1L);
      assertThat(c.call("BF.EXISTS", "seen", "x")).isEqualTo(1L);
    }
    assertThat(logLines()).anyMatch(l -> l.contains("HTTP request line or header (post)"));
  }

  @Test
  void hostHeader_afterAnotherCommand_closesTheConnection() throws Exception {
    try (ServerHarness h = new ServerHarness(dir.resolve("d"));
        RespClient c = new RespClient(h.port())) {
      assertThat(c.call("BF.ADD", "seen", "x")).isEqualTo(1L);
      // A GET line is a Redis command (a wrong-arity error); the header line after it is not.
      String got = sendAndReadToEnd(h.port(), "GET / HTTP/1.1\r\nHost: x\r\nFLUSHALL\r\n");
      assertThat(got).doesNotContain("+OK");
      assertThat(c.call("DBSIZE")).isEqualTo(1L);
    }
    assertThat(logLines()).anyMatch(l -> l.contains("HTTP request line or header (host:)"));
  }

  /** A non-loopback IPv4 address of this machine, if it has one. */
  private static @Nullable InetAddress publicAddress() throws Exception {
    for (NetworkInterface n : NetworkInterface.networkInterfaces().toList()) {
      if (!n.isUp() || n.isLoopback()) {
        continue;
      }
      for (InetAddress a : n.inetAddresses().toList()) {
        if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
          return a;
        }
      }
    }
    return null;
  }

  @Test
  void protectedMode_withoutAPassword_deniesNonLoopbackClients_servesLoopback() throws Exception {
    InetAddress address = publicAddress();
    Assumptions.assumeTrue(address != null, "this machine has no non-loopback address");
    String bind = "127.0.0.1 " + address.getHostAddress();
    try (ServerHarness h = new ServerHarness(dir.resolve("d"), "bind", bind)) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(address, h.port()), 5000);
        s.setSoTimeout(10_000);
        s.getOutputStream().write("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
        String got = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        assertThat(got).startsWith("-DENIED Idem is in protected mode").endsWith("\r\n");
      }
      try (RespClient local = new RespClient(h.port())) {
        assertThat(local.call("PING")).isEqualTo("PONG");
        // With a password set, others are served (and must AUTH).
        assertThat(local.call("CONFIG", "SET", "requirepass", "s3cret")).isEqualTo("OK");
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(address, h.port()), 5000);
        RespClient remote = new RespClient(s);
        assertThat(remote.call("PING"))
            .isEqualTo(new RespClient.Err("NOAUTH Authentication required."));
        assertThat(remote.call("AUTH", "wrong"))
            .isEqualTo(
                new RespClient.Err(
                    "WRONGPASS invalid username-password pair or user is disabled."));
        assertThat(remote.call("AUTH", "s3cret")).isEqualTo("OK");
      }
    }
    assertThat(logLines())
        .anyMatch(l -> l.startsWith("denied a connection from " + address.getHostAddress()))
        .anyMatch(l -> l.startsWith("AUTH failed for client"))
        .anyMatch(l -> l.startsWith("CONFIG SET requirepass (hidden) (was (none))"));
  }

  @Test
  void protectedModeOff_servesEveryone() throws Exception {
    InetAddress address = publicAddress();
    Assumptions.assumeTrue(address != null, "this machine has no non-loopback address");
    try (ServerHarness h =
        new ServerHarness(
            dir.resolve("d"), "bind", address.getHostAddress(), "protected-mode", "no")) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(address, h.port()), 5000);
        assertThat(new RespClient(s).call("PING")).isEqualTo("PONG");
      }
    }
  }

  @Test
  void maxclients_rejection_isLogged() throws Exception {
    try (ServerHarness h = new ServerHarness(dir.resolve("d"), "maxclients", "1");
        RespClient first = new RespClient(h.port())) {
      assertThat(first.call("PING")).isEqualTo("PONG");
      assertThat(sendAndReadToEnd(h.port(), "PING\r\n"))
          .isEqualTo("-ERR max number of clients reached\r\n");
    }
    assertThat(logLines()).anyMatch(l -> l.contains("maxclients (1) reached"));
  }
}
