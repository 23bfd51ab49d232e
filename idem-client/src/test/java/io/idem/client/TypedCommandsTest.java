package io.idem.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Every typed family but the queue (QueueClientTest): dedup claims with UUIDs, filters, sketches,
 * windows.
 */
class TypedCommandsTest extends WithServer {

  /** Fifty callers at once against a limit of ten an hour: exactly ten are let through. */
  @Test
  void aRateLimiter_letsThroughExactlyItsLimit_underConcurrentCallers() throws Exception {
    RateLimiter limiter = client.rateLimiter("api:42", 9, 1, Duration.ofHours(1));
    java.util.concurrent.ExecutorService callers =
        java.util.concurrent.Executors.newFixedThreadPool(16);
    try {
      List<java.util.concurrent.Future<RateLimiter.Decision>> all = new java.util.ArrayList<>();
      for (int i = 0; i < 50; i++) {
        all.add(callers.submit(() -> limiter.acquire()));
      }
      int allowed = 0;
      for (java.util.concurrent.Future<RateLimiter.Decision> f : all) {
        RateLimiter.Decision d = f.get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(d.limit()).isEqualTo(10);
        if (d.allowed()) {
          allowed++;
          assertThat(d.retryAfter()).isNull();
        } else {
          assertThat(d.remaining()).isZero();
          assertThat(d.retryAfter()).isBetween(Duration.ofMinutes(59), Duration.ofHours(1));
        }
      }
      assertThat(allowed).isEqualTo(10);
    } finally {
      callers.shutdownNow();
    }
    RateLimiter.Decision look = limiter.acquire(0);
    assertThat(look.allowed()).isTrue();
    assertThat(look.remaining()).isZero();
    assertThat(look.resetAfter()).isBetween(Duration.ofHours(9), Duration.ofHours(10));
    RateLimiter.Decision tooBig =
        client.rateLimiter("api:43", 9, 1, Duration.ofHours(1)).acquire(11);
    assertThat(tooBig.allowed()).isFalse();
    assertThat(tooBig.retryAfter()).as("never: more than the limit").isNull();
  }

  @Test
  void dedupClaims_ofUuidsSentAs16Bytes_answerNewRetryDuplicate() {
    Dedup orders = client.dedup("orders");
    orders.reserveExact(Duration.ofHours(1));
    UUID m1 = new UUID(0x0102030405060708L, 0x090A0B0C0D0E0F10L);
    assertThat(orders.claim(m1, "p3:100")).isEqualTo(new Dedup.Claim(Dedup.Status.NEW, "p3:100"));
    assertThat(orders.claim(m1, "p3:100").status()).isEqualTo(Dedup.Status.RETRY);
    assertThat(orders.claim(m1, "p4:7"))
        .isEqualTo(new Dedup.Claim(Dedup.Status.DUPLICATE, "p3:100"));
    Map<UUID, String> batch = new LinkedHashMap<>();
    UUID m2 = UUID.randomUUID();
    batch.put(m2, "p4:8");
    batch.put(m1, "p4:9");
    assertThat(orders.claimAll(batch))
        .extracting(Dedup.Claim::status)
        .containsExactly(Dedup.Status.NEW, Dedup.Status.DUPLICATE);
    assertThat(orders.isClaimed(m1)).isTrue();
    assertThat(orders.release(m1, "p4:7")).isFalse(); // not its claim
    assertThat(orders.release(m2, "p4:8")).isTrue();
    assertThat(orders.isClaimed(m2)).isFalse();
    Dedup clicks = client.dedup("clicks");
    clicks.reserveFilter(Duration.ofMinutes(10), 0.001, 10_000);
    assertThat(clicks.claim(m1, "w")).isEqualTo(new Dedup.Claim(Dedup.Status.NEW, null));
    assertThat(clicks.claim(m1, "w").status()).isEqualTo(Dedup.Status.DUPLICATE);
    Dedup jobs = client.dedup("jobs");
    jobs.reserveRecent(Duration.ofMinutes(10), 1024);
    assertThat(jobs.claim(m1, "a").status()).isEqualTo(Dedup.Status.NEW);
    assertThat(jobs.claim(m1, "a").status()).isEqualTo(Dedup.Status.RETRY);
    // The id went over the wire as its 16 bytes, not as its 36 characters of text.
    assertThat(exists("orders", Dedup.bytes(m1))).isEqualTo(1L);
    assertThat(exists("orders", m1.toString().getBytes(StandardCharsets.US_ASCII))).isZero();
  }

  private long exists(String key, byte[] id) {
    return Queue.join(
        client.single(
            IdemClient.Keyword.of("DEDUP.EXISTS"),
            new io.lettuce.core.output.IntegerOutput<>(
                io.lettuce.core.codec.ByteArrayCodec.INSTANCE),
            IdemClient.args().addKey(key.getBytes(StandardCharsets.UTF_8)).add(id)));
  }

