package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The queue over the network: blocked reserves, several consumers, a worker that goes away. */
class QueueServerTest {

  @TempDir Path dir;

  private static String text(Object reply) {
    return reply instanceof byte[] b
        ? new String(b, StandardCharsets.UTF_8)
        : String.valueOf(reply);
  }

  @Test
  void aBlockedReserve_wakesWhenADelayedJobBecomesDue_andOthersOnTheLoopGoOn() throws Exception {
    try (ServerHarness h = new ServerHarness(dir.resolve("d"));
        RespClient worker = new RespClient(h.port());
        RespClient producer = new RespClient(h.port())) {
      producer.call("QUEUE.ADD", "q", "hello", "DELAY", "500ms");
      long start = System.nanoTime();
      worker.send("QUEUE.RESERVE", "q", "BLOCK", "10s");
      worker.send("PING"); // pipelined behind it: answered after it, in order
      worker.flush();
      assertThat(producer.call("PING")).isEqualTo("PONG"); // the loop is free meanwhile
      List<?> jobs = (List<?>) worker.read();
      long waited = (System.nanoTime() - start) / 1_000_000;
      assertThat(text(((List<?>) jobs.get(0)).get(1))).isEqualTo("hello");
      assertThat(waited).isGreaterThanOrEqualTo(400);
      assertThat(worker.read()).isEqualTo("PONG");
    }
  }

  @Test
  void aThousandJobs_fourConsumers_eachJobProcessedOnce() throws Exception {
    try (ServerHarness h = new ServerHarness(dir.resolve("d"));
        RespClient producer = new RespClient(h.port())) {
      for (int i = 0; i < 1000; i++) {
        producer.send("QUEUE.ADD", "work", "job-" + i);
      }
      producer.flush();
      for (int i = 0; i < 1000; i++) {
        producer.read();
      }
      Map<String, Integer> seen = new ConcurrentHashMap<>();
      AtomicInteger acked = new AtomicInteger();
      List<Thread> consumers = new ArrayList<>();
      for (int c = 0; c < 4; c++) {
        consumers.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      try (RespClient w = new RespClient(h.port())) {
                        while (true) {
                          List<?> jobs =
                              (List<?>)
                                  w.call("QUEUE.RESERVE", "work", "COUNT", "7", "BLOCK", "500ms");
                          if (jobs == null) {
                            return; // nothing for half a second: the queue is drained
                          }
                          for (Object job : jobs) {
                            List<?> f = (List<?>) job;
                            seen.merge(text(f.get(1)), 1, Integer::sum);
                            Object r = w.call("QUEUE.ACK", "work", text(f.get(0)), text(f.get(2)));
                            if (Long.valueOf(1).equals(r)) {
                              acked.incrementAndGet();
                            }
                          }
                        }
                      } catch (Exception e) {
                        throw new IllegalStateException(e);
                      }
                    }));
      }
      for (Thread t : consumers) {
        t.join(60_000);
      }
      assertThat(seen).hasSize(1000);
      assertThat(seen.values()).containsOnly(1);
      assertThat(acked.get()).isEqualTo(1000);
      List<?> info = (List<?>) producer.call("QUEUE.INFO", "work"); // a flat map under RESP2
      assertThat(info.stream().map(QueueServerTest::text).toList())
          .containsExactly(
              "ready",
              "0",
              "delayed",
              "0",
              "leased",
              "0",
              "dead",
              "0",
              "paused",
              "0",
              "groups",
              "0",
              "waiting-children",
              "0");
    }
  }

  @Test
  void aWorkerThatGoesAwayMidJob_losesNothing_theJobIsDeliveredAgainAfterItsLease()
      throws Exception {
    try (ServerHarness h = new ServerHarness(dir.resolve("d"));
        RespClient producer = new RespClient(h.port())) {
      producer.call("QUEUE.ADD", "q", "charge card", "ATTEMPTS", "3");
      try (RespClient doomed = new RespClient(h.port())) {
        List<?> jobs = (List<?>) doomed.call("QUEUE.RESERVE", "q", "LEASE", "300ms");
        assertThat(jobs).hasSize(1);
      } // gone, the job unacked
      try (RespClient other = new RespClient(h.port())) {
        assertThat((List<?>) other.call("QUEUE.RESERVE", "q")).isEmpty(); // still leased
        List<?> again = (List<?>) other.call("QUEUE.RESERVE", "q", "BLOCK", "5s");
        List<?> job = (List<?>) again.get(0);
        assertThat(text(job.get(1))).isEqualTo("charge card");
        assertThat(job.get(3)).isEqualTo(2L); // its second attempt
        assertThat(other.call("QUEUE.ACK", "q", text(job.get(0)), text(job.get(2)))).isEqualTo(1L);
      }
    }
  }

  /**
   * A worker blocked in a reserve that goes away (a deploy restarts it) takes no job with it: the
   * next job added goes to a worker that is there. It went to the closed connection, leased for a
   * minute, and with one attempt became a dead letter no one saw (finding 5).
   */
  @Test
  void aWorkerThatGoesAwayWhileBlocked_takesNoJob_theNextWorkerGetsIt() throws Exception {
    try (ServerHarness h = new ServerHarness(dir.resolve("d"));
        RespClient producer = new RespClient(h.port())) {
      for (int i = 0; i < 3; i++) {
        try (RespClient doomed = new RespClient(h.port())) {
          doomed.send("QUEUE.RESERVE", "q", "LEASE", "1m", "BLOCK", "0");
          doomed.flush();
          Thread.sleep(100); // blocked on the server
        }
      }
      Thread.sleep(200); // the server has seen them close
      producer.call("QUEUE.ADD", "q", "welcome e-mail");
      try (RespClient worker = new RespClient(h.port())) {
        List<?> jobs = (List<?>) worker.call("QUEUE.RESERVE", "q", "LEASE", "1m", "BLOCK", "5s");
        assertThat(jobs).hasSize(1);
        assertThat(text(((List<?>) jobs.get(0)).get(1))).isEqualTo("welcome e-mail");
      }
    }
  }
}
