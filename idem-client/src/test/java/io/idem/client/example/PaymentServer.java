package io.idem.client.example;

import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.idem.client.IdemClient;
import io.idem.client.IdemException;
import io.idem.client.IdempotencyKeys;
import io.idem.client.http.IdempotencyHttpFilter;
import io.idem.client.http.IdempotencyPolicy;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The idempotency-keys guide's example (docs/idempotency-keys.md): a payments API whose {@code POST
 * /payments} charges once per {@code Idempotency-Key}, however often a client retries, at once or
 * while the first charge runs. {@code GET /payments} lists the charges made.
 *
 * <pre>
 * ./idem serve &amp;  scripts/example-payments.sh [port] [redis://127.0.0.1:6379]
 * curl -i -X POST localhost:8080/payments -H 'Idempotency-Key: "order-7"' -d '{"amount":1200}'
 * </pre>
 */
public final class PaymentServer implements AutoCloseable {

  /** The idempotency-key table's name on the Idem server. */
  public static final String TABLE = "payments:idempotency";

  private static final Pattern AMOUNT =
      Pattern.compile("\\{\\s*\"amount\"\\s*:\\s*(\\d{1,9})\\s*}");

  private final HttpServer http;
  private final ExecutorService handlers;
  private final IdempotencyKeys keys;
  private final List<String> charges = new ArrayList<>(); // guarded by itself

  /** How long the card network takes to charge: the window in which retries arrive. */
  private final Duration chargeTime;

  private PaymentServer(
      HttpServer http, ExecutorService handlers, IdempotencyKeys keys, Duration chargeTime) {
    this.http = http;
    this.handlers = handlers;
    this.keys = keys;
    this.chargeTime = chargeTime;
  }

  /** Starts the API on {@code port} (0: a free one), its keys in {@code client}'s server. */
  public static PaymentServer start(int port, IdemClient client, Duration chargeTime)
      throws IOException {
    IdempotencyKeys keys = client.idempotencyKeys(TABLE);
    try {
      keys.reserve(Duration.ofDays(30), 16_384, Duration.ofMinutes(1));
    } catch (IdemException e) {
      if (!String.valueOf(e.getMessage()).contains("item exists")) {
        throw e;
      }
    }
    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
    ExecutorService handlers = Executors.newVirtualThreadPerTaskExecutor();
    http.setExecutor(handlers);
    PaymentServer s = new PaymentServer(http, handlers, keys, chargeTime);
    HttpContext payments = http.createContext("/payments", s::payments);
    payments
        .getFilters()
        .add(
            new IdempotencyHttpFilter(
                keys,
                IdempotencyPolicy.defaults()
                    .methods("POST")
                    .keyRequired(true)
                    .waitWhileInProgress(Duration.ofSeconds(10))
                    .storedHeaders("Content-Type", "Location")
                    .lease(Duration.ofMinutes(1))));
    http.start();
    return s;
  }

  public int port() {
    return http.getAddress().getPort();
  }

  /** The charges made, in order. */
  public List<String> charges() {
    synchronized (charges) {
      return List.copyOf(charges);
    }
  }

  private void payments(HttpExchange ex) throws IOException {
    switch (ex.getRequestMethod()) {
      case "POST" -> charge(ex);
      case "GET" -> send(ex, 200, "application/json", "{\"charges\":" + listing() + "}", null);
      default -> send(ex, 405, "text/plain", "POST or GET\n", null);
    }
  }

  private void charge(HttpExchange ex) throws IOException {
    String body = new String(ex.getRequestBody().readNBytes(4096), StandardCharsets.UTF_8);
    Matcher m = AMOUNT.matcher(body);
    if (!m.matches()) {
      send(ex, 400, "application/json", "{\"error\":\"send {\\\"amount\\\": cents}\"}", null);
      return;
    }
    try {
      Thread.sleep(chargeTime); // the card network
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while charging", e);
    }
    String id;
    synchronized (charges) {
      id = "ch_" + (charges.size() + 1);
      charges.add(id + ":" + m.group(1));
    }
    send(
        ex,
        201,
        "application/json",
        "{\"charge\":\"" + id + "\",\"amount\":" + m.group(1) + "}",
        "/payments/" + id);
  }

  private String listing() {
    StringBuilder b = new StringBuilder("[");
    for (String c : charges()) {
      b.append(b.length() > 1 ? "," : "").append('"').append(c).append('"');
    }
    return b.append(']').toString();
  }

  private static void send(HttpExchange ex, int status, String type, String text, String location)
      throws IOException {
    byte[] out = text.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    if (location != null) {
      ex.getResponseHeaders().set("Location", location);
    }
    ex.sendResponseHeaders(status, out.length);
    try (OutputStream o = ex.getResponseBody()) {
      o.write(out);
    }
  }

  @Override
  public void close() {
    http.stop(0);
    handlers.shutdownNow();
    keys.close();
  }

  public static void main(String[] args) throws Exception {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 8080;
    IdemClient client = IdemClient.create(args.length > 1 ? args[1] : "redis://127.0.0.1:6379");
    PaymentServer server = start(port, client, Duration.ofSeconds(2));
    System.out.println(
        "payments on http://127.0.0.1:" + server.port() + "/payments, keys in " + TABLE);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.close();
                  client.close();
                }));
  }
}
