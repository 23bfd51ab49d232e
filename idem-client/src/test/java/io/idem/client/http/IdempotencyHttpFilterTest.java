package io.idem.client.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpServer;
import io.idem.client.IdemClient;
import io.idem.client.IdempotencyKeys;
import io.idem.client.WithServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The JDK HttpServer filter over real HTTP against a real Idem server: many concurrent duplicates
 * of one request run it once and all get its response byte for byte; another body under the key
 * gets 422; a missing key 400; a server error stored or run again as the policy says.
 */
class IdempotencyHttpFilterTest extends WithServer {

  private IdempotencyKeys keys;
  private HttpServer http;
  private final ExecutorService handlers = Executors.newFixedThreadPool(64);
  private final HttpClient browser =
      HttpClient.newBuilder().executor(Executors.newFixedThreadPool(8)).build();
  private final AtomicInteger runs = new AtomicInteger();
  private final Random random = new Random(45);

  @BeforeEach
  void reserve() {
    keys = client.idempotencyKeys("api");
    keys.reserve(Duration.ofDays(1), 65_536, Duration.ofSeconds(30));
  }

  private URI serve(IdempotencyPolicy policy, int status) throws Exception {
    http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    http.setExecutor(handlers);
    HttpContext ctx =
        http.createContext(
            "/orders",
            ex -> {
              byte[] in = ex.getRequestBody().readAllBytes();
              int run = runs.incrementAndGet();
              try {
                Thread.sleep(200); // the duplicates arrive while it runs
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              byte[] out =
                  ("order "
                          + random.nextLong()
                          + " for "
                          + new String(in, StandardCharsets.UTF_8)
                          + ", run "
                          + run)
                      .getBytes(StandardCharsets.UTF_8);
              ex.getResponseHeaders().add("Content-Type", "text/plain");
              ex.getResponseHeaders().add("Location", "/orders/" + run);
              ex.getResponseHeaders().add("X-Not-Stored", "run " + run);
              ex.sendResponseHeaders(status, out.length);
              ex.getResponseBody().write(out);
              ex.close();
            });
    ctx.getFilters().add(new IdempotencyHttpFilter(keys, policy));
    http.start();
    return URI.create("http://127.0.0.1:" + http.getAddress().getPort() + "/orders");
  }

  @AfterEach
  void stopHttp() {
    if (http != null) {
      http.stop(0);
    }
    handlers.shutdownNow();
    keys.close();
  }

  private HttpResponse<byte[]> post(URI uri, String key, String body) throws Exception {
    HttpRequest.Builder r =
        HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      r.header("Idempotency-Key", key);
    }
    return browser.send(r.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  private List<HttpResponse<byte[]>> concurrently(URI uri, String key, String body, int n)
      throws Exception {
    ExecutorService callers = Executors.newFixedThreadPool(n);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<HttpResponse<byte[]>>> fs = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        fs.add(
            callers.submit(
                () -> {
                  go.await();
                  return post(uri, key, body);
                }));
      }
      go.countDown();
      List<HttpResponse<byte[]>> out = new ArrayList<>();
      for (Future<HttpResponse<byte[]>> f : fs) {
        out.add(f.get(60, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      callers.shutdownNow();
    }
  }

  private static String text(HttpResponse<byte[]> r) {
    return new String(r.body(), StandardCharsets.UTF_8);
  }

  @Test
  void fiftyConcurrentDuplicates_runOnce_andAllGetTheFirstResponseByteForByte() throws Exception {
    URI uri = serve(IdempotencyPolicy.defaults().waitWhileInProgress(Duration.ofSeconds(20)), 201);
    List<HttpResponse<byte[]>> all = concurrently(uri, "\"order-7\"", "{\"amount\":100}", 50);
    assertThat(runs).hasValue(1);
    HttpResponse<byte[]> first =
        all.stream()
            .filter(r -> r.headers().firstValue("X-Not-Stored").isPresent())
            .findFirst()
            .orElseThrow();
    for (HttpResponse<byte[]> r : all) {
      assertThat(r.statusCode()).isEqualTo(201);
      assertThat(r.body()).isEqualTo(first.body());
      assertThat(r.headers().firstValue("Location"))
          .isEqualTo(first.headers().firstValue("Location"));
      assertThat(r.headers().firstValue("Content-Type")).hasValue("text/plain");
    }
    assertThat(all.stream().filter(r -> r.headers().firstValue("Idempotent-Replayed").isPresent()))
        .hasSize(49);
    // A later retry too; another body under the key is refused.
    assertThat(post(uri, "order-7", "{\"amount\":100}").body()).isEqualTo(first.body());
    HttpResponse<byte[]> other = post(uri, "order-7", "{\"amount\":999}");
    assertThat(other.statusCode()).isEqualTo(422);
    assertThat(other.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(runs).hasValue(1);
  }

  @Test
  void withoutWaiting_aRetryWhileItRuns_gets409AndRetryAfter() throws Exception {
    URI uri = serve(IdempotencyPolicy.defaults(), 200);
    List<HttpResponse<byte[]>> all = concurrently(uri, "k", "b", 10);
    assertThat(runs).hasValue(1);
    assertThat(all.stream().filter(r -> r.statusCode() == 200)).hasSize(1);
    assertThat(all.stream().filter(r -> r.statusCode() == 409))
        .hasSize(9)
        .allSatisfy(r -> assertThat(r.headers().firstValue("Retry-After")).isPresent());
    assertThat(post(uri, "k", "b").statusCode()).isEqualTo(200);
    assertThat(runs).hasValue(1);
  }

  @Test
  void aMissingKey_is400WhenRequired_andPassesThroughWhenNot() throws Exception {
    URI uri = serve(IdempotencyPolicy.defaults().keyRequired(true), 200);
    HttpResponse<byte[]> r = post(uri, null, "b");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(text(r)).contains("Idempotency-Key");
    assertThat(post(uri, "", "b").statusCode()).isEqualTo(400);
    assertThat(runs).hasValue(0);
    http.stop(0);
    URI open = serve(IdempotencyPolicy.defaults(), 200);
    assertThat(post(open, null, "b").statusCode()).isEqualTo(200);
    assertThat(post(open, null, "b").statusCode()).isEqualTo(200);
    assertThat(runs).hasValue(2);
  }

  @Test
  void aBodyOverTheBound_is413_andRunsNothing() throws Exception {
    URI uri = serve(IdempotencyPolicy.defaults().maxBodyBytes(10), 200);
    assertThat(post(uri, "big", "12345678901").statusCode()).isEqualTo(413);
    assertThat(runs).hasValue(0);
    assertThat(post(uri, "small", "1234567890").statusCode()).isEqualTo(200);
    assertThat(runs).hasValue(1);
  }

  @Test
  void anUnreachableStore_is503WithRetryAfter_andRunsNothing() throws Exception {
    keys.close();
    try (IdemClient quick =
        IdemClient.create("redis://127.0.0.1:" + server.port() + "?timeout=500ms")) {
      keys = quick.idempotencyKeys("api");
      URI uri = serve(IdempotencyPolicy.defaults(), 200);
      assertThat(post(uri, "up", "b").statusCode()).isEqualTo(200);
      server.close(); // Idem goes away under the running service
      HttpResponse<byte[]> r = post(uri, "down", "b");
      assertThat(r.statusCode()).isEqualTo(503);
      assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
      assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
      assertThat(runs).as("only the request made while Idem was up").hasValue(1);
    }
  }

  @Test
  void serverErrors_areStoredOrRunAgain_asThePolicySays() throws Exception {
    URI stored = serve(IdempotencyPolicy.defaults(), 500);
    assertThat(post(stored, "e", "b").statusCode()).isEqualTo(500);
    assertThat(post(stored, "e", "b").statusCode()).isEqualTo(500);
    assertThat(runs).as("Stripe's way: a stored 500").hasValue(1);
    http.stop(0);
    URI again = serve(IdempotencyPolicy.defaults().storeServerErrors(false), 500);
    post(again, "e2", "b");
    post(again, "e2", "b");
    assertThat(runs).as("one more, then one more again").hasValue(3);
  }
}
