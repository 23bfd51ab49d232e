package io.idem.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.client.IdempotencyKeys.Done;
import io.idem.client.IdempotencyKeys.InProgress;
import io.idem.client.IdempotencyKeys.Mismatch;
import io.idem.client.IdempotencyKeys.ResultCodec;
import io.idem.client.IdempotencyKeys.Started;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The typed IDEMKEY.* calls and {@link IdempotencyKeys#run} against a real server. */
class IdempotencyKeysTest extends WithServer {

  private static final byte[] FP = "POST /orders 9f2c".getBytes(StandardCharsets.UTF_8);
  private static final Duration LEASE = Duration.ofSeconds(30);

  @Test
  void theCommands_answerTyped() {
    try (IdempotencyKeys keys = client.idempotencyKeys("api")) {
      keys.reserve(Duration.ofDays(1), 1024, LEASE);
      IdempotencyKeys.Begin b = keys.begin("k", FP, LEASE);
      assertThat(b).isInstanceOf(Started.class);
      long token = ((Started) b).token();
      assertThat(keys.begin("k", FP, LEASE)).isInstanceOf(InProgress.class);
      assertThat(keys.begin("k", new byte[] {1}, LEASE)).isInstanceOf(Mismatch.class);
      assertThat(keys.complete("k", token + 1, new byte[] {9})).isFalse();
      assertThat(keys.complete("k", token, "result".getBytes(StandardCharsets.UTF_8))).isTrue();
      assertThat(keys.begin("k", FP, LEASE))
          .isInstanceOfSatisfying(
              Done.class,
              d -> assertThat(new String(d.result(), StandardCharsets.UTF_8)).isEqualTo("result"));
      assertThat(keys.result("k")).asString(StandardCharsets.UTF_8).isEqualTo("result");
      assertThat(keys.result("other")).isNull();
      long t2 = ((Started) keys.begin("x", FP, LEASE)).token();
      assertThat(keys.abandon("x", t2)).isTrue();
      assertThat(keys.begin("x", FP, LEASE)).isInstanceOf(Started.class);
    }
  }

  @Test
  void manyConcurrentDuplicates_runTheWorkOnce_andAllGetItsResult() throws Exception {
    int callers = 32;
    AtomicInteger runs = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    try (IdempotencyKeys keys = client.idempotencyKeys("api")) {
      keys.reserve(Duration.ofDays(1), 1024, LEASE);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<String>> results = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        results.add(
            pool.submit(
                () -> {
                  go.await();
                  return keys.run(
                      "order-7",
                      FP,
                      LEASE,
                      Duration.ofSeconds(20),
                      ResultCodec.utf8(),
                      () -> {
                        Thread.sleep(300); // the duplicates arrive while it runs
                        return "charged once, run " + runs.incrementAndGet();
                      });
                }));
      }
      go.countDown();
      for (Future<String> f : results) {
        assertThat(f.get(30, TimeUnit.SECONDS)).isEqualTo("charged once, run 1");
      }
      assertThat(runs).hasValue(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void workThatFails_abandonsTheKey_soTheNextRetryRunsIt_andAnotherRequestIsAMismatch()
      throws Exception {
    try (IdempotencyKeys keys = client.idempotencyKeys("api")) {
      keys.reserve(Duration.ofDays(1), 1024, LEASE);
      assertThatThrownBy(
              () ->
                  keys.run(
                      "k",
                      FP,
                      LEASE,
                      Duration.ZERO,
                      ResultCodec.utf8(),
                      () -> {
                        throw new IllegalStateException("the card network timed out");
                      }))
          .isInstanceOf(IllegalStateException.class);
      assertThat(keys.run("k", FP, LEASE, Duration.ZERO, ResultCodec.utf8(), () -> "ok"))
          .isEqualTo("ok");
      assertThatThrownBy(
              () ->
                  keys.run(
                      "k", new byte[] {7}, LEASE, Duration.ZERO, ResultCodec.utf8(), () -> "x"))
          .isInstanceOf(IdempotencyKeys.FingerprintMismatchException.class);
      long token = ((Started) keys.begin("slow", FP, LEASE)).token();
      assertThatThrownBy(
              () -> keys.run("slow", FP, LEASE, Duration.ZERO, ResultCodec.utf8(), () -> "x"))
          .isInstanceOfSatisfying(
              IdempotencyKeys.KeyInProgressException.class, e -> assertThat(e.left()).isPositive());
      assertThat(keys.abandon("slow", token)).isTrue();
    }
  }
}
