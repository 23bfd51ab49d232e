package io.idem.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.client.Queue.Job;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The typed queue API and its consumer, against a real server started in-process. */
class QueueClientTest extends WithServer {

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void typedCalls_addReserveFailAndDeadLetters() throws Exception {
    Queue q = client.queue("emails");
    AddOptions once =
        AddOptions.defaults()
            .id("welcome:a")
            .unique(Duration.ofHours(1))
            .attempts(2)
            .fixedBackoff(Duration.ofMillis(200));
    assertThat(q.add(b("hi a"), once))
        .isEqualTo(new Queue.Added(Queue.Outcome.NEW, "welcome:a", Queue.State.WAITING));
    assertThat(q.add(b("hi a"), once).outcome()).isEqualTo(Queue.Outcome.DUPLICATE);
    Job first = q.reserve(10, Duration.ofSeconds(30)).get(0);
    assertThat(first.idText()).isEqualTo("welcome:a");
    assertThat(s(first.payload())).isEqualTo("hi a");
    assertThat(first.attempt()).isEqualTo(1);
    Instant before = Instant.now();
    Queue.Failed retry = q.fail(first, "mailbox full");
    Instant after = Instant.now();
    assertThat(retry.outcome()).isEqualTo(Queue.FailOutcome.RETRY);
    // Due after the backoff, less up to a fifth of it (the jitter), from the fail's own time.
    assertThat(retry.retryAt())
        .isBetween(before.minusMillis(1).plusMillis(160), after.plusMillis(200));
    // Delayed until then; ready only if that time has passed (a loaded machine may take that long).
    Queue.Info info = q.info();
    if (!info.equals(new Queue.Info(0, 1, 0, 0))) {
      assertThat(info).isEqualTo(new Queue.Info(1, 0, 0, 0));
      assertThat(Instant.now()).isAfterOrEqualTo(retry.retryAt());
    }
    Job second =
        Queue.join(q.reserveAsync(1, Duration.ofSeconds(30), Duration.ofSeconds(5))).get(0);
    assertThat(second.attempt()).isEqualTo(2);
    assertThat(q.ack(first)).isZero(); // the first lease's token is stale
    assertThat(q.fail(second, "mailbox still full").outcome()).isEqualTo(Queue.FailOutcome.DEAD);
    Queue.DeadJob dead = q.dead(10).get(0);
    assertThat(dead.errors()).containsExactly("mailbox full", "mailbox still full");
    assertThat(q.fail(second, "again").outcome()).isEqualTo(Queue.FailOutcome.NOT_LEASED);
    assertThat(q.replayAll()).isEqualTo(1);
    assertThat(q.info()).isEqualTo(new Queue.Info(1, 0, 0, 0));
    assertThatThrownBy(() -> client.queue("nothing").info())
        .isInstanceOf(IdemException.class)
        .hasMessageContaining("no such queue");
  }

