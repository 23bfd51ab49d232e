package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Prometheus endpoint of a started server, fetched over real HTTP. */
class MetricsTest {

  @TempDir Path dir;
  ServerHarness server;
  HttpClient http;

  @BeforeEach
  void start() throws Exception {
    server = ServerHarness.withHttpPort(dir.resolve("data"));
    http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  }

  @AfterEach
  void stop() {
    http.close();
    server.close();
  }

  private HttpResponse<String> request(String method, String path) throws Exception {
    HttpRequest req =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.server.metricsPort() + path))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build();
    return http.send(req, HttpResponse.BodyHandlers.ofString());
  }

  private String scrape() throws Exception {
    HttpResponse<String> res = request("GET", "/metrics");
    assertThat(res.statusCode()).isEqualTo(200);
    assertThat(res.headers().firstValue("content-type"))
        .hasValue("text/plain; version=0.0.4; charset=utf-8");
    return res.body();
  }

  private static List<String> lines(String body) {
    assertThat(body).endsWith("\n");
    return List.of(body.split("\n"));
  }

  /**
   * The value of the one sample named exactly {@code series} (name and labels), as a plain decimal
   * without trailing zeros (the client writes 1.0 and 2.82E-4).
   */
  private static String value(String body, String series) {
    List<String> found = new ArrayList<>();
    for (String line : lines(body)) {
      if (line.startsWith(series + " ")) {
        found.add(line.substring(series.length() + 1));
      }
    }
    assertThat(found).as(series).hasSize(1);
    return new java.math.BigDecimal(found.get(0)).stripTrailingZeros().toPlainString();
  }

  @Test
  void metrics_isOffByDefault() throws Exception {
    try (ServerHarness plain = new ServerHarness(dir.resolve("plain"))) {
      assertThat(plain.server.config().get("metrics-port")).isEqualTo("0");
      assertThat(plain.server.metricsPort()).isZero();
    }
  }

  @Test
  void metrics_afterCommands_countsEachCommand() throws Exception {
    try (RespClient c = new RespClient(server.port())) {
      assertThat(c.call("BF.RESERVE", "bf", "0.01", "1000")).isEqualTo("OK");
      assertThat(c.call("BF.ADD", "bf", "a")).isEqualTo(1L);
      assertThat(c.call("BF.ADD", "bf", "b")).isEqualTo(1L);
      assertThat(c.call("BF.ADD", "bf", "a")).isEqualTo(0L);
      assertThat(c.call("CF.RESERVE", "cf", "1000")).isEqualTo("OK");
      assertThat(c.call("BF.ADD", "cf", "a"))
          .isEqualTo(
              new RespClient.Err(
                  "WRONGTYPE Operation against a key holding the wrong kind of value"));
      assertThat(c.call("BF.ADD", "bf"))
          .isEqualTo(new RespClient.Err("ERR wrong number of arguments for 'bf.add' command"));
      long bfBytes = (Long) c.call("MEMORY", "USAGE", "bf");
      long cfBytes = (Long) c.call("MEMORY", "USAGE", "cf");

      String body = scrape();

      assertThat(body)
          .contains(
              """
              # HELP idem_commands_total Commands run, by command: those that failed included, those rejected not.
              # TYPE idem_commands_total counter
              idem_commands_total{command="bf.add"} 4.0
              idem_commands_total{command="bf.reserve"} 1.0
              idem_commands_total{command="cf.reserve"} 1.0
              idem_commands_total{command="memory"} 2.0
              """);
      assertThat(value(body, "idem_commands_failed_total{command=\"bf.add\"}")).isEqualTo("1");
      assertThat(value(body, "idem_commands_failed_total{command=\"bf.reserve\"}")).isEqualTo("0");
      assertThat(value(body, "idem_commands_rejected_total{command=\"bf.add\"}")).isEqualTo("1");
      assertThat(lines(body))
          .contains(
              "# TYPE idem_commands_failed_total counter",
              "# TYPE idem_commands_rejected_total counter",
              "# TYPE idem_command_duration_seconds histogram");

      assertThat(body)
          .contains(
              """
              # HELP idem_connected_clients Client connections open now.
              # TYPE idem_connected_clients gauge
              idem_connected_clients 1.0
              """);
      assertThat(value(body, "idem_connections_received_total")).isEqualTo("1");
      assertThat(value(body, "idem_connections_rejected_total")).isEqualTo("0");
      assertThat(value(body, "idem_keys")).isEqualTo("2");
      assertThat(value(body, "idem_memory_used_bytes")).isEqualTo(Long.toString(bfBytes + cfBytes));
      assertThat(value(body, "idem_memory_max_bytes"))
          .isEqualTo(Long.toString(io.idem.server.dispatch.Config.defaultMaxMemory()));
      assertThat(lines(body)).contains("# TYPE idem_memory_by_type_bytes gauge");
      assertThat(value(body, "idem_memory_by_type_bytes{type=\"MBbloom--\"}"))
          .isEqualTo(Long.toString(bfBytes));
      assertThat(value(body, "idem_memory_by_type_bytes{type=\"MBbloomCF\"}"))
          .isEqualTo(Long.toString(cfBytes));
      assertThat(value(body, "idem_persistence_log_ok")).isEqualTo("1");
      assertThat(value(body, "idem_persistence_pending_changes")).matches("\\d+");
      assertThat(value(body, "idem_persistence_last_snapshot_age_seconds"))
          .matches("\\d+(\\.\\d{1,3})?");
      assertThat(Long.parseLong(value(body, "idem_disk_bytes"))).isPositive();
    }
  }

  @Test
  void queues_showTheirJobsByState_inTheMetricsAndInInfoQueues() throws Exception {
    try (RespClient c = new RespClient(server.port())) {
      c.call("QUEUE.ADD", "emails", "a");
      c.call("QUEUE.ADD", "emails", "b");
      c.call("QUEUE.ADD", "emails", "c", "DELAY", "1h");
      c.call("QUEUE.ADD", "odd,name", "x");
      assertThat((List<?>) c.call("QUEUE.RESERVE", "emails")).hasSize(1);
      String body = scrape();
      assertThat(value(body, "idem_queue_jobs{queue=\"emails\",state=\"ready\"}")).isEqualTo("1");
      assertThat(value(body, "idem_queue_jobs{queue=\"emails\",state=\"delayed\"}")).isEqualTo("1");
      assertThat(value(body, "idem_queue_jobs{queue=\"emails\",state=\"leased\"}")).isEqualTo("1");
      assertThat(value(body, "idem_queue_jobs{queue=\"emails\",state=\"dead\"}")).isEqualTo("0");
      assertThat(value(body, "idem_queues")).isEqualTo("2");
      String info =
          new String((byte[]) c.call("INFO", "queues"), java.nio.charset.StandardCharsets.UTF_8);
      assertThat(info)
          .contains("# Queues\r\nqueues:2\r\n")
          .contains("name=emails,ready=1,delayed=1,leased=1,dead=0")
          .contains("name=odd\\x2cname,ready=1,delayed=0,leased=0,dead=0");
      String plain = new String((byte[]) c.call("INFO"), java.nio.charset.StandardCharsets.UTF_8);
      assertThat(plain).doesNotContain("# Queues"); // a walk of the keyspace: only when asked
    }
  }

  @Test
  void histogram_bucketsAreCumulativeAndEndWithInf() throws Exception {
    try (RespClient c = new RespClient(server.port())) {
      for (int i = 0; i < 7; i++) {
        assertThat(c.call("PING")).isEqualTo("PONG");
      }
    }
    String body = scrape();
    String label = "{command=\"ping\"";
    Pattern bucket =
        Pattern.compile(
            "idem_command_duration_seconds_bucket\\{command=\"ping\",le=\"([^\"]+)\"} (\\d+)");
    List<Double> les = new ArrayList<>();
    List<Long> counts = new ArrayList<>();
    for (String line : lines(body)) {
      Matcher m = bucket.matcher(line);
      if (m.matches()) {
        les.add(
            m.group(1).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(m.group(1)));
        counts.add(Long.parseLong(m.group(2)));
      }
    }
    assertThat(les)
        .containsExactly(
            0.00005,
            0.0001,
            0.00025,
            0.0005,
            0.001,
            0.0025,
            0.005,
            0.01,
            0.025,
            0.05,
            0.1,
            0.25,
            0.5,
            1.0,
            2.5,
            5.0,
            10.0,
            Double.POSITIVE_INFINITY);
    assertThat(counts).isSorted();
    assertThat(counts.getLast()).isEqualTo(7L);
    assertThat(value(body, "idem_command_duration_seconds_count" + label + "}")).isEqualTo("7");
    assertThat(Double.parseDouble(value(body, "idem_command_duration_seconds_sum" + label + "}")))
        .isPositive();
    assertThat(value(body, "idem_commands_total" + label + "}")).isEqualTo("7");
  }

  @Test
  void metrics_afterSave_reportsNoLogSinceSnapshot() throws Exception {
    try (RespClient c = new RespClient(server.port())) {
      assertThat(c.call("BF.ADD", "bf", "a")).isEqualTo(1L);
      // The reply to a write waits for the log, so its record is counted by now.
      assertThat(Long.parseLong(value(scrape(), "idem_persistence_log_since_snapshot_bytes")))
          .isPositive();
      assertThat(c.call("SAVE")).isEqualTo("OK");
    }
    String body = scrape();
    assertThat(value(body, "idem_persistence_log_since_snapshot_bytes")).isEqualTo("0");
    assertThat(value(body, "idem_persistence_last_snapshot_duration_seconds"))
        .matches("\\d+(\\.\\d{1,3})?");
  }

  @Test
  void metrics_afterExpiry_countsExpiredKey() throws Exception {
    try (RespClient c = new RespClient(server.port())) {
      assertThat(c.call("BF.ADD", "short", "a")).isEqualTo(1L);
      assertThat(value(scrape(), "idem_memory_by_type_bytes{type=\"MBbloom--\"}"))
          .isEqualTo(c.call("MEMORY", "USAGE", "short").toString());
      assertThat(c.call("PEXPIRE", "short", "100")).isEqualTo(1L);
      while (!c.call("EXISTS", "short").equals(0L)) {
        Thread.sleep(2);
      }
    }
    String body = scrape();
    assertThat(value(body, "idem_expired_keys_total")).isEqualTo("1");
    assertThat(value(body, "idem_keys")).isEqualTo("0");
    // A type seen once stays, at 0, so its series does not vanish.
    assertThat(value(body, "idem_memory_by_type_bytes{type=\"MBbloom--\"}")).isEqualTo("0");
  }

  /**
   * Every sample belongs to the family whose HELP and TYPE came just before it, each family once:
   * what the text format 0.0.4 requires.
   */
  @Test
  void metrics_everyFamilyDeclaredOnceBeforeItsSamples() throws Exception {
    try (RespClient c = new RespClient(server.port())) {
      c.call("BF.ADD", "bf", "a");
    }
    Set<String> declared = new HashSet<>();
    Map<String, String> types = new TreeMap<>();
    String current = null;
    String pendingHelp = null;
    for (String line : lines(scrape())) {
      if (line.startsWith("# HELP ")) {
        pendingHelp = line.split(" ")[2];
        assertThat(pendingHelp).matches("(idem|jvm|process)_[a-z_]+");
      } else if (line.startsWith("# TYPE ")) {
        String[] parts = line.split(" ");
        assertThat(parts[2]).isEqualTo(pendingHelp);
        assertThat(declared.add(parts[2])).as("declared once: " + parts[2]).isTrue();
        assertThat(parts[3]).isIn("counter", "gauge", "histogram", "summary");
        types.put(parts[2], parts[3]);
        current = parts[2];
      } else {
        String name = line.split("[{ ]")[0];
        String family =
            "histogram".equals(types.get(current)) || "summary".equals(types.get(current))
                ? name.replaceFirst("_(bucket|sum|count)$", "")
                : name;
        assertThat(family).as(line).isEqualTo(current);
        assertThat(line).matches("[a-z_]+(\\{[a-z_]+=\"[^\"]*\"(,[a-z_]+=\"[^\"]*\")*})? \\S+");
      }
    }
    assertThat(types).containsEntry("idem_commands_total", "counter");
  }

  /** The JVM's metrics come with Idem's, from Prometheus's instrumentation. */
  @Test
  void metrics_includeTheJvms() throws Exception {
    String body = scrape();
    assertThat(Double.parseDouble(value(body, "jvm_memory_used_bytes{area=\"heap\"}")))
        .isPositive();
    assertThat(Double.parseDouble(value(body, "jvm_threads_current"))).isPositive();
    assertThat(lines(body)).anyMatch(l -> l.startsWith("# TYPE jvm_gc_collection_seconds summary"));
  }

  /** A scraper that asks for OpenMetrics gets it, ended by # EOF. */
  @Test
  void metrics_inOpenMetrics_whenAsked() throws Exception {
    HttpRequest req =
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.server.metricsPort() + "/metrics"))
            .header("Accept", "application/openmetrics-text; version=1.0.0; charset=utf-8")
            .build();
    HttpResponse<String> res = http.send(req, HttpResponse.BodyHandlers.ofString());
    assertThat(res.statusCode()).isEqualTo(200);
    assertThat(res.headers().firstValue("content-type").orElseThrow())
        .startsWith("application/openmetrics-text");
    assertThat(res.body()).contains("# TYPE idem_connections_received counter").endsWith("# EOF\n");
  }

  @Test
  void http_otherPath_is404() throws Exception {
    HttpResponse<String> res = request("GET", "/");
    assertThat(res.statusCode()).isEqualTo(404);
    assertThat(res.body()).isEqualTo("not found: try /metrics\n");
    assertThat(res.headers().firstValue("content-type")).hasValue("text/plain; charset=utf-8");
    assertThat(request("GET", "/metrics/x").statusCode()).isEqualTo(404);
    assertThat(request("POST", "/other").statusCode()).isEqualTo(404);
  }

  @Test
  void http_notGet_is405() throws Exception {
    for (String method : List.of("POST", "PUT", "DELETE")) {
      HttpResponse<String> res = request(method, "/metrics");
      assertThat(res.statusCode()).as(method).isEqualTo(405);
      assertThat(res.headers().firstValue("allow")).hasValue("GET");
      assertThat(res.body()).isEqualTo("method not allowed: use GET\n");
    }
  }

  @Test
  void http_queryString_isIgnored() throws Exception {
    assertThat(request("GET", "/metrics?name[]=x").statusCode()).isEqualTo(200);
  }

  @Test
  void http_bodyOverLimit_is413() throws Exception {
    HttpRequest req =
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.server.metricsPort() + "/metrics"))
            .POST(HttpRequest.BodyPublishers.ofString("x".repeat(9000)))
            .build();
    assertThat(http.send(req, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(413);
  }

  @Test
  void http_requestLineOverLimit_is400AndCloses() throws Exception {
    String res = raw("GET /" + "a".repeat(5000) + " HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(res).startsWith("HTTP/1.1 400 Bad Request\r\n");
  }

  @Test
  void http_keepAlive_servesManyRequestsOnOneConnection() throws Exception {
    String res =
        raw(
            "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertThat(res).startsWith("HTTP/1.1 200 OK\r\n");
    assertThat(res).contains("HTTP/1.1 404 Not Found\r\n");
  }

  /** Sends raw bytes and reads until the server closes the connection. */
  private String raw(String request) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.server.metricsPort())) {
      s.setSoTimeout(30_000);
      OutputStream out = s.getOutputStream();
      out.write(request.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }
  }
}
