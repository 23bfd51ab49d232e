package io.idem.client.example;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import io.idem.client.IdemClient;
import io.idem.client.example.RecommendServer.CookieStore;
import io.idem.client.example.RecommendServer.ServerStore;
import io.idem.core.seen.SigningKeys;
import io.idem.server.dispatch.Config;
import io.idem.server.net.IdemServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.ByteArrayOutputStream;
import java.net.CookieManager;
import java.net.CookiePolicy;
import java.net.HttpCookie;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The seen-cache example over HTTP, with the JDK's client keeping real cookies between calls. */
class RecommendServerTest {
  static final byte[] KEY = "the example's key, 32 bytes long".getBytes(StandardCharsets.UTF_8);

  @TempDir Path dir;

  record Browser(HttpClient http, CookieManager cookies, URI base) {
    static Browser of(int port) {
      CookieManager cookies = new CookieManager(null, CookiePolicy.ACCEPT_ALL);
      return new Browser(
          HttpClient.newBuilder().cookieHandler(cookies).build(),
          cookies,
          URI.create("http://127.0.0.1:" + port + "/"));
    }

    List<String> recommend() throws Exception {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(base.resolve("/recommend")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      return r.body().lines().toList();
    }

    String cookie(String name) {
      return cookies.getCookieStore().get(base).stream()
          .filter(c -> c.getName().equals(name))
          .map(HttpCookie::getValue)
          .findFirst()
          .orElse(null);
    }

    void setCookie(String name, String value) {
      HttpCookie c = new HttpCookie(name, value);
      c.setPath("/");
      c.setVersion(0);
      cookies.getCookieStore().add(base, c);
    }
  }

  /** Pages until the catalogue's first items are all shown: no item twice while it is held. */
  static Set<String> browseWithoutRepeats(Browser b, int pages) throws Exception {
    Set<String> shown = new HashSet<>();
    for (int page = 0; page < pages; page++) {
      List<String> items = b.recommend();
      assertThat(items).hasSize(5);
      for (String item : items) {
        assertThat(shown.add(item)).as("%s shown again on page %s", item, page).isTrue();
      }
    }
    return shown;
  }

  @Test
  void theCookieKeepsWhatWasShownWithinItsBudget() throws Exception {
    CookieStore store = new CookieStore(1200, 0.01, SigningKeys.of(KEY));
    try (RecommendServer server = RecommendServer.start(0, store, 10_000, 5)) {
      Browser b = Browser.of(server.port());
      // Rotation may begin a few items before the capacity (fingerprints collide, or a budget
      // fills): nine tenths of it is always held.
      int capacity = store.codec().capacity();
      int pages = capacity * 9 / 10 / 5;
      Set<String> shown = new HashSet<>();
      for (int page = 0; page < pages; page++) {
        for (String item : b.recommend()) {
          assertThat(shown.add(item)).as("%s shown again on page %s", item, page).isTrue();
        }
        assertThat(b.cookie(RecommendServer.COOKIE)).hasSizeLessThanOrEqualTo(1200);
      }
      // Well past capacity the cookie still fits, and the newest items are still held.
      for (int page = 0; page < pages * 2; page++) {
        List<String> items = b.recommend();
        assertThat(items).hasSize(5);
        assertThat(b.cookie(RecommendServer.COOKIE)).hasSizeLessThanOrEqualTo(1200);
      }
      assertThat(store.refused).hasValue(0);
      // A false positive hides an article but never shows one twice: the shown set is distinct.
      assertThat(shown).hasSize(pages * 5);
    }
  }

  @Test
  void aTamperedCookieIsRefusedAndReplaced_theRequestStillServed() throws Exception {
    CookieStore store = new CookieStore(1200, 0.01, SigningKeys.of(KEY));
    try (RecommendServer server = RecommendServer.start(0, store, 10_000, 5)) {
      Browser b = Browser.of(server.port());
      List<String> first = b.recommend();
      String good = b.cookie(RecommendServer.COOKIE);
      // Emptying it, forging it, cutting it: each is refused, the page served, a good one set.
      char last = good.charAt(good.length() - 1);
      for (String bad :
          List.of(
              good.substring(0, good.length() - 1) + (last == 'A' ? 'Q' : 'A'),
              good.substring(0, 10),
              "%%%",
              "C0".repeat(2000))) {
        b.cookies().getCookieStore().removeAll();
        b.setCookie(RecommendServer.COOKIE, bad);
        assertThat(b.recommend()).isEqualTo(first); // an empty history: the first page again
        assertThat(b.cookie(RecommendServer.COOKIE)).isNotEqualTo(bad);
      }
      assertThat(store.refused).hasValue(4);
    }
  }