  @Test
  void bloomFilters_andWindowedCounters() {
    Bloom seen = client.bloom("seen");
    seen.reserve(0.001, 10_000);
    assertThat(seen.add(bytes("a"))).isTrue();
    assertThat(seen.add(bytes("a"))).isFalse();
    assertThat(seen.addAll(List.of(bytes("b"), bytes("a")))).containsExactly(true, false);
    assertThat(seen.mightContain(bytes("a"))).isTrue();
    assertThat(seen.mightContainAll(List.of(bytes("b"), bytes("never"))))
        .containsExactly(true, false);

    Counters fraud = client.counters("fraud");
    Instant now = Instant.now();
    assertThat(fraud.incrBy(null, Map.of("ip:1.2.3.4", 3L))).isEqualTo(2); // minutes and hours
    fraud.incrBy(now.minus(Duration.ofMinutes(90)), Map.of("ip:1.2.3.4", 10L));
    Map<String, long[]> counts =
        fraud.query(
            null, List.of(Duration.ofHours(1), Duration.ofHours(3)), List.of("ip:1.2.3.4", "x"));
    assertThat(counts.get("ip:1.2.3.4")).containsExactly(3, 13);
    assertThat(counts.get("x")).containsExactly(0, 0);
    // A limit of 15 an hour over the same counts: 3 counted in the last hour leave room for 12.
    Counters.Allowance a = fraud.allow("ip:1.2.3.4", 15, Duration.ofHours(1), 12);
    assertThat(a.allowed()).isTrue();
    assertThat(a.remaining()).isZero();
    assertThat(fraud.allow("ip:1.2.3.4", 15, Duration.ofHours(1), 1).allowed()).isFalse();
    assertThat(fraud.allow("ip:1.2.3.4", 15, Duration.ofHours(1), 16).reset()).isNull();
    assertThat(
            fraud
                .query(null, List.of(Duration.ofHours(1)), List.of("ip:1.2.3.4"))
                .get("ip:1.2.3.4"))
        .containsExactly(15);
  }

  @Test
  void theOtherSketches_typed() {
    Sketches.Cuckoo cf = client.cuckoo("cf");
    cf.reserve(1000);
    assertThat(cf.add(bytes("a"))).isTrue();
    assertThat(cf.addIfAbsent(bytes("a"))).isFalse();
    assertThat(cf.count(bytes("a"))).isEqualTo(1);
    assertThat(cf.delete(bytes("a"))).isTrue();
    assertThat(cf.mightContain(bytes("a"))).isFalse();

    Sketches.CountMin cms = client.countMin("cms");
    cms.reserve(0.001, 0.01);
    Map<byte[], Long> inc = new LinkedHashMap<>();
    inc.put(bytes("x"), 5L);
    inc.put(bytes("y"), 2L);
    cms.incrBy(inc);
    assertThat(cms.query(Sketches.items("x", "y", "z"))).containsExactly(5, 2, 0);

    Sketches.TopK top = client.topK("top");
    top.reserve(2);
    top.add(Sketches.items("a", "b", "a", "c", "a", "b"));
    assertThat(top.list()).containsExactly(Map.entry("a", 3L), Map.entry("b", 2L));

    Sketches.TDigest td = client.tDigest("td");
    td.create();
    td.add(1, 2, 3, 4, 5);
    assertThat(td.quantiles(0.0, 1.0)).containsExactly(1.0, 5.0);

    // The asynchronous forms give the same answers.
    assertThat(cf.addAsync(bytes("q")).toCompletableFuture().join()).isTrue();
    assertThat(seenAsync().mightContainAllAsync(Sketches.items("zz")).toCompletableFuture().join())
        .containsExactly(false);

    Sketches.HyperLogLog hll = client.hyperLogLog("hll");
    assertThat(hll.add(Sketches.items("a", "b", "c"))).isTrue();
    assertThat(hll.add(Sketches.items("a"))).isFalse();
    assertThat(hll.count()).isEqualTo(3);

    Sketches.Distinct users = client.distinct("users");
    users.add(null, Map.of("page:home", bytes("u1")));
    users.add(null, Map.of("page:home", bytes("u2")));
    users.add(null, Map.of("page:home", bytes("u1")));
    assertThat(
            users.count(null, List.of(Duration.ofHours(1)), List.of("page:home")).get("page:home"))
        .containsExactly(2);
  }

  private Bloom seenAsync() {
    Bloom b = client.bloom("async");
    b.addAllAsync(Sketches.items("a")).toCompletableFuture().join();
    return b;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
