package io.idem.client.example;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.idem.client.IdemClient;
import io.idem.core.seen.GuavaBloomFilter;
import io.idem.core.seen.SeenCache;
import io.idem.core.seen.SeenCacheCodec;
import io.idem.core.seen.SeenCacheException;
import io.idem.core.seen.SeenItems;
import io.idem.core.seen.SigningKeys;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The seen-cache guide's example (docs/seen-cache.md): a page that recommends articles a user has
 * not been shown, remembering what it showed in a signed cookie, or, by configuration, on an Idem
 * server. A cookie that is forged, altered or malformed is logged and replaced by an empty cache;
 * seed 000's Guava cookie ({@code seen}, MD5s of URLs) is still honoured while browsers send it.
 *
 * <pre>
 * scripts/example-recommend.sh [port] [cookie | server redis://127.0.0.1:6379]
 * </pre>
 */
public final class RecommendServer implements AutoCloseable {
  /** The seen-cache cookie. */
  public static final String COOKIE = "idem_seen";

  /** Seed 000's cookie: a Guava filter of MD5s of URLs, base64. Read, never written. */
  public static final String LEGACY_COOKIE = "seen";

  /** A random user id, for the server-backed store's key. */
  public static final String USER_COOKIE = "uid";

  /** Where the seen-caches live. */
  public interface SeenStore {
    /** The user's seen-cache, from the request's cookies or the server. */
    SeenItems open(Map<String, String> cookies, String user);

    /** The Set-Cookie value that keeps it, or null if nothing is kept in the browser. */
    @Nullable String save(SeenItems seen);
  }

  /** Seen-caches in a signed cookie of at most {@code budget} characters. */
  public static final class CookieStore implements SeenStore {
    private final SeenCacheCodec codec;
    final AtomicInteger refused = new AtomicInteger();

    public CookieStore(int budget, double rate, SigningKeys keys) {
      this.codec = SeenCacheCodec.forBudget(budget, rate).signedWith(keys);
    }

    public SeenCacheCodec codec() {
      return codec;
    }

    @Override
    public SeenItems open(Map<String, String> cookies, String user) {
      String value = cookies.get(COOKIE);
      if (value == null) {
        return codec.newCache();
      }
      try {
        return codec.decode(value);
      } catch (SeenCacheException e) {
        // A bad cookie costs the user their history, never the request.
        refused.incrementAndGet();
        System.err.println("seen-cache cookie refused (" + e.reason() + "): " + e.getMessage());
        return codec.newCache();
      }
    }

    @Override
    public String save(SeenItems seen) {
      // Served over plain HTTP on loopback here; behind HTTPS add "; Secure".
      return COOKIE
          + "="
          + ((SeenCache) seen).encode()
          + "; Path=/; Max-Age=2592000; HttpOnly; SameSite=Lax";
    }
  }

  /** Seen-caches on an Idem server, one key a user, dropped after {@code ttl} without visits. */
  public static final class ServerStore implements SeenStore {
    private final IdemClient client;
    private final long capacity;
    private final double rate;
    private final Duration ttl;

    public ServerStore(IdemClient client, long capacity, double rate, Duration ttl) {
      this.client = client;
      this.capacity = capacity;
      this.rate = rate;
      this.ttl = ttl;
    }

    @Override
    public SeenItems open(Map<String, String> cookies, String user) {
      return client.seenCache("seen:" + user, capacity, rate, ttl);
    }

    @Override
    public @Nullable String save(SeenItems seen) {
      return null; // every add went to the server already
    }
  }

  private final HttpServer http;
  private final ExecutorService executor = Executors.newFixedThreadPool(4);
  private final SeenStore store;
  private final int catalogue;
  private final int perPage;

  private RecommendServer(HttpServer http, SeenStore store, int catalogue, int perPage) {
    this.http = http;
    this.store = store;
    this.catalogue = catalogue;
    this.perPage = perPage;
  }

  /** Serves on loopback at {@code port} (0: any free one) from a catalogue of articles. */
  public static RecommendServer start(int port, SeenStore store, int catalogue, int perPage)
      throws IOException {
    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
    RecommendServer s = new RecommendServer(http, store, catalogue, perPage);
    http.createContext("/", s::handle);
    http.setExecutor(s.executor);
    http.start();
    return s;
  }

  public int port() {
    return http.getAddress().getPort();
  }

  /** The URL of the catalogue's i-th article: the item a seen-cache keeps. */
  public static String article(int i) {
    return "https://news.example/article/" + i;
  }

  private void handle(HttpExchange exchange) throws IOException {
    try {
      serve(exchange);
    } catch (RuntimeException e) {
      // The server behind a ServerStore may be down: say so, keep serving. (Inside the try, not
      // after it: a closed exchange can send nothing.)
      System.err.println("request failed: " + e);
      exchange.sendResponseHeaders(503, -1);
    } finally {
      exchange.close();
    }
  }

  private void serve(HttpExchange exchange) throws IOException {
    URI uri = exchange.getRequestURI();
    if (!uri.getPath().equals("/") && !uri.getPath().equals("/recommend")) {
      exchange.sendResponseHeaders(404, -1);
      return;
    }
    Map<String, String> cookies = cookies(exchange.getRequestHeaders().get("Cookie"));
    String user = cookies.get(USER_COOKIE);
    if (user == null || !user.matches("[0-9a-f-]{36}")) {
      user = UUID.randomUUID().toString();
      exchange
          .getResponseHeaders()
          .add("Set-Cookie", USER_COOKIE + "=" + user + "; Path=/; Max-Age=31536000; SameSite=Lax");
    }
    SeenItems seen = store.open(cookies, user);
    @Nullable GuavaBloomFilter legacy = legacy(cookies.get(LEGACY_COOKIE));
    List<String> picked = pick(seen, legacy);
    List<byte[]> items = new ArrayList<>();
    for (String p : picked) {
      items.add(p.getBytes(StandardCharsets.UTF_8));
    }
    seen.addAll(items);
    String cookie = store.save(seen);
    if (cookie != null) {
      exchange.getResponseHeaders().add("Set-Cookie", cookie);
    }
    boolean page = uri.getPath().equals("/");
    StringBuilder body = new StringBuilder();
    if (page) {
      body.append("<!doctype html><title>Recommended</title><h1>Recommended for you</h1><ul>\n");
      for (String p : picked) {
        body.append("<li><a class=item href=\"").append(p).append("\">").append(p);
        body.append("</a></li>\n");
      }
      body.append("</ul>\n");
    } else {
      picked.forEach(p -> body.append(p).append('\n'));
    }
    byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
    exchange
        .getResponseHeaders()
        .add("Content-Type", page ? "text/html; charset=utf-8" : "text/plain; charset=utf-8");
    exchange.getResponseHeaders().add("Cache-Control", "no-store");
    exchange.sendResponseHeaders(200, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** The first unseen articles, in catalogue order, asked about in batches. */
  private List<String> pick(SeenItems seen, @Nullable GuavaBloomFilter legacy) {
    List<String> picked = new ArrayList<>();
    int batch = Math.max(perPage * 4, 32);
    for (int from = 0; from < catalogue && picked.size() < perPage; from += batch) {
      List<byte[]> candidates = new ArrayList<>();
      for (int i = from; i < Math.min(catalogue, from + batch); i++) {
        candidates.add(article(i).getBytes(StandardCharsets.UTF_8));
      }
      List<Boolean> known = seen.mightContainAll(candidates);
      for (int i = 0; i < candidates.size() && picked.size() < perPage; i++) {
        String url = article(from + i);
        if (!known.get(i) && (legacy == null || !legacy.mightContain(md5(url)))) {
          picked.add(url);
        }
      }
    }
    return picked;
  }

  private static @Nullable GuavaBloomFilter legacy(@Nullable String value) {
    if (value == null) {
      return null;
    }
    try {
      return GuavaBloomFilter.fromBase64(value, 4096);
    } catch (SeenCacheException e) {
      System.err.println("legacy seen cookie ignored (" + e.reason() + "): " + e.getMessage());
      return null;
    }
  }

  /** Seed 000's item: the MD5 of the URL. */
  static byte[] md5(String url) {
    try {
      return MessageDigest.getInstance("MD5").digest(url.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e); // every Java platform has MD5
    }
  }

  /**
   * The request's cookies by name; the first of a repeated name wins. A value in double quotes (RFC
   * 6265 allows them) is unquoted, and RFC 2965's {@code $Version}-style attributes, which the
   * JDK's own CookieManager still sends, are skipped.
   */
  static Map<String, String> cookies(@Nullable List<String> headers) {
    Map<String, String> out = new LinkedHashMap<>();
    if (headers == null) {
      return out;
    }
    for (String header : headers) {
      for (String pair : header.split(";")) {
        String p = pair.trim();
        int eq = p.indexOf('=');
        if (eq <= 0 || p.startsWith("$")) {
          continue;
        }
        String value = p.substring(eq + 1).trim();
        if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
          value = value.substring(1, value.length() - 1);
        }
        out.putIfAbsent(p.substring(0, eq).trim(), value);
      }
    }
    return out;
  }

  @Override
  public void close() {
    http.stop(0);
    executor.shutdownNow();
  }

  /**
   * Runs the example. The signing key comes from IDEM_COOKIE_KEY (hex, 32 bytes); without it a
   * random one is made, and cookies stop verifying when the process restarts.
   */
  public static void main(String[] args) throws Exception {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 8080;
    String mode = args.length > 1 ? args[1] : "cookie";
    SeenStore store;
    IdemClient client = null;
    if (mode.equals("server")) {
      client = IdemClient.create(args.length > 2 ? args[2] : "redis://127.0.0.1:6379");
      store = new ServerStore(client, 1000, 0.01, Duration.ofDays(30));
    } else {
      String hex = System.getenv("IDEM_COOKIE_KEY");
      byte[] key = new byte[32];
      if (hex != null) {
        key = HexFormat.of().parseHex(hex);
      } else {
        new SecureRandom().nextBytes(key);
        System.err.println("IDEM_COOKIE_KEY not set: signing with a random key for this run");
      }
      store = new CookieStore(1200, 0.01, SigningKeys.of(key));
    }
    RecommendServer server = start(port, store, 10_000, 5);
    System.out.println(
        "recommending on http://127.0.0.1:" + server.port() + "/ with seen-caches in " + mode);
    IdemClient toClose = client;
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.close();
                  if (toClose != null) {
                    toClose.close();
                  }
                }));
    Thread.currentThread().join();
  }
}
