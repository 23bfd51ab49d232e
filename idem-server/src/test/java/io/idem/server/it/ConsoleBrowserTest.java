package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.cluster.KafkaBroker;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console as a person uses it: Debian's headless Chromium against a real server holding data of
 * every type, behind a password. Each page loads without a console error, its figures equal the
 * server's replies, its actions change the server's state, and a wrong password is refused.
 * Screenshots of each page go to target/console-screenshots (docs/console/ holds the ones shown).
 */
class ConsoleBrowserTest {

  static final String PASSWORD = "s3cret-console";
  static final Path SHOTS = Path.of("target", "console-screenshots");

  @TempDir Path dir;

  @Test
  void everyPageShowsTheServersFigures_andItsActionsChangeTheServer() throws Exception {
    try (ServerHarness server =
            ServerHarness.withHttpPort(
                dir.resolve("data"), "console", "yes", "requirepass", PASSWORD);
        RespClient c = new RespClient(server.port());
        Browser browser = Browser.start(dir)) {
      assertThat(c.call("AUTH", PASSWORD)).isEqualTo("OK");
      populate(c);
      String base = server.http() + "/console/";

      // Signed out: the sign-in form; a wrong password is refused, the right one lets in.
      browser.navigate(base);
      browser.waitFor("#password");
      assertThat(
              browser
                  .eval(
                      "fetch('/console/api/call', {method: 'POST', headers: {'X-Idem-Console': '1'},"
                          + " body: new URLSearchParams({arg: 'DBSIZE'})}).then(r => r.status)")
                  .asInt())
          .isEqualTo(401);
      signIn(browser, "not-the-password");
      browser.waitOn(
          "the refusal shown", () -> "wrong password".equals(textOf(browser, "#signin-error")));
      browser.screenshot(SHOTS.resolve("sign-in.png"));
      int refusals = browser.errors().size(); // the refused call and password, logged as such
      signIn(browser, PASSWORD);

      // Overview: its tiles are INFO's and DBSIZE's figures.
      browser.waitFor("[data-k=dbsize]");
      assertThat(browser.text("[data-k=dbsize]")).isEqualTo(c.call("DBSIZE").toString());
      Map<String, String> info = info(c, "clients");
      assertThat(browser.text("[data-k=connected_clients]"))
          .isEqualTo(info.get("connected_clients"));
      String types = info(c, "memory").get("used_memory_by_type");
      for (String pair : types.split(",")) {
        String[] tv = pair.split("=");
        assertThat(browser.text("[data-type=\"" + tv[0] + "\"]").replace(",", ""))
            .as("memory of %s", tv[0])
            .isEqualTo(tv[1]);
      }
      assertThat(Long.parseLong(types.split("MBbloom--=")[1].split(",")[0]))
          .isEqualTo((Long) c.call("MEMORY", "USAGE", "signups"));
      // Under a little load, the chart of commands a second by family has something to show.
      try (Load load = new Load(server.port())) {
        browser.waitOn("the families' chart", () -> textOf(browser, ".uplot") != null);
        Thread.sleep(6000);
        browser.screenshot(SHOTS.resolve("overview.png"));
      }

      // Keys: every key is listed, with its type.
      browser.navigate(base + "#/keys");
      browser.waitFor("#key-results a[data-key]");
      assertThat(
              browser.eval("document.querySelectorAll('#key-results a[data-key]').length").asLong())
          .isEqualTo((Long) c.call("DBSIZE"));
      browser.screenshot(SHOTS.resolve("keys.png"));

      // A Bloom filter's page: items, capacity and rates as BF.INFO gives them.
      browser.navigate(base + "#/key/signups");
      browser.waitFor("[data-k=items]");
      assertThat(browser.text("[data-k=items]").replace(",", ""))
          .isEqualTo(c.call("BF.CARD", "signups").toString());
      assertThat(Double.parseDouble(browser.text("[data-k=fprate]")))
          .isCloseTo(
              Double.parseDouble(
                  RespClient.text(((List<?>) c.call("BF.INFO", "signups", "FPRATE")).get(0))),
              org.assertj.core.data.Percentage.withPercentage(0.1));
      browser.screenshot(SHOTS.resolve("key-bloom.png"));

      // A counter's series, for a name typed in.
      browser.navigate(base + "#/key/logins");
      browser.waitFor("#counter-name");
      browser.eval(
          "document.querySelector('#counter-name').value = 'alice';"
              + " document.querySelector('#counter-name').form.requestSubmit(); true");
      browser.waitOn("the counter's chart", () -> textOf(browser, ".uplot") != null);
      browser.screenshot(SHOTS.resolve("key-counter.png"));

      browser.navigate(base + "#/key/latency");
      browser.waitFor(".uplot");
      browser.screenshot(SHOTS.resolve("key-tdigest.png"));
      browser.navigate(base + "#/key/pages");
      browser.waitFor("table");
      browser.screenshot(SHOTS.resolve("key-topk.png"));
      browser.navigate(base + "#/key/orders");
      browser.waitFor("[data-k=Mode]");
      assertThat(browser.text("[data-k=Mode]")).isEqualTo("exact");
      assertThat(browser.text("[data-k=Items]"))
          .isEqualTo(field((List<?>) c.call("DEDUP.INFO", "orders"), "Items").toString());
      // Its slices, with their items and the duplicates caught in each, as DEDUP.SLICES gives them.
      browser.waitFor("[data-slice-items]");
      for (Object slice : (List<?>) c.call("DEDUP.SLICES", "orders")) {
        String start = field((List<?>) slice, "start").toString();
        assertThat(browser.text("[data-slice-items=\"" + start + "\"]").replace(",", ""))
            .isEqualTo(field((List<?>) slice, "items").toString());
        assertThat(browser.text("[data-slice-duplicates=\"" + start + "\"]").replace(",", ""))
            .isEqualTo(field((List<?>) slice, "duplicates").toString());
      }
      browser.screenshot(SHOTS.resolve("key-dedup.png"));

      // Queues: counts as INFO queues gives them; replaying a dead letter and pausing the queue
      // change the server's state.
      browser.navigate(base + "#/queues");
      browser.waitFor("a[data-queue=emails]");
      browser.screenshot(SHOTS.resolve("queues.png"));
      browser.navigate(base + "#/queue/emails");
      browser.waitFor("[data-k=dead]");
      assertThat(browser.text("[data-k=dead]")).isEqualTo("2");
      assertThat(browser.text("[data-k=ready]")).isEqualTo(queueInfo(c).get("ready").toString());
      browser.screenshot(SHOTS.resolve("queue.png"));
      browser.click("[data-replay=bounce-1]");
      Browser.waitUntil("the dead letter replayed", () -> queueInfo(c).get("dead").equals(1L));
      assertThat(RespClient.text(jobField(c, "bounce-1", "state"))).isEqualTo("ready");
      browser.waitFor("#pause");
      browser.click("#pause");
      Browser.waitUntil("the queue paused", () -> queueInfo(c).get("paused").equals(1L));
      browser.waitOn("the page shows it paused", () -> textOf(browser, "#resume") != null);
      assertThat(browser.text("[data-k=dead]")).isEqualTo("1");

      // Jobs filtered by state, then by id, and an action on the filtered set.
      browser.eval(
          "document.querySelector('#jobs-state').value = 'dead';"
              + " document.querySelector('#jobs-search').click(); true");
      browser.waitOn(
          "the dead letters listed", () -> "bounce-2".equals(textOf(browser, "#jobs a[data-job]")));
      assertThat(browser.eval("document.querySelectorAll('#jobs a[data-job]').length").asLong())
          .isEqualTo(queueInfo(c).get("dead"));
      browser.eval(
          "document.querySelector('#jobs-state').value = '';"
              + " document.querySelector('#jobs-match').value = 'welcome-*';"
              + " document.querySelector('#jobs-search').click(); true");
      browser.waitOn(
          "the welcome jobs listed",
          () ->
              textOf(browser, "#jobs a[data-job]") != null
                  && textOf(browser, "#jobs a[data-job]").startsWith("welcome-"));
      assertThat(browser.eval("document.querySelectorAll('#jobs a[data-job]').length").asLong())
          .isEqualTo(5);
      browser.screenshot(SHOTS.resolve("queue-jobs.png"));
      long readyBefore = (Long) queueInfo(c).get("ready");
      browser.click("#cancel-listed");
      Browser.waitUntil(
          "the listed jobs cancelled", () -> queueInfo(c).get("ready").equals(readyBefore - 5));
      assertThat(c.call("QUEUE.JOB", "emails", "welcome-0")).isNull();

      // A group resumed, a schedule removed.
      browser.waitFor("[data-resume-group=tenant-a]");
      browser.click("[data-resume-group=tenant-a]");
      Browser.waitUntil(
          "the group resumed",
          () ->
              field((List<?>) ((List<?>) unchecked(c, "QUEUE.GROUPS", "emails")).get(0), "paused")
                  .equals(0L));
      // A group's settings, as QUEUE.GROUP takes them.
      browser.eval(
          "document.querySelector('#group-name').value = 'tenant-a';"
              + " document.querySelector('#group-options').value = 'WEIGHT 3 CONCURRENCY 2';"
              + " document.querySelector('#group-apply').click(); true");
      Browser.waitUntil(
          "the group's weight set",
          () ->
              field((List<?>) ((List<?>) unchecked(c, "QUEUE.GROUPS", "emails")).get(0), "weight")
                  .equals(3L));
      browser.waitFor("[data-unschedule=digest]");
      browser.click("[data-unschedule=digest]");
      Browser.waitUntil(
          "the schedule removed",
          () -> ((List<?>) unchecked(c, "QUEUE.SCHEDULES", "emails")).isEmpty());

      // Sizing: what the core's sizing gives, as BF.RESERVE allocates it (a classic layer's bits,
      // after RedisBloom's 96 bytes of structs).
      browser.navigate(base + "#/sizing?capacity=1000000&error=0.01");
      browser.waitFor("[data-bytes=classic]");
      c.call("BF.RESERVE", "sized", "0.01", "1000000", "NONSCALING");
      long size = (Long) ((List<?>) c.call("BF.INFO", "sized", "SIZE")).get(0);
      assertThat(browser.text("[data-bytes=classic]").replace(",", ""))
          .isEqualTo(Long.toString(size - 96));
      browser.waitFor(".uplot");
      browser.screenshot(SHOTS.resolve("sizing.png"));

      // Slow log and latency: SLOWLOG's entries, and its reset.
      browser.navigate(base + "#/server");
      browser.waitFor("[data-k=slowlog-len]");
      assertThat(browser.text("[data-k=slowlog-len]"))
          .isEqualTo(c.call("SLOWLOG", "LEN").toString());
      browser.screenshot(SHOTS.resolve("slowlog.png"));
      browser.click("#slowlog-reset");
      Browser.waitUntil("the slow log reset", () -> unchecked(c, "SLOWLOG", "LEN").equals(0L));

      assertThat(browser.errors().subList(refusals, browser.errors().size()))
          .as("the page's console errors once signed in")
          .isEmpty();
    }
  }