  @Test
  void aThousandJobs_fourAtATime_eachProcessedOnceAndAcked() throws Exception {
    Queue q = client.queue("work");
    for (int i = 0; i < 1000; i++) {
      q.add(b("job-" + i));
    }
    Map<String, Integer> seen = new ConcurrentHashMap<>();
    CountDownLatch all = new CountDownLatch(1000);
    QueueConsumer consumer = new QueueConsumer(client, "work", Duration.ofSeconds(30), 10);
    try (AutoCloseable running =
        consumer.process(
            4,
            job -> {
              seen.merge(s(job.payload()), 1, Integer::sum);
              all.countDown();
            })) {
      assertThat(all.await(60, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(seen).hasSize(1000);
    assertThat(seen.values()).containsOnly(1);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!q.info().equals(new Queue.Info(0, 0, 0, 0)) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(q.info()).isEqualTo(new Queue.Info(0, 0, 0, 0)); // every one acked
  }

  @Test
  void aJobThatRunsPastItsLease_isKeptByTheConsumer_andAThrowingOneEndsDead() throws Exception {
    Queue q = client.queue("slow");
    q.add(b("slow"), AddOptions.defaults().id("slow").attempts(2));
    q.add(
        b("bad"), AddOptions.defaults().id("bad").attempts(2).fixedBackoff(Duration.ofMillis(50)));
    Map<String, Integer> runs = new ConcurrentHashMap<>();
    CountDownLatch slowDone = new CountDownLatch(1);
    // A lease of 2 s, extended every second: a machine stalled for less than that keeps it.
    QueueConsumer consumer = new QueueConsumer(client, "slow", Duration.ofSeconds(2), 1);
    try (AutoCloseable running =
        consumer.process(
            2,
            job -> {
              runs.merge(job.idText() + "#" + job.attempt(), 1, Integer::sum);
              if (job.idText().equals("bad")) {
                throw new IllegalStateException("boom " + job.attempt());
              }
              try {
                Thread.sleep(5000); // two and a half leases: the consumer extends it meanwhile
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              slowDone.countDown();
            })) {
      assertThat(slowDone.await(20, TimeUnit.SECONDS)).isTrue();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (q.info().dead() < 1 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      Thread.sleep(2100); // a lease's length more: a job given up would be handed out again
    }
    assertThat(runs).containsEntry("slow#1", 1).doesNotContainKey("slow#2"); // not handed again
    assertThat(q.info()).isEqualTo(new Queue.Info(0, 0, 0, 1)); // slow acked, bad dead
    assertThat(runs).containsEntry("bad#1", 1).containsEntry("bad#2", 1);
    assertThat(q.dead(10).get(0).errors())
        .containsExactly(
            "java.lang.IllegalStateException: boom 1", "java.lang.IllegalStateException: boom 2");
  }

  /**
   * A worker closed while its handler runs keeps the job's lease until the handler is done: no
   * other worker gets the job meanwhile. The keeper stopped at close, and a job longer than its
   * lease went to another worker while the first still ran it (finding 12).
   */
  @Test
  void closingTheWorker_whileAHandlerRuns_keepsTheLeaseUntilItReturns() throws Exception {
    Queue q = client.queue("deploy");
    q.add(b("long job"), AddOptions.defaults().id("long").attempts(3));
    CountDownLatch started = new CountDownLatch(1);
    AtomicInteger runs = new AtomicInteger();
    QueueConsumer consumer = new QueueConsumer(client, "deploy", Duration.ofMillis(1500), 1);
    AutoCloseable running =
        consumer.process(
            1,
            job -> {
              runs.incrementAndGet();
              started.countDown();
              try {
                Thread.sleep(4500); // three leases long, most of it after close began
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();
    Thread closer =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    running.close();
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                });
    int handedAgain = 0;
    while (closer.isAlive()) {
      handedAgain += q.reserve(1, Duration.ofMinutes(1)).size(); // another worker asking
      Thread.sleep(100);
    }
    closer.join();
    assertThat(handedAgain).isZero();
    assertThat(runs.get()).isEqualTo(1);
    assertThat(q.info()).isEqualTo(new Queue.Info(0, 0, 0, 0)); // acked by the first
  }

  /** A handler that throws an Error fails its job, which would otherwise stay leased forever. */
  @Test
  void aHandlerThrowingAnError_failsItsJob_ratherThanHoldingItsLease() throws Exception {
    Queue q = client.queue("errors");
    q.add(b("x"), AddOptions.defaults().id("x"));
    QueueConsumer consumer = new QueueConsumer(client, "errors", Duration.ofMillis(300), 1);
    try (AutoCloseable running =
        consumer.process(
            1,
            job -> {
              throw new AssertionError("broken invariant");
            })) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (q.info().dead() < 1 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
    }
    assertThat(q.info()).isEqualTo(new Queue.Info(0, 0, 0, 1));
    assertThat(q.dead(10).get(0).errors())
        .containsExactly("java.lang.AssertionError: broken invariant");
  }

  @Test
  void backpressure_aSubscriberRequestingOne_holdsAtMostOneLease() throws Exception {
    Queue q = client.queue("bp");
    for (int i = 0; i < 20; i++) {
      q.add(b("job-" + i));
    }
    AtomicInteger maxLeased = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(5);
    new QueueConsumer(client, "bp", Duration.ofSeconds(30), 100)
        .subscribe(
            new Flow.Subscriber<>() {
              Flow.Subscription sub;

              @Override
              public void onSubscribe(Flow.Subscription s) {
                sub = s;
                s.request(1);
              }

              @Override
              public void onNext(QueueConsumer.Delivery d) {
                maxLeased.accumulateAndGet((int) q.info().leased(), Math::max);
                d.ack();
                done.countDown();
                if (done.getCount() == 0) {
                  sub.cancel();
                } else {
                  sub.request(1);
                }
              }

              @Override
              public void onError(Throwable t) {}

              @Override
              public void onComplete() {}
            });
    assertThat(done.await(20, TimeUnit.SECONDS)).isTrue();
    assertThat(maxLeased.get()).isEqualTo(1);
    Thread.sleep(300);
    assertThat(q.info().ready()).isEqualTo(15); // nothing taken past the demand
  }

  @Test
  void bulkAdd_pause_cancel_progress_andJob() {
    Queue q = client.queue("controls");
    AddOptions retried = AddOptions.defaults().attempts(3);
    List<Queue.Added> added =
        q.addAll(
            List.of(
                new Queue.NewJob(b("one"), retried.id("one")),
                new Queue.NewJob(b("two"), retried.id("two").priority(5)),
                new Queue.NewJob(b("later"), retried.id("later").delay(Duration.ofHours(1))),
                new Queue.NewJob(b("again"), retried.id("one"))));
    assertThat(added)
        .extracting(Queue.Added::outcome)
        .containsExactly(
            Queue.Outcome.NEW, Queue.Outcome.NEW, Queue.Outcome.NEW, Queue.Outcome.DUPLICATE);
    assertThat(q.pause()).isTrue();
    assertThat(q.pause()).isFalse();
    assertThat(q.info()).isEqualTo(new Queue.Info(2, 1, 0, 0, true));
    assertThat(q.reserve(5, Duration.ofMinutes(1))).isEmpty();
    assertThat(q.resume()).isTrue();
    Job two = q.reserve(1, Duration.ofMinutes(1)).get(0);
    assertThat(two.idText()).isEqualTo("two");
    assertThat(q.progress(two, b("40%"))).isEqualTo(Queue.LeaseState.HELD);
    Queue.JobInfo info = q.job("two").orElseThrow();
    assertThat(info.state()).isEqualTo("leased");
    assertThat(s(info.progress())).isEqualTo("40%");
    assertThat(info.priority()).isEqualTo(5);
    assertThat(info.maxAttempts()).isEqualTo(3);
    assertThat(info.leaseUntil()).isAfter(Instant.now());
    assertThat(q.job("later").orElseThrow().state()).isEqualTo("delayed");
    assertThat(q.cancel("two", "later", "nope"))
        .containsExactly(
            Queue.Cancelled.LEASED, Queue.Cancelled.CANCELLED, Queue.Cancelled.NOT_FOUND);
    assertThat(q.job("two").orElseThrow().cancelled()).isTrue();
    assertThat(q.extendLease(two, Duration.ofMinutes(1))).isEqualTo(Queue.LeaseState.CANCELLED);
    assertThat(q.job("two")).isEmpty();
    assertThat(q.job("later")).isEmpty();
    Job one = q.reserve(1, Duration.ofMinutes(1)).get(0);
    assertThat(q.ack(one)).isEqualTo(1);
    assertThat(q.extendLease(one, Duration.ofMinutes(1))).isEqualTo(Queue.LeaseState.LOST);
  }

  @Test
  void aJobCancelledWhileItsHandlerRuns_interruptsTheHandler() throws Exception {
    Queue q = client.queue("cancelled-while-running");
    q.add(b("long"), AddOptions.defaults().id("long"));
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    QueueConsumer consumer = new QueueConsumer(client, q.key(), Duration.ofMillis(400), 1);
    try (AutoCloseable running =
        consumer.process(
            1,
            job -> {
              started.countDown();
              try {
                Thread.sleep(60_000);
              } catch (InterruptedException e) {
                interrupted.countDown();
              }
            })) {
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(q.cancel("long")).containsExactly(Queue.Cancelled.LEASED);
      // The next keep-alive (every 200 ms) learns of it and interrupts the handler.
      assertThat(interrupted.await(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(q.job("long")).isEmpty();
    assertThat(q.info()).isEqualTo(new Queue.Info(0, 0, 0, 0));
  }

  @Test
  void groupsAndLimits_typed() {
    Queue q = client.queue("tenants");
    assertThat(q.configure(new Queue.Limits(null, 0, null, 2)))
        .isEqualTo(new Queue.Limits(null, 0, null, 2));
    Queue.GroupInfo big =
        q.group(
            "big",
            Queue.GroupSettings.defaults()
                .weight(3)
                .rate(Queue.Rate.of(100, Duration.ofMinutes(1)).burst(5)));
    assertThat(big.weight()).isEqualTo(3);
    assertThat(big.rate()).isEqualTo(new Queue.Rate(100, Duration.ofSeconds(60), 5));
    assertThat(big.concurrency()).isNull(); // the queue's default for groups
    List<Queue.NewJob> jobs = new java.util.ArrayList<>();
    for (int i = 0; i < 6; i++) {
      jobs.add(new Queue.NewJob(b("b" + i), AddOptions.defaults().group("big")));
      jobs.add(new Queue.NewJob(b("s" + i), AddOptions.defaults().group("small")));
    }
    q.addAll(jobs);
    List<Job> leased = q.reserve(100, Duration.ofMinutes(1));
    assertThat(leased).hasSize(4); // two a group: GROUP-CONCURRENCY 2
    assertThat(q.job(leased.get(0).idText()).orElseThrow().group()).isIn("big", "small");
    assertThat(q.groups())
        .extracting(Queue.GroupInfo::name, Queue.GroupInfo::leased, Queue.GroupInfo::jobs)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("big", 2L, 6L),
            org.assertj.core.groups.Tuple.tuple("small", 2L, 6L));
    assertThat(q.pause("small")).isTrue();
    q.ack(leased.toArray(Job[]::new));
    assertThat(q.reserve(100, Duration.ofMinutes(1)))
        .extracting(j -> s(j.payload()).substring(0, 1))
        .containsExactly("b", "b");
    assertThat(q.resume("small")).isTrue();
    assertThat(q.limits()).isEqualTo(new Queue.Limits(null, 0, null, 2));
  }

  @Test
  void schedules_typed() throws Exception {
    Queue q = client.queue("repeating");
    assertThat(
            q.schedule(
                "beat",
                Queue.Repeat.every(Duration.ofMillis(200)).missedAll(10),
                b("tick"),
                AddOptions.defaults().attempts(2)))
        .isTrue();
    assertThat(
            q.schedule(
                "nightly",
                Queue.Repeat.cron("0 2 * * *", java.time.ZoneId.of("Europe/Paris")),
                b("report"),
                AddOptions.defaults()))
        .isTrue();
    long deadline = System.nanoTime() + 10_000_000_000L;
    List<Job> runs = new java.util.ArrayList<>();
    while (runs.size() < 3 && System.nanoTime() < deadline) {
      runs.addAll(Queue.join(q.reserveAsync(10, Duration.ofMinutes(1), Duration.ofSeconds(1))));
    }
    assertThat(runs).hasSizeGreaterThanOrEqualTo(3);
    assertThat(runs).allSatisfy(j -> assertThat(j.idText()).startsWith("beat:"));
    assertThat(runs.stream().map(Job::idText).distinct().count()).isEqualTo(runs.size());
    List<Queue.ScheduleInfo> all = q.schedules();
    assertThat(all).extracting(Queue.ScheduleInfo::name).containsExactly("beat", "nightly");
    assertThat(all.get(1).when()).isEqualTo("cron 0 2 * * * Europe/Paris");
    assertThat(all.get(1).next()).isAfter(java.time.Instant.now());
    assertThat(q.unschedule("beat")).isTrue();
    assertThatThrownBy(
            () ->
                q.schedule(
                    "bad",
                    Queue.Repeat.cron("nope", java.time.ZoneOffset.UTC),
                    b("x"),
                    AddOptions.defaults()))
        .isInstanceOf(IdemException.class)
        .hasMessageContaining("cron expression");
  }

  @Test
  void results_typed() {
    Queue q = client.queue("with-results");
    q.keepResults(Duration.ofDays(7));
    q.add(b("job"), AddOptions.defaults().id("r1"));
    q.add(b("job"), AddOptions.defaults().id("r2"));
    List<Job> jobs = q.reserve(2, Duration.ofMinutes(1));
    assertThat(q.complete(jobs.get(0), b("{\"ok\":1}"))).isEqualTo(Queue.Completed.DONE);
    assertThat(q.complete(jobs.get(0), b("again"))).isEqualTo(Queue.Completed.NOT_LEASED);
    q.cancel("r2");
    assertThat(q.complete(jobs.get(1), b("x"))).isEqualTo(Queue.Completed.CANCELLED);
    Queue.Result r = q.result("r1").orElseThrow();
    assertThat(s(r.value())).isEqualTo("{\"ok\":1}");
    assertThat(r.attempts()).isEqualTo(1);
    assertThat(q.result("r2")).isEmpty();
    q.keepEvents(100);
    q.add(b("e"), AddOptions.defaults().id("e1"));
    List<Queue.Event> events = q.events(0, 10, Duration.ofSeconds(1));
    assertThat(events)
        .extracting(Queue.Event::type, Queue.Event::jobId)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("added", "e1"));
    assertThat(q.events(events.get(0).id(), 10, null)).isEmpty();
    assertThat(q.limits()).isEqualTo(Queue.Limits.none());
  }

  /**
   * A flow through the typed calls: workers complete the parts with results, and the report's
   * worker, handed the parent only once every part is done, reads them.
   */
  @Test
  void flows_typed() throws Exception {
    Queue q = client.queue("flows");
    List<Queue.Added> added =
        q.flow(
            Queue.FlowSpec.root(b("report"), AddOptions.defaults().id("report"))
                .child(b("3"), AddOptions.defaults().id("part-a"))
                .child(b("4"), AddOptions.defaults().id("part-b"))
                .child("part-b", b("5"), AddOptions.defaults().id("part-b1"), null));
    assertThat(added)
        .extracting(Queue.Added::state)
        .containsExactly(
            Queue.State.WAITING_CHILDREN,
            Queue.State.WAITING,
            Queue.State.WAITING_CHILDREN,
            Queue.State.WAITING);
    Map<String, String> sums = new ConcurrentHashMap<>();
    CountDownLatch reported = new CountDownLatch(1);
    QueueConsumer consumer = new QueueConsumer(client, q.key(), Duration.ofSeconds(30), 4);
    try (AutoCloseable running =
        consumer.process(
            2,
            job -> {
              List<Queue.Child> children = q.children(job.idText()).orElse(List.of());
              int sum = Integer.parseInt(job.idText().equals("report") ? "0" : s(job.payload()));
              for (Queue.Child c : children) {
                assertThat(c.state()).isEqualTo("done");
                sum += Integer.parseInt(s(c.result()));
              }
              sums.put(job.idText(), Integer.toString(sum));
              q.complete(job, b(Integer.toString(sum)));
              if (job.idText().equals("report")) {
                reported.countDown();
              }
            })) {
      assertThat(reported.await(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(sums)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("part-a", "3", "part-b1", "5", "part-b", "9", "report", "12"));
    assertThat(q.children("report")).isEmpty(); // the report was acked: its children's rows went
    assertThatThrownBy(
            () ->
                q.flow(
                    Queue.FlowSpec.root(b("again"), AddOptions.defaults().id("x"))
                        .child(b("dup"), AddOptions.defaults().id("x"))))
        .hasMessageContaining("job id x is taken");
  }

  /** The event feed: as many events as requested, in order, then more as they come. */
  @Test
  void eventFeed_deliversWhatIsRequested_inOrder() throws Exception {
    Queue q = client.queue("feed");
    q.keepEvents(100);
    java.util.concurrent.LinkedBlockingQueue<Queue.Event> got =
        new java.util.concurrent.LinkedBlockingQueue<>();
    Flow.Subscription[] sub = new Flow.Subscription[1];
    q.eventFeed(0)
        .subscribe(
            new Flow.Subscriber<>() {
              @Override
              public void onSubscribe(Flow.Subscription s) {
                sub[0] = s;
                s.request(3);
              }

              @Override
              public void onNext(Queue.Event e) {
                got.add(e);
              }

              @Override
              public void onError(Throwable t) {}

              @Override
              public void onComplete() {}
            });
    for (int i = 0; i < 5; i++) {
      q.add(b("e"), AddOptions.defaults().id("f" + i));
    }
    List<String> ids = new java.util.ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ids.add(got.poll(10, TimeUnit.SECONDS).jobId());
    }
    assertThat(ids).containsExactly("f0", "f1", "f2");
    assertThat(got.poll(1500, TimeUnit.MILLISECONDS)).as("nothing past the demand").isNull();
    sub[0].request(10);
    assertThat(got.poll(10, TimeUnit.SECONDS).jobId()).isEqualTo("f3");
    assertThat(got.poll(10, TimeUnit.SECONDS).jobId()).isEqualTo("f4");
    List<Job> leased = q.reserve(1, Duration.ofMinutes(1));
    Queue.Event e = got.poll(10, TimeUnit.SECONDS);
    assertThat(e.type()).isEqualTo("leased");
    assertThat(e.jobId()).isEqualTo(leased.get(0).idText());
    sub[0].cancel();
  }
}