  @Test
  void theSeedsGuavaCookieIsStillHonoured() throws Exception {
    CookieStore store = new CookieStore(1200, 0.01, SigningKeys.of(KEY));
    try (RecommendServer server = RecommendServer.start(0, store, 10_000, 5)) {
      // Seed 000's cookie: a Guava filter of the MD5s of the 20 articles already shown.
      BloomFilter<byte[]> guava = BloomFilter.create(Funnels.byteArrayFunnel(), 100, 0.01);
      for (int i = 0; i < 20; i++) {
        guava.put(RecommendServer.md5(RecommendServer.article(i)));
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      guava.writeTo(out);
      Browser b = Browser.of(server.port());
      b.setCookie(
          RecommendServer.LEGACY_COOKIE, Base64.getEncoder().encodeToString(out.toByteArray()));
      List<String> items = b.recommend();
      for (String item : items) {
        int index = Integer.parseInt(item.substring(item.lastIndexOf('/') + 1));
        assertThat(index).isGreaterThanOrEqualTo(20);
      }
    }
  }

  @Test
  void theSameApplicationKeepsItsSeenCachesOnAServerByConfiguration() throws Exception {
    Config config = Config.defaults();
    config.set("port", "0");
    config.set("dir", dir.resolve("data").toString());
    try (IdemServer idem = IdemServer.start(config);
        IdemClient client = IdemClient.create("redis://127.0.0.1:" + idem.port());
        RecommendServer server =
            RecommendServer.start(
                0, new ServerStore(client, 1000, 0.01, Duration.ofDays(30)), 10_000, 5)) {
      Browser b = Browser.of(server.port());
      browseWithoutRepeats(b, 200); // 1,000 items: more than a cookie of 1,200 characters holds
      assertThat(b.cookie(RecommendServer.COOKIE)).isNull();
      String user = b.cookie(RecommendServer.USER_COOKIE);
      assertThat(user).isNotNull();
      // A second device of the same user sees the same history: the server has it.
      Browser other = Browser.of(server.port());
      other.setCookie(RecommendServer.USER_COOKIE, user);
      List<String> next = other.recommend();
      for (String item : next) {
        // Past the 1,000 shown (a false positive may skip one more).
        assertThat(Integer.parseInt(item.substring(item.lastIndexOf('/') + 1)))
            .isGreaterThanOrEqualTo(1000);
      }
      RedisClient redis = RedisClient.create("redis://127.0.0.1:" + idem.port());
      try (StatefulRedisConnection<String, String> c = redis.connect()) {
        assertThat(c.sync().pttl("seen:" + user))
            .isBetween(Duration.ofDays(29).toMillis(), Duration.ofDays(30).toMillis());
        assertThat(c.sync().type("seen:" + user)).isEqualTo("MBbloom--");
      } finally {
        redis.shutdown();
      }
    }
  }

  @Test
  void withTheServerDown_pagesAnswer503_andComeBackWithIt() throws Exception {
    Config config = Config.defaults();
    config.set("port", "0");
    config.set("dir", dir.resolve("data").toString());
    IdemServer idem = IdemServer.start(config);
    int port = idem.port();
    try (IdemClient client = IdemClient.create("redis://127.0.0.1:" + port + "?timeout=1s");
        RecommendServer server =
            RecommendServer.start(
                0, new ServerStore(client, 1000, 0.01, Duration.ofDays(30)), 10_000, 5)) {
      Browser b = Browser.of(server.port());
      assertThat(b.recommend()).hasSize(5);
      idem.close();
      HttpResponse<String> down =
          b.http()
              .send(
                  HttpRequest.newBuilder(b.base().resolve("/recommend")).build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(down.statusCode()).isEqualTo(503);
    } finally {
      idem.close();
    }
  }

  @Test
  void cookieHeadersAreParsedAsBrowsersSendThem() {
    assertThat(RecommendServer.cookies(List.of("a=1,2; idem_seen=C0x-_; seen=AQc+/A==")))
        .containsEntry("a", "1,2")
        .containsEntry("idem_seen", "C0x-_")
        .containsEntry("seen", "AQc+/A==");
    assertThat(RecommendServer.cookies(List.of("$Version=\"1\"; uid=\"abc\";$Path=\"/\"")))
        .containsExactly(java.util.Map.entry("uid", "abc"));
    assertThat(RecommendServer.cookies(null)).isEmpty();
    assertThat(RecommendServer.cookies(new ArrayList<>(List.of("novalue; =x; a=1; a=2"))))
        .containsExactly(java.util.Map.entry("a", "1"));
  }
}