  /**
   * On a cluster node the overview shows the cluster: its nodes, and this node's place in the log
   * partition by partition, as INFO cluster gives it.
   */
  @Test
  void onAClusterNode_theOverviewShowsTheClusterAndTheNodesPlaceInTheLog() throws Exception {
    try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"))) {
      int port;
      try (java.net.ServerSocket s =
          new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
        port = s.getLocalPort();
      }
      try (ServerHarness server =
              ServerHarness.withHttpPort(
                  dir.resolve("node"),
                  LoneNode.settings(
                      port, broker.bootstrapServers(), "console", 4, "console", "yes"));
          RespClient c = new RespClient(port);
          Browser browser = Browser.start(dir)) {
        for (String key : LoneNode.keyInEachPartition(4)) {
          assertThat(c.call("BF.ADD", key, "x")).isEqualTo(1L);
        }
        browser.navigate(server.http() + "/console/");
        browser.waitFor("[data-offset=\"3\"]");
        Map<String, String> cluster = info(c, "cluster");
        for (String pair : cluster.get("cluster_log_offsets").split(",")) {
          String[] po = pair.split("=");
          assertThat(browser.text("[data-offset=\"" + po[0] + "\"]").replace(",", ""))
              .as("partition %s", po[0])
              .isEqualTo(po[1]);
        }
        assertThat(browser.text("[data-k=cluster_live_nodes]")).isEqualTo("a");
        browser.screenshot(SHOTS.resolve("overview-cluster.png"));
        assertThat(browser.errors()).as("the page's console errors").isEmpty();
      }
    }
  }

  /** A client sending a few hundred commands a second of several families, until closed. */
  private static final class Load implements AutoCloseable {
    private final Thread thread;
    private volatile boolean stop;

    Load(int port) {
      thread =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try (RespClient c = new RespClient(port)) {
                      c.call("AUTH", PASSWORD);
                      for (int i = 0; !stop; i++) {
                        c.call("BF.ADD", "signups", "load-" + i);
                        c.call("DEDUP.CLAIM", "orders", "load-" + i, "worker-2");
                        if (i % 3 == 0) {
                          c.call("COUNTER.INCRBY", "logins", "*", "carol", "1");
                        }
                        Thread.sleep(5);
                      }
                    } catch (Exception e) {
                      throw new IllegalStateException(e);
                    }
                  });
    }

    @Override
    public void close() throws InterruptedException {
      stop = true;
      thread.join();
    }
  }

  /** Data of every type, a queue with dead letters, and a slow log with entries. */
  private static void populate(RespClient c) throws Exception {
    c.call("BF.RESERVE", "signups", "0.01", "1000");
    for (int i = 0; i < 300; i++) {
      c.call("BF.ADD", "signups", "user-" + i);
    }
    c.call("CF.RESERVE", "sessions", "1000");
    c.call("CF.ADD", "sessions", "s1");
    c.call("DEDUP.RESERVE", "orders", "1d", "EXACT");
    for (String id : List.of("o1", "o2", "o3")) {
      c.call("DEDUP.CLAIM", "orders", id, "worker-1");
    }
    c.call("DEDUP.CLAIM", "orders", "o2", "worker-9"); // duplicates: another owner's claims
    c.call("DEDUP.CLAIM", "orders", "o3", "worker-9");
    c.call("COUNTER.RESERVE", "logins", "RESOLUTION", "10s", "1h");
    c.call("COUNTER.INCRBY", "logins", "*", "alice", "3", "bob", "1");
    c.call("DISTINCT.RESERVE", "visitors");
    c.call("DISTINCT.ADD", "visitors", "*", "home", "v1");
    c.call("TOPK.RESERVE", "pages", "5");
    c.call("TOPK.ADD", "pages", "/", "/", "/about", "/pricing", "/");
    c.call("TDIGEST.CREATE", "latency");
    String[] values = new String[100];
    for (int i = 0; i < values.length; i++) {
      values[i] = Integer.toString(i * i % 97);
    }
    c.call(concat(new String[] {"TDIGEST.ADD", "latency"}, values));
    c.call("CMS.INITBYDIM", "clicks", "100", "4");
    c.call("CMS.INCRBY", "clicks", "buy", "2");
    c.call("IDEMKEY.RESERVE", "payments", "1d");
    c.call("IDEMKEY.BEGIN", "payments", "pay-1", "LEASE", "1h");
    c.call("PFADD", "uniques", "a", "b");
    for (int i = 0; i < 5; i++) {
      c.call("QUEUE.ADD", "emails", "hello " + i, "ID", "welcome-" + i);
    }
    for (String id : List.of("bounce-1", "bounce-2")) {
      c.call("QUEUE.ADD", "emails", "bounce", "ID", id, "ATTEMPTS", "1");
    }
    // Lease the bounces and fail them: with one attempt each, they are dead letters.
    for (Object job : (List<?>) c.call("QUEUE.RESERVE", "emails", "COUNT", "100", "LEASE", "1h")) {
      List<?> f = (List<?>) job;
      String id = RespClient.text(f.get(0));
      String token = f.get(2).toString();
      if (id.startsWith("bounce")) {
        c.call("QUEUE.FAIL", "emails", id, token, "mailbox full");
      } else {
        c.call("QUEUE.RELEASE", "emails", id, token);
      }
    }
    // A paused group with no jobs yet, and a yearly schedule whose first run is months away.
    c.call("QUEUE.PAUSE", "emails", "GROUP", "tenant-a");
    c.call("QUEUE.SCHEDULE", "emails", "digest", "CRON", "0 0 1 1 *", "digest");
    c.call("CONFIG", "SET", "slowlog-log-slower-than", "0");
    c.call("INFO", "server");
    c.call("CONFIG", "SET", "slowlog-log-slower-than", "1000000000");
  }

  private static void signIn(Browser browser, String password) throws Exception {
    browser.eval(
        "document.querySelector('#password').value = "
            + new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(password)
            + "; document.querySelector('#signin').click(); true");
  }

  private static String textOf(Browser browser, String selector) {
    try {
      return browser.text(selector);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static Map<String, String> info(RespClient c, String section) throws Exception {
    Map<String, String> out = new java.util.HashMap<>();
    for (String line : RespClient.text(c.call("INFO", section)).split("\r\n")) {
      int i = line.indexOf(':');
      if (i > 0 && !line.startsWith("#")) {
        out.put(line.substring(0, i), line.substring(i + 1));
      }
    }
    return out;
  }

  private static Map<String, Object> queueInfo(RespClient c) {
    List<?> flat = (List<?>) unchecked(c, "QUEUE.INFO", "emails");
    Map<String, Object> out = new java.util.HashMap<>();
    for (int i = 0; i < flat.size(); i += 2) {
      out.put(RespClient.text(flat.get(i)), flat.get(i + 1));
    }
    return out;
  }

  private static Object unchecked(RespClient c, String... command) {
    try {
      return c.call(command);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static Object jobField(RespClient c, String id, String name) throws Exception {
    return field((List<?>) c.call("QUEUE.JOB", "emails", id), name);
  }

  /** A field of a map reply in RESP2's flat form. */
  private static Object field(List<?> flat, String name) {
    for (int i = 0; i < flat.size(); i += 2) {
      if (RespClient.text(flat.get(i)).equals(name)) {
        return flat.get(i + 1);
      }
    }
    throw new AssertionError("no " + name + " in " + RespClient.text(flat));
  }

  private static String[] concat(String[] a, String[] b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
