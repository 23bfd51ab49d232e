package io.idem.client.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.client.example.RecommendServer.CookieStore;
import io.idem.core.seen.SigningKeys;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seen-cache example in a real browser: Debian's headless Chromium, driven over the DevTools
 * protocol, loads the page again and again. The cookie must survive every load (the same user, a
 * growing history, no article shown twice) and stay within its budget.
 */
class RecommendBrowserTest {
  private static final Pattern ID = Pattern.compile("\"id\":(\\d+)");

  @TempDir Path dir;

  /** One DevTools connection: commands answered in order of their ids, events kept aside. */
  static final class DevTools implements WebSocket.Listener, AutoCloseable {
    private final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    private final StringBuilder partial = new StringBuilder();
    private final WebSocket socket;
    private int nextId = 1;

    DevTools(URI ws) throws Exception {
      socket =
          HttpClient.newHttpClient()
              .newWebSocketBuilder()
              .buildAsync(ws, this)
              .get(30, TimeUnit.SECONDS);
    }

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      partial.append(data);
      if (last) {
        messages.add(partial.toString());
        partial.setLength(0);
      }
      ws.request(1);
      return null;
    }

    /** Sends a command and returns its reply, skipping events (kept if {@code event} matches). */
    String call(String method, String params) throws Exception {
      int id = nextId++;
      socket
          .sendText(
              "{\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":" + params + "}", true)
          .get();
      while (true) {
        String m = messages.poll(60, TimeUnit.SECONDS);
        assertThat(m).as("reply to %s", method).isNotNull();
        Matcher id2 = ID.matcher(m);
        if (id2.find() && Integer.parseInt(id2.group(1)) == id) {
          assertThat(m).as(method).doesNotContain("\"error\"");
          return m;
        }
      }
    }

    /** Waits for an event by name. */
    void await(String event) throws Exception {
      while (true) {
        String m = messages.poll(60, TimeUnit.SECONDS);
        assertThat(m).as("event %s", event).isNotNull();
        if (m.contains("\"method\":\"" + event + "\"")) {
          return;
        }
      }
    }

    @Override
    public void close() {
      socket.abort();
    }
  }

  static String chromium() {
    for (String candidate : List.of("/usr/bin/chromium", "/usr/bin/chromium-browser")) {
      if (Files.isExecutable(Path.of(candidate))) {
        return candidate;
      }
    }
    throw new AssertionError("no chromium: install Debian's package (.ci/run does)");
  }

  @Test
  void theCookieSurvivesPageLoadsInChromiumAndStaysWithinItsBudget() throws Exception {
    int budget = 200;
    CookieStore store = new CookieStore(budget, 0.01, SigningKeys.of(RecommendServerTest.KEY));
    Process browser = null;
    try (RecommendServer server = RecommendServer.start(0, store, 10_000, 5)) {
      Path profile = dir.resolve("profile");
      browser =
          new ProcessBuilder(
                  chromium(),
                  "--headless",
                  "--no-sandbox",
                  "--disable-gpu",
                  "--no-first-run",
                  "--remote-debugging-port=0",
                  "--user-data-dir=" + profile,
                  "about:blank")
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("chromium.log").toFile())
              .start();
      Path portFile = profile.resolve("DevToolsActivePort");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!Files.exists(portFile) || Files.readAllLines(portFile).size() < 2) {
        assertThat(browser.isAlive()).as("chromium running (see chromium.log)").isTrue();
        assertThat(System.nanoTime()).as("DevToolsActivePort written").isLessThan(deadline);
        Thread.sleep(100);
      }
      int devtoolsPort = Integer.parseInt(Files.readAllLines(portFile).get(0).trim());
      String targets =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + devtoolsPort + "/json/list"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      Matcher page =
          Pattern.compile("\"type\": \"page\"[^}]*?\"webSocketDebuggerUrl\": \"(ws://[^\"]+)\"")
              .matcher(targets.replace("\n", " "));
      if (!page.find()) {
        page =
            Pattern.compile("\"webSocketDebuggerUrl\": \"(ws://[^\"]+/page/[^\"]+)\"")
                .matcher(targets);
        assertThat(page.find()).as("a page target in %s", targets).isTrue();
      }
      try (DevTools tab = new DevTools(URI.create(page.group(1)))) {
        tab.call("Page.enable", "{}");
        tab.call("Network.enable", "{}");
        String url = "http://127.0.0.1:" + server.port() + "/";
        Set<String> shown = new HashSet<>();
        String user = null;
        List<Integer> lengths = new ArrayList<>();
        int loads = 40;
        int distinctLoads = store.codec().capacity() / 5;
        for (int load = 0; load < loads; load++) {
          tab.call("Page.navigate", "{\"url\":\"" + url + "\"}");
          tab.await("Page.loadEventFired");
          String items =
              tab.call(
                  "Runtime.evaluate",
                  "{\"expression\":\"[...document.querySelectorAll('a.item')].map(a => a.textContent).join(' ')\",\"returnByValue\":true}");
          Matcher v = Pattern.compile("\"value\":\"([^\"]*)\"").matcher(items);
          assertThat(v.find()).as(items).isTrue();
          String[] onPage = v.group(1).split(" ");
          assertThat(onPage).hasSize(5);
          // Until it is full, nothing is shown twice; then the oldest may come back.
          for (String item : onPage) {
            assertThat(shown.add(item) || load >= distinctLoads)
                .as("%s shown again on load %s", item, load)
                .isTrue();
          }
          String cookies = tab.call("Network.getCookies", "{\"urls\":[\"" + url + "\"]}");
          String seen = cookieValue(cookies, RecommendServer.COOKIE);
          assertThat(seen).as("the seen-cache cookie after load %s", load).isNotNull();
          assertThat(seen.length()).isLessThanOrEqualTo(budget);
          lengths.add(seen.length());
          String uid = cookieValue(cookies, RecommendServer.USER_COOKIE);
          assertThat(uid).as("the user cookie after load %s", load).isNotNull();
          if (user == null) {
            user = uid;
          }
          assertThat(uid).as("the same user on every load").isEqualTo(user);
        }
        // 200 articles at 1 % in a 200-character cookie: it has aged, and stayed in its budget.
        assertThat(loads * 5).isGreaterThan(store.codec().capacity());
        assertThat(distinctLoads).isGreaterThan(20);
        assertThat(lengths.get(lengths.size() - 1)).isGreaterThan(lengths.get(0));
        assertThat(store.refused).hasValue(0);
      }
    } finally {
      if (browser != null) {
        // Chromium's own children (renderers, its crash handler) write into the profile too: all
        // of them go, or the temporary directory is deleted under a writer.
        List<ProcessHandle> tree = browser.descendants().toList();
        tree.forEach(ProcessHandle::destroyForcibly);
        browser.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        for (ProcessHandle child : tree) {
          try {
            child.onExit().get(30, TimeUnit.SECONDS);
          } catch (java.util.concurrent.ExecutionException
              | java.util.concurrent.TimeoutException e) {
            // gone or stuck: the directory's deletion says which
          }
        }
      }
    }
  }

  private static String cookieValue(String reply, String name) {
    Matcher m = Pattern.compile("\"name\":\"" + name + "\",\"value\":\"([^\"]*)\"").matcher(reply);
    return m.find() ? m.group(1) : null;
  }
}
