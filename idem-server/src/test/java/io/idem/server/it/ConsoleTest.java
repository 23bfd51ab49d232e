package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.net.IdemServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The console's HTTP guards: off by default, its password, its header, what it runs. */
class ConsoleTest {

  @TempDir Path dir;
  final HttpClient http = HttpClient.newHttpClient();

  private HttpResponse<String> post(ServerHarness s, String path, String form, String... headers)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(s.http() + path))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(ServerHarness s, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(s.http() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> call(ServerHarness s, String cookie, String... args)
      throws Exception {
    StringBuilder form = new StringBuilder();
    for (String a : args) {
      form.append(form.isEmpty() ? "" : "&")
          .append("arg=")
          .append(java.net.URLEncoder.encode(a, java.nio.charset.StandardCharsets.UTF_8));
    }
    return cookie == null
        ? post(s, "/console/api/call", form.toString(), "X-Idem-Console", "1")
        : post(s, "/console/api/call", form.toString(), "X-Idem-Console", "1", "Cookie", cookie);
  }

  @Test
  void console_isOffUnlessAsked_andOneSettingTurnsItOn() throws Exception {
    try (ServerHarness s = ServerHarness.withHttpPort(dir.resolve("a"))) {
      assertThat(get(s, "/console/").statusCode()).isEqualTo(404);
      assertThat(get(s, "/metrics").statusCode()).isEqualTo(200);
    }
    // Without metrics-port, console yes serves on its default port (if another process holds it,
    // the start fails and says so).
    try (ServerHarness s = new ServerHarness(dir.resolve("b"), "console", "yes")) {
      assertThat(s.server.metricsPort()).isEqualTo(IdemServer.CONSOLE_PORT);
      assertThat(get(s, "/console/").statusCode()).isEqualTo(200);
    } catch (IdemServer.StartException e) {
      assertThat(e).hasMessageContaining(":" + IdemServer.CONSOLE_PORT);
    }
  }

  @Test
  void withAPassword_callsNeedASession_andAWrongPasswordIsRefused() throws Exception {
    try (ServerHarness s =
        ServerHarness.withHttpPort(dir.resolve("a"), "console", "yes", "requirepass", "pw")) {
      HttpResponse<String> page = get(s, "/console/");
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.headers().firstValue("content-security-policy").orElseThrow())
          .contains("default-src 'self'");
      assertThat(page.headers().firstValue("x-frame-options")).hasValue("DENY");
      assertThat(get(s, "/console/vendor/uplot.js").body()).contains("uPlot");
      assertThat(get(s, "/console/api/session").body())
          .isEqualTo("{\"password\":true,\"signedIn\":false}");

      assertThat(call(s, null, "DBSIZE").statusCode()).isEqualTo(401);
      HttpResponse<String> wrong =
          post(s, "/console/api/login", "password=nope", "X-Idem-Console", "1");
      assertThat(wrong.statusCode()).isEqualTo(401);
      assertThat(wrong.body()).isEqualTo("{\"error\":\"wrong password\"}");
      assertThat(wrong.headers().firstValue("set-cookie")).isEmpty();
      assertThat(call(s, "idem_console=0123456789abcdef", "DBSIZE").statusCode()).isEqualTo(401);

      // Without the console's header, a page of another site could post a form: refused.
      assertThat(post(s, "/console/api/login", "password=pw").statusCode()).isEqualTo(403);

      HttpResponse<String> ok = post(s, "/console/api/login", "password=pw", "X-Idem-Console", "1");
      assertThat(ok.statusCode()).isEqualTo(200);
      String setCookie = ok.headers().firstValue("set-cookie").orElseThrow();
      assertThat(setCookie).contains("HttpOnly", "SameSite=Strict", "Path=/console");
      String cookie = setCookie.substring(0, setCookie.indexOf(';'));
      assertThat(call(s, cookie, "DBSIZE").body()).isEqualTo("{\"reply\":0}");

      HttpResponse<String> out =
          post(s, "/console/api/logout", "", "X-Idem-Console", "1", "Cookie", cookie);
      assertThat(out.statusCode()).isEqualTo(204);
      assertThat(call(s, cookie, "DBSIZE").statusCode()).isEqualTo(401);
    }
  }

  @Test
  void calls_runReadsAndTheConsolesActions_andRefuseOtherWrites() throws Exception {
    try (ServerHarness s = ServerHarness.withHttpPort(dir.resolve("a"), "console", "yes");
        RespClient c = new RespClient(s.port())) {
      c.call("BF.ADD", "bf", "a");
      c.call("QUEUE.ADD", "q", "job", "ID", "j1");
      assertThat(call(s, null, "BF.EXISTS", "bf", "a").body()).isEqualTo("{\"reply\":true}");
      // RESP3 shapes: a map is an object.
      assertThat(call(s, null, "QUEUE.INFO", "q").body())
          .startsWith("{\"reply\":{\"ready\":1,\"delayed\":0,");
      for (List<String> refused :
          List.of(
              List.of("SET", "k", "v"),
              List.of("FLUSHALL"),
              List.of("CONFIG", "SET", "requirepass", "x"),
              List.of("BF.ADD", "bf", "b"),
              List.of("QUEUE.ADD", "q", "x"),
              List.of("SHUTDOWN"))) {
        assertThat(call(s, null, refused.toArray(String[]::new)).body())
            .as("%s", refused)
            .startsWith("{\"error\":\"ERR ");
      }
      assertThat(c.call("BF.EXISTS", "bf", "b")).isEqualTo(0L);
      assertThat(RespClient.text(c.call("CONFIG", "GET", "requirepass")))
          .isEqualTo("[requirepass, ]");
      // An action: the reply comes once the write is durable, and it is the server's state.
      assertThat(call(s, null, "QUEUE.PAUSE", "q").body()).isEqualTo("{\"reply\":1}");
      assertThat(RespClient.text(c.call("QUEUE.INFO", "q"))).contains("paused, 1");
      // A text that would end a script element stays text.
      c.call("QUEUE.ADD", "q", "</script><b>", "ID", "x");
      assertThat(call(s, null, "QUEUE.JOB", "q", "x").body()).contains("\\u003c/script\\u003e");
      assertThat(call(s, null).statusCode()).isEqualTo(400);
    }
  }
}
