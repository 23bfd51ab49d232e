package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Connections that each send most of a large argument and never finish it are bounded all together
 * by maxmemory-clients: past it the one holding the most is closed, the others are served on.
 */
class MaxMemoryClientsTest {

  @TempDir Path dir;

  /** A connection that sends {@code bytes} of an argument of {@code declared} bytes, no more. */
  private static Socket unfinished(int port, int declared, int bytes) throws Exception {
    Socket s = new Socket();
    s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
    s.setSoTimeout(30_000);
    var out = s.getOutputStream();
    out.write(("*2\r\n$4\r\nECHO\r\n$" + declared + "\r\n").getBytes(StandardCharsets.US_ASCII));
    byte[] piece = new byte[64 << 10];
    for (int sent = 0; sent < bytes; sent += piece.length) {
      out.write(piece, 0, Math.min(piece.length, bytes - sent));
    }
    out.flush();
    return s;
  }

  /** Sends {@code bytes} more of the argument. */
  private static void more(Socket s, int bytes) throws Exception {
    byte[] piece = new byte[64 << 10];
    for (int sent = 0; sent < bytes; sent += piece.length) {
      s.getOutputStream().write(piece, 0, Math.min(piece.length, bytes - sent));
    }
    s.getOutputStream().flush();
  }

  /** Reads what the server sends until it closes the connection; a timeout fails the test. */
  private static String readToEnd(Socket s) throws Exception {
    InputStream in = s.getInputStream();
    return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
  }

  private static long field(RespClient c, String section, String name) throws Exception {
    String info = new String((byte[]) c.call("INFO", section), StandardCharsets.US_ASCII);
    Matcher m = Pattern.compile(name + ":(\\d+)").matcher(info);
    assertThat(m.find()).as("INFO %s has %s", section, name).isTrue();
    return Long.parseLong(m.group(1));
  }

  /** Waits until the server has taken in what was sent: INFO's figure stops growing. */
  private static long settled(RespClient c, long atLeast) throws Exception {
    long seen = -1;
    for (int i = 0; i < 200; i++) {
      long now = field(c, "memory", "mem_clients_normal");
      if (now >= atLeast && now == seen) {
        return now;
      }
      seen = now;
      Thread.sleep(50);
    }
    return seen;
  }

  @Test
  void pastTheLimit_theClientHoldingTheMostIsClosed_theOthersServed() throws Exception {
    try (ServerHarness h = new ServerHarness(dir.resolve("d"));
        RespClient c = new RespClient(h.port())) {
      assertThat(c.call("CONFIG", "SET", "maxmemory-clients", "16mb")).isEqualTo("OK");
      try (Socket small = unfinished(h.port(), 12 << 20, 4 << 20);
          Socket large = unfinished(h.port(), 12 << 20, 10 << 20)) {
        assertThat(settled(c, 14 << 20)).isBetween(14L << 20, 16L << 20);
        String list = new String((byte[]) c.call("CLIENT", "LIST"), StandardCharsets.US_ASCII);
        assertThat(list).containsPattern("qbuf=1048\\d{4} ").contains("tot-mem=");
        more(small, 4 << 20); // 18 MB in all: the large one goes, though the small one grew
        assertThat(readToEnd(large)).as("closed without a reply, as Redis does").isEmpty();
        assertThat(field(c, "stats", "evicted_clients")).isEqualTo(1);
        assertThat(settled(c, 8 << 20)).isBetween(8L << 20, 9L << 20);
        // The small one is served: it finishes its argument and gets it back.
        more(small, 4 << 20);
        small.getOutputStream().write("\r\n".getBytes(StandardCharsets.US_ASCII));
        small.getOutputStream().flush();
        byte[] head = small.getInputStream().readNBytes(11);
        assertThat(new String(head, StandardCharsets.US_ASCII)).isEqualTo("$12582912\r\n");
      }
      assertThat(c.call("PING")).isEqualTo("PONG");
    }
  }

  @Test
  void theClientThatPassesTheLimitAlone_isRefusedWithTheReason() throws Exception {
    try (ServerHarness h = new ServerHarness(dir.resolve("d"));
        RespClient c = new RespClient(h.port())) {
      assertThat(c.call("CONFIG", "SET", "maxmemory-clients", "8mb")).isEqualTo("OK");
      // Up to just short of the limit, taken in by the server; then a last piece small enough
      // that the server reads it whole: nothing of the client's is left unread when it closes,
      // which would reset the connection and lose the reply (seen on a loaded machine with the
      // whole request sent at once).
      try (Socket greedy = unfinished(h.port(), 100_000_000, (8 << 20) - (16 << 10))) {
        settled(c, (8 << 20) - (16 << 10));
        more(greedy, 32 << 10);
        assertThat(readToEnd(greedy))
            .isEqualTo(
                "-ERR Protocol error: the clients' buffers passed maxmemory-clients, this one the"
                    + " most\r\n");
      }
      assertThat(field(c, "stats", "evicted_clients")).isEqualTo(1);
      assertThat(settled(c, 0)).isLessThan(1 << 20);
      assertThat(c.call("PING")).isEqualTo("PONG");
    }
  }

  @Test
  void zero_turnsTheLimitOff() throws Exception {
    try (ServerHarness h = new ServerHarness(dir.resolve("d"));
        RespClient c = new RespClient(h.port())) {
      assertThat(c.call("CONFIG", "SET", "maxmemory-clients", "0")).isEqualTo("OK");
      try (Socket greedy = unfinished(h.port(), 100_000_000, 12 << 20)) {
        assertThat(settled(c, 12 << 20)).isBetween(12L << 20, 13L << 20);
        assertThat(field(c, "stats", "evicted_clients")).isZero();
      }
    }
  }
}
