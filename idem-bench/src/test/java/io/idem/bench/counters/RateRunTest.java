package io.idem.bench.counters;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RateRunTest {

  private ServerSocket server;
  private final List<Socket> accepted = new ArrayList<>();

  /**
   * A loopback server that answers each query line ("N\n") with a two-name reply whose sums are N
   * and 2N, and closes a connection after {@code closeAfter} replies.
   */
  private int serve(int closeAfter) throws IOException {
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofPlatform()
        .daemon()
        .start(
            () -> {
              while (!server.isClosed()) {
                try {
                  Socket s = server.accept();
                  synchronized (accepted) {
                    accepted.add(s);
                  }
                  Thread.ofPlatform().daemon().start(() -> answer(s, closeAfter));
                } catch (IOException e) {
                  return;
                }
              }
            });
    return server.getLocalPort();
  }

  private static void answer(Socket s, int closeAfter) {
    try (s;
        InputStream in = s.getInputStream();
        OutputStream out = s.getOutputStream()) {
      int replies = 0;
      long n = 0;
      for (int c = in.read(); c >= 0; c = in.read()) {
        if (c != '\n') {
          n = n * 10 + (c - '0');
          continue;
        }
        if (replies++ == closeAfter) {
          return;
        }
        out.write(
            ("*2\r\n*1\r\n:" + n + "\r\n*1\r\n$" + digits(2 * n) + "\r\n" + 2 * n + "\r\n")
                .getBytes(US_ASCII));
        out.flush();
        n = 0;
      }
    } catch (IOException e) {
      // the client went away
    }
  }

  private static int digits(long x) {
    return Long.toString(x).length();
  }

  @AfterEach
  void close() throws IOException {
    if (server != null) {
      server.close();
    }
    synchronized (accepted) {
      for (Socket s : accepted) {
        s.close();
      }
    }
  }

  @Test
  void everyScheduledQueryIsSentAnsweredAndTimed() throws Exception {
    int port = serve(Integer.MAX_VALUE);
    List<byte[]> queries = List.of("3\n".getBytes(US_ASCII), "12\n".getBytes(US_ASCII));
    RateRun.Result r = RateRun.run("127.0.0.1", port, queries, 2, 1, 2000, 0, 0.5, 2, () -> {});
    assertThat(r.queries()).isEqualTo(1000);
    assertThat(r.fromSchedule().getTotalCount()).isEqualTo(1000);
    assertThat(r.fromSend().getTotalCount()).isEqualTo(1000);
    // From the schedule is never shorter than from the send, which comes at or after it.
    assertThat(r.fromSchedule().getMaxValue()).isGreaterThanOrEqualTo(r.fromSend().getMinValue());
    assertThat(r.writersCpu()).hasSize(4);
    assertThat(r.writersCpu()[0] + r.writersCpu()[1]).isPositive();
    assertThat(r.readersCpu()).hasSize(4);
    assertThat(r.readersCpu()[0] + r.readersCpu()[1]).isPositive();
  }

  @Test
  void theWarmUpIsSentOnTheSameConnectionsButNotMeasured() throws Exception {
    int port = serve(Integer.MAX_VALUE);
    List<byte[]> queries = List.of("7\n".getBytes(US_ASCII));
    java.util.concurrent.atomic.AtomicInteger hooks =
        new java.util.concurrent.atomic.AtomicInteger();
    RateRun.Result r =
        RateRun.run("127.0.0.1", port, queries, 2, 1, 2000, 0.25, 0.5, 3, hooks::incrementAndGet);
    assertThat(r.queries()).isEqualTo(1000);
    assertThat(r.fromSchedule().getTotalCount()).isEqualTo(1000);
    assertThat(hooks.get()).isEqualTo(1);
    synchronized (accepted) {
      assertThat(accepted).hasSize(3); // one connection each, for both parts
    }
  }

  @Test
  void aReplyOfTheWrongShapeFailsTheRun() throws Exception {
    int port = serve(Integer.MAX_VALUE);
    List<byte[]> queries = List.of("5\n".getBytes(US_ASCII));
    // Three names expected, two answered.
    assertThatThrownBy(
            () -> RateRun.run("127.0.0.1", port, queries, 3, 1, 1000, 0, 0.2, 1, () -> {}))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("a reply of 2 values, not 3");
  }

  @Test
  void aServerThatClosesFailsTheRunInsteadOfHangingIt() throws Exception {
    int port = serve(10);
    List<byte[]> queries = List.of("1\n".getBytes(US_ASCII));
    assertThatThrownBy(
            () -> RateRun.run("127.0.0.1", port, queries, 2, 1, 1000, 0.1, 0.5, 2, () -> {}))
        .isInstanceOf(IOException.class);
  }
}
