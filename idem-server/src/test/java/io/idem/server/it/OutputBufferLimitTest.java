package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that pipelines large replies and reads none is closed at client-output-buffer-limit, so
 * it cannot make the server hold them all; others are served on.
 */
class OutputBufferLimitTest {

  @TempDir Path dir;

  /** Sends {@code n} BF.SCANDUMP calls for a chunk of about a megabyte without reading. */
  private static Socket pipelineDumps(int port, long iterator, int n) throws Exception {
    Socket s = new Socket();
    s.setReceiveBufferSize(4096);
    s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
    s.setSoTimeout(30_000);
    String call = "BF.SCANDUMP bf " + iterator + "\r\n";
    s.getOutputStream().write(call.repeat(n).getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    return s;
  }

  /** Reads until the server closes; a timeout (the server kept the client) fails the test. */
  private static long readToEnd(Socket s) throws Exception {
    InputStream in = s.getInputStream();
    byte[] buf = new byte[1 << 16];
    long total = 0;
    for (int n; (n = in.read(buf)) >= 0; ) {
      total += n;
    }
    return total;
  }

  /** client-output-buffer-limit as CONFIG GET prints it (normalized to bytes). */
  private static String setting(RespClient c) throws Exception {
    java.util.List<?> pair =
        (java.util.List<?>) c.call("CONFIG", "GET", "client-output-buffer-limit");
    return new String((byte[]) pair.get(1), StandardCharsets.US_ASCII);
  }

  private static long dumpIterator(RespClient c) throws Exception {
    assertThat(c.call("BF.RESERVE", "bf", "0.01", "1000000")).isEqualTo("OK");
    java.util.List<?> header = (java.util.List<?>) c.call("BF.SCANDUMP", "bf", "0");
    long iterator = (Long) header.get(0);
    java.util.List<?> chunk =
        (java.util.List<?>) c.call("BF.SCANDUMP", "bf", Long.toString(iterator));
    assertThat(((byte[]) chunk.get(1)).length).isGreaterThan(1 << 20);
    return iterator;
  }

  @Test
  void hardLimit_closesAClientThatReadsNothing() throws Exception {
    try (ServerHarness h = new ServerHarness(dir.resolve("d"));
        RespClient c = new RespClient(h.port())) {
      long iterator = dumpIterator(c);
      assertThat(
              c.call(
                  "CONFIG", "SET", "client-output-buffer-limit", "normal 8mb 0 0 pubsub 1mb 0 0"))
          .isEqualTo("OK");
      assertThat(setting(c)).isEqualTo("normal 8388608 0 0 pubsub 1048576 0 0");
      try (Socket greedy = pipelineDumps(h.port(), iterator, 200)) {
        Thread.sleep(1000); // let the replies pile up
        long got = readToEnd(greedy);
        assertThat(got).isLessThan(200L << 20); // closed long before 200 replies of over 1 MiB
      }
      assertThat(c.call("PING")).isEqualTo("PONG");
      String info = new String((byte[]) c.call("INFO", "stats"), StandardCharsets.US_ASCII);
      assertThat(info).contains("client_output_buffer_limit_disconnections:1");
    }
  }

  @Test
  void softLimit_closesAClientOverItForItsSeconds() throws Exception {
    try (ServerHarness h = new ServerHarness(dir.resolve("d"));
        RespClient c = new RespClient(h.port())) {
      long iterator = dumpIterator(c);
      assertThat(c.call("CONFIG", "SET", "client-output-buffer-limit", "normal 0 4mb 1"))
          .isEqualTo("OK");
      // About 19 MB of replies: far over 4 MB even with the socket buffers full.
      try (Socket slow = pipelineDumps(h.port(), iterator, 16)) {
        Thread.sleep(2500); // over 4 MB for longer than a second, with no new reply
        assertThat(readToEnd(slow)).isLessThan(16L << 20);
      }
      assertThat(c.call("PING")).isEqualTo("PONG");
    }
  }

  @Test
  void badSetting_isRefused_andChangesNothing() throws Exception {
    try (ServerHarness h = new ServerHarness(dir.resolve("d"));
        RespClient c = new RespClient(h.port())) {
      Object reply = c.call("CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 1mb");
      assertThat(((RespClient.Err) reply).text())
          .startsWith("ERR CONFIG SET failed (possibly related to argument");
      reply = c.call("CONFIG", "SET", "client-output-buffer-limit", "weird 1mb 1mb 1");
      assertThat(((RespClient.Err) reply).text()).contains("unknown class 'weird'");
      assertThat(setting(c))
          .isEqualTo("normal 268435456 67108864 60 replica 0 0 0 pubsub 33554432 8388608 60");
    }
  }
}
