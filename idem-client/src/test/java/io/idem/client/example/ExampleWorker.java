package io.idem.client.example;

import io.idem.client.AddOptions;
import io.idem.client.IdemClient;
import io.idem.client.Queue;
import io.idem.client.QueueConsumer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client guide's worker, runnable against any Idem server (scripts/example-worker.sh): it
 * queues welcome e-mails (one per user, unique for a day, five attempts with a growing backoff),
 * then sends them four at a time; "sending" fails now and then, so some jobs are retried.
 *
 * <pre>
 * scripts/example-worker.sh redis://127.0.0.1:6379 [jobs]
 * </pre>
 */
public final class ExampleWorker {

  private ExampleWorker() {}

  /** Queues {@code jobs} e-mails and sends them; returns how many were sent. */
  public static int run(String uri, int jobs) throws Exception {
    try (IdemClient idem = IdemClient.create(uri)) {
      Queue emails = idem.queue("example:emails");
      int fresh = 0;
      for (int i = 0; i < jobs; i++) {
        String user = "user-" + i + "@example.com";
        Queue.Added added =
            emails.add(
                ("welcome " + user).getBytes(StandardCharsets.UTF_8),
                AddOptions.defaults()
                    .id("welcome:" + user)
                    .unique(Duration.ofDays(1))
                    .attempts(5)
                    .exponentialBackoff(Duration.ofMillis(20), Duration.ofSeconds(1)));
        if (added.outcome() == Queue.Outcome.NEW) {
          fresh++;
        } else {
          System.out.println(added.id() + " was queued already: " + added.state());
        }
      }
      if (fresh == 0) {
        return 0;
      }
      AtomicInteger sent = new AtomicInteger();
      AtomicInteger failures = new AtomicInteger();
      CountDownLatch all = new CountDownLatch(fresh);
      QueueConsumer consumer =
          new QueueConsumer(idem, "example:emails", Duration.ofSeconds(30), 10);
      try (AutoCloseable worker =
          consumer.process(
              4,
              job -> {
                if (job.attempt() == 1 && job.idText().hashCode() % 5 == 0) {
                  failures.incrementAndGet();
                  throw new IllegalStateException("mail server busy"); // retried after a backoff
                }
                sent.incrementAndGet();
                all.countDown();
              })) {
        if (!all.await(60, TimeUnit.SECONDS)) {
          throw new IllegalStateException("only " + sent + " of " + fresh + " sent in 60 s");
        }
      }
      System.out.printf(
          "sent %d e-mails (%d first attempts failed and were retried); queue now %s%n",
          sent.get(), failures.get(), emails.info());
      return sent.get();
    }
  }

  public static void main(String[] args) throws Exception {
    run(
        args.length > 0 ? args[0] : "redis://127.0.0.1:6379",
        args.length > 1 ? Integer.parseInt(args[1]) : 100);
  }
}
