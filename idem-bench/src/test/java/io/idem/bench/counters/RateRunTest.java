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
import org.junit.jupiter.api.Timeout;

class RateRunTest {

  private ServerSocket server;
  private final List<Socket> accepted = new ArrayList<>();

  /** Every query number the server read. */
  private final java.util.Set<Long> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /**
   * A loopback server that answers each query line ("N\n") with a two-name reply whose sums are N
   * and 2N, and closes a connection after {@code closeAfter} replies.
   */
  private int serve(int closeAfter) throws IOException {
    return serve(closeAfter, 0);
  }

  /** As {@link #serve(int)}, waiting {@code delayMillis} before each reply. */
  private int serve(int closeAfter, long delayMillis) throws IOException {
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
                  Thread.ofPlatform()
                      .daemon()
                      .start(() -> answer(s, closeAfter, delayMillis, seen));
                } catch (IOException e) {
                  return;
                }
              }
            });
    return server.getLocalPort();
  }

  private static void answer(Socket s, int closeAfter, long delayMillis, java.util.Set<Long> seen) {
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
        seen.add(n);
        if (replies++ == closeAfter) {
          return;
        }
        if (delayMillis > 0) {
          try {
            Thread.sleep(delayMillis);
          } catch (InterruptedException e) {
            return;
          }
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
  @Timeout(60)
  void everyScheduledQueryIsSentAnsweredAndTimed() throws Exception {
    int port = serve(Integer.MAX_VALUE);
    List<byte[]> queries = List.of("3\n".getBytes(US_ASCII), "12\n".getBytes(US_ASCII));
    RateRun.Result r =
        RateRun.run(
            "127.0.0.1", port, queries, 2, 1, 2000, 0, 0, 0.5, 2, () -> {}, RateRun.MAX_IN_FLIGHT);
    assertThat(r.queries()).isEqualTo(1000);
    assertThat(r.fromSchedule().getTotalCount()).isEqualTo(1000);
    assertThat(r.fromSend().getTotalCount()).isEqualTo(1000);
    // Each query's time from its schedule is at least its time from its send, which comes after.
    assertThat(r.fromSchedule().getMaxValue()).isGreaterThanOrEqualTo(r.fromSend().getMaxValue());
    assertThat(r.fromSchedule().getValueAtPercentile(50))
        .isGreaterThanOrEqualTo(r.fromSend().getValueAtPercentile(50));
    assertThat(r.writersCpu()).hasSize(4);
    assertThat(r.writersCpu()[0] + r.writersCpu()[1]).isPositive();
    assertThat(r.readersCpu()).hasSize(4);
    assertThat(r.readersCpu()[0] + r.readersCpu()[1]).isPositive();
  }

  @Test
  @Timeout(60)
  void theWarmUpIsSentOnTheSameConnectionsButNotMeasured() throws Exception {
    int port = serve(Integer.MAX_VALUE);
    List<byte[]> queries = List.of("7\n".getBytes(US_ASCII));
    java.util.concurrent.atomic.AtomicInteger hooks =
        new java.util.concurrent.atomic.AtomicInteger();
    RateRun.Result r =
        RateRun.run(
            "127.0.0.1",
            port,
            queries,
            2,
            1,
            2000,
            0.25,
            0,
            0.5,
            3,
            hooks::incrementAndGet,
            RateRun.MAX_IN_FLIGHT);
    assertThat(r.queries()).isEqualTo(1000);
    assertThat(r.fromSchedule().getTotalCount()).isEqualTo(1000);
    assertThat(hooks.get()).isEqualTo(1);
    synchronized (accepted) {
      assertThat(accepted).hasSize(3); // one connection each, for both parts
    }
  }

  @Test
  @Timeout(60)
  void theSettlingTimeIsAnsweredAndCountedButItsLatenciesAreNotRecorded() throws Exception {
    int port = serve(Integer.MAX_VALUE);
    List<byte[]> queries = List.of("4\n".getBytes(US_ASCII));
    java.util.concurrent.atomic.AtomicLong hookAt = new java.util.concurrent.atomic.AtomicLong();
    long before = System.nanoTime();
    RateRun.Result r =
        RateRun.run(
            "127.0.0.1",
            port,
            queries,
            2,
            1,
            2000,
            0.1,
            0.25,
            0.5,
            2,
            () -> hookAt.set(System.nanoTime()),
            RateRun.MAX_IN_FLIGHT);
    // 200 warm-up queries, then 1,500 counted from the readings on, of which the last 1,000 timed.
    assertThat(r.queries()).isEqualTo(1500);
    assertThat(r.fromSchedule().getTotalCount()).isEqualTo(1000);
    assertThat(r.fromSend().getTotalCount()).isEqualTo(1000);
    // The readings come after the warm-up, before the settling time: the run lasts both after it.
    assertThat(hookAt.get() - before).isGreaterThanOrEqualTo(100_000_000L);
    // From the measured part's start (query 200) to the last query's schedule (query 1,699).
    assertThat(r.seconds()).isGreaterThanOrEqualTo(1499 * 0.0005);
  }

  @Test
  @Timeout(60)
  void aSideBehindInItsWarmUpSkipsToTheMeasuredPartAndIsMeasured() throws Exception {
    // 5 ms a reply (200/s) against 1,000/s, at most 10 unanswered: the writer is far behind when
    // the measured part begins, skips the warm-up queries it has not sent, and every measured
    // query is still sent and answered (after the schedule's end, within its second of grace).
    int port = serve(Integer.MAX_VALUE, 5);
    List<byte[]> queries = new ArrayList<>();
    for (int q = 0; q < 650; q++) {
      queries.add((q + "\n").getBytes(US_ASCII)); // query i is "i": the server sees which came
    }
    java.util.concurrent.atomic.AtomicInteger hooks =
        new java.util.concurrent.atomic.AtomicInteger();
    RateRun.Result r =
        RateRun.run(
            "127.0.0.1", port, queries, 2, 1, 1000, 0.5, 0, 0.15, 1, hooks::incrementAndGet, 10);
    assertThat(r.queries()).isEqualTo(150);
    assertThat(r.fromSchedule().getTotalCount()).isEqualTo(150);
    assertThat(hooks.get()).isEqualTo(1);
    // Some 110 of the 500 warm-up queries were sent in the warm-up's half second, the rest skipped.
    assertThat(seen).hasSizeLessThan(500);
    for (long q = 500; q < 650; q++) {
      assertThat(seen).contains(q);
    }
  }

  @Test
  @Timeout(60)
  void aReplyOfTheWrongShapeFailsTheRun() throws Exception {
    int port = serve(Integer.MAX_VALUE);
    List<byte[]> queries = List.of("5\n".getBytes(US_ASCII));
    // Three names expected, two answered.
    assertThatThrownBy(
            () ->
                RateRun.run(
                    "127.0.0.1",
                    port,
                    queries,
                    3,
                    1,
                    1000,
                    0,
                    0,
                    0.2,
                    1,
                    () -> {},
                    RateRun.MAX_IN_FLIGHT))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("a reply of 2 values, not 3");
  }

  @Test
  @Timeout(60)
  void aServerThatClosesFailsTheRunInsteadOfHangingIt() throws Exception {
    int port = serve(10);
    List<byte[]> queries = List.of("1\n".getBytes(US_ASCII));
    assertThatThrownBy(
            () ->
                RateRun.run(
                    "127.0.0.1",
                    port,
                    queries,
                    2,
                    1,
                    1000,
                    0.1,
                    0,
                    0.5,
                    2,
                    () -> {},
                    RateRun.MAX_IN_FLIGHT))
        .isInstanceOf(IOException.class);
  }
}
