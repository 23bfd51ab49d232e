package io.idem.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.reply.Reply;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WaitsTest {
  private final Engine engine = Engine.inMemory();
  private final Waits waits = engine.waits();
  private static final Waits.Limit LIMIT = new Waits.Limit(3, "too many");
  private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);

  @AfterEach
  void close() {
    engine.close();
  }

  private static Reply answer(Reply deferred) throws Exception {
    return ((Reply.Deferred) deferred).future().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aWakeAnswersAndCancelsTheWaitersTimers() throws Exception {
    AtomicBoolean ready = new AtomicBoolean();
    long later = engine.now() + 60_000;
    Reply r =
        waits.await(
            LIMIT,
            KEY,
            null,
            waits.seen(KEY, null),
            later,
            60_000,
            () -> Reply.simple("timeout"),
            wanted ->
                ready.get()
                    ? new Waits.Outcome.Answer(Reply.simple("woken"))
                    : new Waits.Outcome.Later(later));
    // No wake since the command's own try: its timeout and its next try are scheduled.
    awaitScheduled(2);
    ready.set(true);
    waits.wake(KEY, null);
    assertThat(answer(r)).isEqualTo(Reply.simple("woken"));
    awaitScheduled(0);
    assertThat(waits.size()).isZero();
  }

  @Test
  void aWakeOfAnotherItemLeavesTheWaiterAlone() throws Exception {
    AtomicInteger tries = new AtomicInteger();
    byte[] a = "a".getBytes(StandardCharsets.UTF_8);
    Reply r =
        waits.await(
            LIMIT,
            KEY,
            a,
            waits.seen(KEY, a),
            Long.MAX_VALUE,
            300,
            () -> Reply.simple("timeout"),
            wanted -> {
              tries.incrementAndGet();
              return new Waits.Outcome.Later(Long.MAX_VALUE);
            });
    waits.wake(KEY, "b".getBytes(StandardCharsets.UTF_8));
    waits.wake("other".getBytes(StandardCharsets.UTF_8), a);
    assertThat(answer(r)).isEqualTo(Reply.simple("timeout"));
    assertThat(tries.get()).isZero();
    awaitScheduled(0);
  }

  @Test
  void pastTheLimitAWaitIsRefusedAndAnsweredOnesFreeTheirPlace() throws Exception {
    Reply[] held = new Reply[3];
    for (int i = 0; i < 3; i++) {
      held[i] = waits.await(LIMIT, KEY, null, 0, Long.MAX_VALUE, 0, () -> Reply.NULL, w -> later());
    }
    Reply refused =
        waits.await(LIMIT, KEY, null, 0, Long.MAX_VALUE, 0, () -> Reply.NULL, w -> later());
    assertThat(refused).isEqualTo(Reply.err("too many"));
    ((Reply.Deferred) held[0]).future().complete(Reply.NULL); // its client went away
    Reply admitted =
        waits.await(
            LIMIT,
            KEY,
            null,
            -1, // a wake came since the command's try: tried at once
            Long.MAX_VALUE,
            0,
            () -> Reply.NULL,
            w -> new Waits.Outcome.Answer(Reply.simple("ok")));
    assertThat(answer(admitted)).isEqualTo(Reply.simple("ok"));
  }

  @Test
  void aWriteForAnAnsweredWaiterIsUndone() throws Exception {
    AtomicBoolean undone = new AtomicBoolean();
    AtomicBoolean write = new AtomicBoolean();
    Reply r =
        waits.await(
            LIMIT,
            KEY,
            null,
            waits.seen(KEY, null),
            Long.MAX_VALUE,
            0,
            () -> Reply.NULL,
            wanted -> {
              if (!write.get()) {
                return new Waits.Outcome.Later(Long.MAX_VALUE);
              }
              // The waiter is answered between the write and its delivery (a closed connection).
              ((Reply.Deferred) heldReply[0]).future().complete(Reply.simple("closed"));
              return new Waits.Outcome.Deliver(Reply.simple("leased"), () -> undone.set(true));
            });
    heldReply[0] = r;
    write.set(true);
    waits.wake(KEY, null);
    assertThat(answer(r)).isEqualTo(Reply.simple("closed"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!undone.get() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(undone).isTrue();
  }

  private final Reply[] heldReply = new Reply[1];

  private static Waits.Outcome later() {
    return new Waits.Outcome.Later(Long.MAX_VALUE);
  }

  @Test
  void aWakeBetweenTheCommandsTryAndItsRegistrationIsNotMissed() throws Exception {
    long seen = waits.seen(KEY, null);
    AtomicBoolean written = new AtomicBoolean();
    written.set(true); // the write the command's try did not see ...
    waits.wake(KEY, null); // ... woke no one: no one was registered yet
    Reply r =
        waits.await(
            LIMIT,
            KEY,
            null,
            seen,
            Long.MAX_VALUE,
            0,
            () -> Reply.NULL,
            w ->
                written.get()
                    ? new Waits.Outcome.Answer(Reply.simple("found"))
                    : new Waits.Outcome.Later(Long.MAX_VALUE));
    assertThat(answer(r)).isEqualTo(Reply.simple("found"));
  }

  private void awaitScheduled(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (waits.scheduled() != n && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(waits.scheduled()).isEqualTo(n);
  }

  /**
   * A try submitted elsewhere (a cluster record): its timeout waits for it and then answers; a
   * submitted try that found nothing tries again at once if woken meanwhile; one that leased for a
   * waiter answered meanwhile runs its undo.
   */
  @Test
  void aSubmittedTry_holdsTheTimeout_andIsUndoneForAWaiterGone() throws Exception {
    java.util.concurrent.CompletableFuture<Waits.Outcome> out =
        new java.util.concurrent.CompletableFuture<>();
    AtomicInteger tries = new AtomicInteger();
    Reply r =
        waits.await(
            LIMIT,
            KEY,
            null,
            waits.seen(KEY, null),
            Long.MIN_VALUE,
            200,
            () -> Reply.simple("timeout"),
            wanted ->
                tries.incrementAndGet() == 1
                    ? new Waits.Outcome.Submitted(out)
                    : new Waits.Outcome.Later(Long.MAX_VALUE));
    waits.wake(KEY, null); // its first try submits
    while (tries.get() == 0) {
      Thread.sleep(10);
    }
    Thread.sleep(400); // past the timeout, which must not answer over the submitted try
    assertThat(((Reply.Deferred) r).future()).isNotDone();
    waits.wake(KEY, null); // a wake while out: skipped, remembered
    out.complete(new Waits.Outcome.Later(Long.MAX_VALUE));
    assertThat(answer(r)).isEqualTo(Reply.simple("timeout"));

    // A waiter answered while its try was out: the try's leases are undone.
    java.util.concurrent.CompletableFuture<Waits.Outcome> out2 =
        new java.util.concurrent.CompletableFuture<>();
    AtomicBoolean undone = new AtomicBoolean();
    java.util.concurrent.CountDownLatch submitted = new java.util.concurrent.CountDownLatch(1);
    Reply r2 =
        waits.await(
            LIMIT,
            KEY,
            null,
            waits.seen(KEY, null) - 1, // a wake came since its own try: it tries at once
            Long.MAX_VALUE,
            0,
            () -> Reply.simple("timeout"),
            wanted -> {
              submitted.countDown();
              return new Waits.Outcome.Submitted(out2);
            });
    assertThat(submitted.await(10, TimeUnit.SECONDS)).isTrue();
    ((Reply.Deferred) r2).future().complete(Reply.simple("client gone"));
    out2.complete(new Waits.Outcome.Deliver(Reply.simple("jobs"), () -> undone.set(true)));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!undone.get() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(undone).isTrue();
    awaitScheduled(0);
    assertThat(waits.size()).isZero();
  }
}
