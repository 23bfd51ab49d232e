package io.idem.client.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.client.WithServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The payments example over real HTTP: a double-submitted payment is charged once. */
class PaymentServerTest extends WithServer {

  private PaymentServer payments;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void startPayments() throws Exception {
    payments = PaymentServer.start(0, client, Duration.ofMillis(300));
  }

  @AfterEach
  void stopPayments() {
    payments.close();
  }

  private HttpRequest pay(String key, String body) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + payments.port() + "/payments"))
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      b.header("Idempotency-Key", "\"" + key + "\"");
    }
    return b.build();
  }

  @Test
  void aPaymentSubmittedTwiceAtOnce_andRetriedLater_isChargedOnce() throws Exception {
    List<CompletableFuture<HttpResponse<String>>> clicks = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      clicks.add(
          http.sendAsync(
              pay("order-7", "{\"amount\":1200}"), HttpResponse.BodyHandlers.ofString()));
    }
    List<String> bodies = new ArrayList<>();
    for (CompletableFuture<HttpResponse<String>> c : clicks) {
      HttpResponse<String> r = c.join();
      assertThat(r.statusCode()).isEqualTo(201);
      assertThat(r.headers().firstValue("Location")).hasValue("/payments/ch_1");
      bodies.add(r.body());
    }
    assertThat(bodies).containsOnly("{\"charge\":\"ch_1\",\"amount\":1200}");
    HttpResponse<String> later =
        http.send(pay("order-7", "{\"amount\":1200}"), HttpResponse.BodyHandlers.ofString());
    assertThat(later.body()).isEqualTo("{\"charge\":\"ch_1\",\"amount\":1200}");
    assertThat(later.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(payments.charges()).containsExactly("ch_1:1200");

    HttpResponse<String> changed =
        http.send(pay("order-7", "{\"amount\":9900}"), HttpResponse.BodyHandlers.ofString());
    assertThat(changed.statusCode()).isEqualTo(422);
    HttpResponse<String> keyless =
        http.send(pay(null, "{\"amount\":1}"), HttpResponse.BodyHandlers.ofString());
    assertThat(keyless.statusCode()).isEqualTo(400);
    HttpResponse<String> next =
        http.send(pay("order-8", "{\"amount\":50}"), HttpResponse.BodyHandlers.ofString());
    assertThat(next.body()).isEqualTo("{\"charge\":\"ch_2\",\"amount\":50}");
    assertThat(payments.charges()).containsExactly("ch_1:1200", "ch_2:50");
  }
}
