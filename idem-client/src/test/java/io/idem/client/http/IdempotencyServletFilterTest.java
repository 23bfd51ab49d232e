package io.idem.client.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.client.IdempotencyKeys;
import io.idem.client.WithServer;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Servlet filter in Jetty 12 (Servlet 6.0), over real HTTP against a real Idem server: many
 * concurrent duplicates run the servlet once and all get its response byte for byte; another body
 * gets 422; a missing key 400.
 */
class IdempotencyServletFilterTest extends WithServer {

  private IdempotencyKeys keys;
  private Server jetty;
  private final AtomicInteger runs = new AtomicInteger();
  private final HttpClient browser =
      HttpClient.newBuilder().executor(Executors.newFixedThreadPool(8)).build();

  /** A servlet that takes 200 ms and answers with a body of its own each run. */
  private final class Orders extends HttpServlet {
    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
      String in = new String(req.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int run = runs.incrementAndGet();
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      res.setStatus(201);
      res.setContentType("text/plain;charset=utf-8");
      res.setHeader("Location", "/orders/" + run);
      res.setHeader("X-Not-Stored", "run " + run);
      res.getWriter().print("order " + System.nanoTime() + " for " + in + ", run " + run);
    }
  }

  @BeforeEach
  void startJetty() throws Exception {
    keys = client.idempotencyKeys("api");
    keys.reserve(Duration.ofDays(1), 65_536, Duration.ofSeconds(30));
    jetty = new Server();
    ServerConnector http = new ServerConnector(jetty);
    http.setHost("127.0.0.1");
    http.setPort(0);
    jetty.addConnector(http);
    ServletContextHandler ctx = new ServletContextHandler();
    ctx.addServlet(new ServletHolder(new Orders()), "/orders");
    ctx.addFilter(
        new FilterHolder(
            new IdempotencyServletFilter(
                keys,
                IdempotencyPolicy.defaults()
                    .keyRequired(true)
                    .waitWhileInProgress(Duration.ofSeconds(20)))),
        "/*",
        EnumSet.of(DispatcherType.REQUEST));
    jetty.setHandler(ctx);
    jetty.start();
  }

  @AfterEach
  void stopJetty() throws Exception {
    jetty.stop();
    keys.close();
  }

  private URI uri() {
    return URI.create(
        "http://127.0.0.1:"
            + ((ServerConnector) jetty.getConnectors()[0]).getLocalPort()
            + "/orders");
  }

  private HttpResponse<byte[]> post(String key, String body) throws Exception {
    HttpRequest.Builder r =
        HttpRequest.newBuilder(uri()).POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      r.header("Idempotency-Key", key);
    }
    return browser.send(r.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  @Test
  void concurrentDuplicates_runTheServletOnce_andAllGetItsResponseByteForByte() throws Exception {
    int n = 30;
    ExecutorService callers = Executors.newFixedThreadPool(n);
    List<HttpResponse<byte[]>> all = new ArrayList<>();
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<HttpResponse<byte[]>>> fs = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        fs.add(
            callers.submit(
                () -> {
                  go.await();
                  return post("\"order-7\"", "{\"amount\":100}");
                }));
      }
      go.countDown();
      for (Future<HttpResponse<byte[]>> f : fs) {
        all.add(f.get(60, TimeUnit.SECONDS));
      }
    } finally {
      callers.shutdownNow();
    }
    assertThat(runs).hasValue(1);
    HttpResponse<byte[]> first =
        all.stream()
            .filter(r -> r.headers().firstValue("X-Not-Stored").isPresent())
            .findFirst()
            .orElseThrow();
    for (HttpResponse<byte[]> r : all) {
      assertThat(r.statusCode()).isEqualTo(201);
      assertThat(r.body()).isEqualTo(first.body());
      assertThat(r.headers().firstValue("Location")).hasValue("/orders/1");
      assertThat(r.headers().firstValue("Content-Type")).hasValue("text/plain;charset=utf-8");
    }
    assertThat(all.stream().filter(r -> r.headers().firstValue("Idempotent-Replayed").isPresent()))
        .hasSize(n - 1);
    assertThat(post("order-7", "{\"amount\":999}").statusCode()).isEqualTo(422);
    assertThat(post(null, "{\"amount\":1}").statusCode()).isEqualTo(400);
    assertThat(runs).hasValue(1);
  }
}
