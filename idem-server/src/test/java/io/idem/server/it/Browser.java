package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Debian's headless Chromium, driven over the DevTools protocol from one page target: navigate,
 * evaluate, screenshot; every console error and uncaught exception of the page is kept.
 */
final class Browser implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final WebSocket socket;
  private final BlockingQueue<JsonNode> replies = new LinkedBlockingQueue<>();
  private final List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
  private final StringBuilder partial = new StringBuilder();
  private int nextId = 1;

  private Browser(Process process, URI page) throws Exception {
    this.process = process;
    this.socket =
        HttpClient.newHttpClient()
            .newWebSocketBuilder()
            .buildAsync(page, new Listener())
            .get(30, TimeUnit.SECONDS);
    call("Runtime.enable", JSON.createObjectNode());
    call("Log.enable", JSON.createObjectNode());
    call("Page.enable", JSON.createObjectNode());
  }

  static String chromium() {
    for (String candidate : List.of("/usr/bin/chromium", "/usr/bin/chromium-browser")) {
      if (Files.isExecutable(Path.of(candidate))) {
        return candidate;
      }
    }
    throw new AssertionError("no chromium: install Debian's package (.ci/run does)");
  }

  /** Starts Chromium with a profile of its own in {@code dir}, at a window of 1280 x 900. */
  static Browser start(Path dir) throws Exception {
    Path profile = dir.resolve("profile");
    Process p =
        new ProcessBuilder(
                chromium(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--hide-scrollbars",
                "--window-size=1280,900",
                "--remote-debugging-port=0",
                "--user-data-dir=" + profile,
                "about:blank")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("chromium.log").toFile())
            .start();
    try {
      Path portFile = profile.resolve("DevToolsActivePort");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!Files.exists(portFile) || Files.readAllLines(portFile).size() < 2) {
        assertThat(p.isAlive()).as("chromium running (see chromium.log)").isTrue();
        assertThat(System.nanoTime()).as("DevToolsActivePort written").isLessThan(deadline);
        Thread.sleep(100);
      }
      int port = Integer.parseInt(Files.readAllLines(portFile).get(0).trim());
      JsonNode targets =
          JSON.readTree(
              HttpClient.newHttpClient()
                  .send(
                      HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list"))
                          .build(),
                      HttpResponse.BodyHandlers.ofString())
                  .body());
      for (JsonNode t : targets) {
        if (t.path("type").asText().equals("page")) {
          return new Browser(p, URI.create(t.path("webSocketDebuggerUrl").asText()));
        }
      }
      throw new AssertionError("no page target in " + targets);
    } catch (Exception | AssertionError e) {
      kill(p);
      throw e;
    }
  }

  private final class Listener implements WebSocket.Listener {
    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      partial.append(data);
      if (last) {
        try {
          JsonNode m = JSON.readTree(partial.toString());
          if (m.has("id")) {
            replies.add(m);
          } else {
            event(m);
          }
        } catch (java.io.IOException e) {
          errors.add("unreadable DevTools message: " + e);
        }
        partial.setLength(0);
      }
      ws.request(1);
      return null;
    }
  }

  private void event(JsonNode m) {
    String method = m.path("method").asText();
    JsonNode p = m.path("params");
    switch (method) {
      case "Runtime.exceptionThrown" ->
          errors.add("exception: " + p.path("exceptionDetails").toString());
      case "Runtime.consoleAPICalled" -> {
        if (p.path("type").asText().equals("error")) {
          errors.add("console.error: " + p.path("args").toString());
        }
      }
      case "Log.entryAdded" -> {
        if (p.path("entry").path("level").asText().equals("error")) {
          errors.add("log: " + p.path("entry").path("text").asText());
        }
      }
      default -> {}
    }
  }

  /** Sends a command; its result (an error fails the test). */
  synchronized JsonNode call(String method, ObjectNode params) throws Exception {
    int id = nextId++;
    ObjectNode msg = JSON.createObjectNode().put("id", id).put("method", method);
    msg.set("params", params);
    socket.sendText(JSON.writeValueAsString(msg), true).get(30, TimeUnit.SECONDS);
    while (true) {
      JsonNode m = replies.poll(60, TimeUnit.SECONDS);
      assertThat(m).as("reply to %s", method).isNotNull();
      if (m.path("id").asInt() == id) {
        assertThat(m.has("error")).as("%s: %s", method, m).isFalse();
        return m.path("result");
      }
    }
  }

  void navigate(String url) throws Exception {
    call("Page.navigate", JSON.createObjectNode().put("url", url));
  }

  /** The value of a JavaScript expression (awaited if a promise), as JSON. */
  JsonNode eval(String expression) throws Exception {
    JsonNode r =
        call(
            "Runtime.evaluate",
            JSON.createObjectNode()
                .put("expression", expression)
                .put("returnByValue", true)
                .put("awaitPromise", true));
    assertThat(r.has("exceptionDetails")).as("%s threw: %s", expression, r).isFalse();
    return r.path("result").path("value");
  }

  /** The text of the first element matching {@code selector}, or null. */
  String text(String selector) throws Exception {
    JsonNode v =
        eval(
            "(() => { const e = document.querySelector("
                + JSON.writeValueAsString(selector)
                + "); return e ? e.textContent : null; })()");
    return v.isNull() ? null : v.asText();
  }

  void click(String selector) throws Exception {
    JsonNode clicked =
        eval(
            "(() => { const e = document.querySelector("
                + JSON.writeValueAsString(selector)
                + "); if (!e) return false; e.click(); return true; })()");
    assertThat(clicked.asBoolean()).as("an element %s to click", selector).isTrue();
  }

  /** Waits until the page shows an element matching {@code selector}. */
  void waitFor(String selector) throws Exception {
    waitOn(
        "an element " + selector,
        () -> {
          try {
            return text(selector) != null;
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  /** Waits until {@code done}; if it never is, the failure shows what the page shows. */
  void waitOn(String what, BooleanSupplier done) throws Exception {
    waitUntil(
        () -> {
          try {
            return what + "; the page shows: " + text("main") + "; errors: " + errors();
          } catch (Exception e) {
            return what + "; the page could not be read: " + e;
          }
        },
        done);
  }

  static void waitUntil(String what, BooleanSupplier done) throws Exception {
    waitUntil(() -> what, done);
  }

  /** Waits up to 30 s; {@code what} is read only if the wait fails. */
  private static void waitUntil(java.util.function.Supplier<String> what, BooleanSupplier done)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("waiting for " + what.get());
      }
      Thread.sleep(100);
    }
  }

  /** Writes a PNG of the page as it is now. */
  void screenshot(Path file) throws Exception {
    JsonNode r = call("Page.captureScreenshot", JSON.createObjectNode().put("format", "png"));
    Files.createDirectories(file.getParent());
    Files.write(file, Base64.getDecoder().decode(r.path("data").asText()));
  }

  /** The page's console errors and uncaught exceptions so far. */
  List<String> errors() {
    synchronized (errors) {
      return List.copyOf(errors);
    }
  }

  @Override
  public void close() {
    socket.abort();
    kill(process);
  }

  /**
   * Chromium's own children (renderers, its crash handler) write into the profile too: all of them
   * go, or a temporary directory is deleted under a writer.
   */
  private static void kill(Process browser) {
    List<ProcessHandle> tree = browser.descendants().toList();
    tree.forEach(ProcessHandle::destroyForcibly);
    browser.destroyForcibly();
    try {
      browser.waitFor(30, TimeUnit.SECONDS);
      for (ProcessHandle child : tree) {
        child.onExit().get(30, TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      // gone or stuck: the directory's deletion says which
    }
  }
}
