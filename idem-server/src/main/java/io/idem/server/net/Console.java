package io.idem.server.net;

import io.idem.server.dispatch.CommandSpec;
import io.idem.server.dispatch.Session;
import io.idem.server.engine.Journal;
import io.idem.server.reply.Reply;
import io.idem.server.request.Command;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.cookie.ServerCookieDecoder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The web console (setting {@code console yes}): a single-page app served from the jar under {@code
 * /console} on the HTTP port, and the one call it makes, {@code POST /console/api/call}, which runs
 * a command through the dispatcher as any client's would run and answers its reply as JSON. So
 * every figure the console shows is a server reply. The call runs reads, and the few writes the
 * console offers (queue actions, resets); nothing else.
 *
 * <p>With a password set (requirepass), every page but the sign-in and every call need a session
 * cookie, given for the password: HttpOnly, SameSite=Strict, at most 64 at once, 12 hours each. A
 * call must also carry the header {@code X-Idem-Console}, which a page of another site cannot send
 * without a preflight this server never grants. Runs on the HTTP port's own event loop.
 */
final class Console {

  static final String PREFIX = "/console";
  static final String COOKIE = "idem_console";
  static final String HEADER = "X-Idem-Console";
  private static final int MAX_SESSIONS = 64;
  private static final long SESSION_MILLIS = 12 * 3600_000L;
  private static final int MAX_ARGS = 256;

  /**
   * The writes the console may run, by command (and subcommand for containers): the queue actions
   * and controls, and the resets of SLOWLOG and LATENCY. Reads (READONLY commands, and the
   * introspection below) all run.
   */
  private static final Set<String> WRITES =
      Set.of(
          "queue.replay",
          "queue.cancel",
          "queue.purge",
          "queue.pause",
          "queue.resume",
          "queue.config",
          "queue.group",
          "queue.unschedule",
          "slowlog reset",
          "latency reset");

  private static final Set<String> INTROSPECTION =
      Set.of(
          "info",
          "dbsize",
          "scan",
          "type",
          "ttl",
          "pttl",
          "memory usage",
          "slowlog get",
          "slowlog len",
          "latency latest",
          "latency history",
          "cluster info",
          "cluster nodes",
          "cluster shards",
          "cluster slots",
          "config get",
          "ping");

  /** A static file of the app: its bytes and content type. */
  record Asset(byte[] bytes, String contentType) {}

  /** An answer: status, body, content type, and a cookie to set (or null). */
  record Answer(int status, byte[] body, String contentType, @Nullable String setCookie) {
    static Answer json(int status, String json) {
      return new Answer(
          status, json.getBytes(StandardCharsets.UTF_8), "application/json; charset=utf-8", null);
    }
  }

  private final IdemServer server;
  private final Map<String, Asset> assets;
  // Sign-in sessions, oldest first; touched only on the HTTP event loop.
  private final LinkedHashMap<String, Long> sessions = new LinkedHashMap<>();
  private final SecureRandom random = new SecureRandom();
  private final AtomicLong callIds = new AtomicLong(1L << 40);

  Console(IdemServer server) {
    this.server = server;
    this.assets = loadAssets();
  }

  private static Map<String, Asset> loadAssets() {
    Map<String, Asset> m = new LinkedHashMap<>();
    String html = "text/html; charset=utf-8";
    Asset index = new Asset(resource("/io/idem/server/console/index.html"), html);
    m.put("", index);
    m.put("/", index);
    m.put(
        "/app.js",
        new Asset(resource("/io/idem/server/console/app.js"), "text/javascript; charset=utf-8"));
    m.put(
        "/app.css",
        new Asset(resource("/io/idem/server/console/app.css"), "text/css; charset=utf-8"));
    String uplot = "/META-INF/resources/webjars/uplot/" + uplotVersion() + "/dist/";
    m.put(
        "/vendor/uplot.js",
        new Asset(resource(uplot + "uPlot.iife.min.js"), "text/javascript; charset=utf-8"));
    m.put(
        "/vendor/uplot.css",
        new Asset(resource(uplot + "uPlot.min.css"), "text/css; charset=utf-8"));
    return Map.copyOf(m);
  }

  /** The version of the uPlot WebJar on the class path, from its Maven properties. */
  private static String uplotVersion() {
    try (InputStream in =
        Console.class.getResourceAsStream("/META-INF/maven/org.webjars.npm/uplot/pom.properties")) {
      if (in == null) {
        throw new IllegalStateException("the uPlot WebJar is not on the class path");
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version");
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the uPlot WebJar's version", e);
    }
  }

  private static byte[] resource(String path) {
    try (InputStream in = Console.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("missing from the jar: " + path);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + path, e);
    }
  }

  /**
   * Answers a request under {@link #PREFIX}: at once, or later for a call that waits for its write
   * to be durable.
   */
  CompletableFuture<Answer> handle(FullHttpRequest req, String path) {
    String rest = path.substring(PREFIX.length());
    boolean signedIn = signedIn(req);
    if (req.method().equals(HttpMethod.GET)) {
      Asset a = assets.get(rest);
      if (a != null) {
        // The app's files need no session: what they show comes from calls, which do.
        return CompletableFuture.completedFuture(new Answer(200, a.bytes(), a.contentType(), null));
      }
      if (rest.equals("/api/sizing")) {
        if (!signedIn) {
          return done(Answer.json(401, "{\"error\":\"sign in first\"}"));
        }
        Map<String, List<String>> q = new QueryStringDecoder(req.uri()).parameters();
        String json =
            ConsoleSizing.json(
                q.getOrDefault("capacity", List.of("")).getFirst(),
                q.getOrDefault("error", List.of("")).getFirst());
        return done(Answer.json(json.startsWith("{\"error\"") ? 400 : 200, json));
      }
      if (rest.equals("/api/session")) {
        return done(
            Answer.json(
                200, "{\"password\":" + !password().isEmpty() + ",\"signedIn\":" + signedIn + "}"));
      }
      return done(Answer.json(404, "{\"error\":\"not found\"}"));
    }
    if (!req.method().equals(HttpMethod.POST)) {
      return done(Answer.json(405, "{\"error\":\"method not allowed\"}"));
    }
    if (req.headers().get(HEADER) == null) {
      return done(Answer.json(403, "{\"error\":\"the console's calls carry " + HEADER + "\"}"));
    }
    Map<String, List<String>> form = form(req);
    return switch (rest) {
      case "/api/login" -> done(login(form));
      case "/api/logout" -> {
        String token = cookie(req);
        if (token != null) {
          sessions.remove(token);
        }
        yield done(
            new Answer(
                204,
                new byte[0],
                "text/plain",
                COOKIE + "=; Path=" + PREFIX + "; HttpOnly; SameSite=Strict; Max-Age=0"));
      }
      case "/api/call" ->
          signedIn
              ? call(form.getOrDefault("arg", List.of()))
              : done(Answer.json(401, "{\"error\":\"sign in first\"}"));
      default -> done(Answer.json(404, "{\"error\":\"not found\"}"));
    };
  }

  private static CompletableFuture<Answer> done(Answer a) {
    return CompletableFuture.completedFuture(a);
  }

  private String password() {
    return server.config().get("requirepass");
  }

  private Answer login(Map<String, List<String>> form) {
    String given = form.getOrDefault("password", List.of("")).getFirst();
    byte[] want = password().getBytes(StandardCharsets.UTF_8);
    if (want.length == 0) {
      return Answer.json(200, "{\"signedIn\":true}");
    }
    if (!MessageDigest.isEqual(want, given.getBytes(StandardCharsets.UTF_8))) {
      return Answer.json(401, "{\"error\":\"wrong password\"}");
    }
    byte[] raw = new byte[24];
    random.nextBytes(raw);
    String token = HexFormat.of().formatHex(raw);
    long now = System.currentTimeMillis();
    sessions.values().removeIf(until -> until < now);
    while (sessions.size() >= MAX_SESSIONS) {
      sessions.remove(sessions.keySet().iterator().next()); // the oldest sign-in goes
    }
    sessions.put(token, now + SESSION_MILLIS);
    return new Answer(
        200,
        "{\"signedIn\":true}".getBytes(StandardCharsets.UTF_8),
        "application/json; charset=utf-8",
        COOKIE
            + "="
            + token
            + "; Path="
            + PREFIX
            + "; HttpOnly; SameSite=Strict; Max-Age="
            + SESSION_MILLIS / 1000);
  }

  private boolean signedIn(FullHttpRequest req) {
    if (password().isEmpty()) {
      return true;
    }
    String token = cookie(req);
    if (token == null) {
      return false;
    }
    Long until = sessions.get(token);
    return until != null && until >= System.currentTimeMillis();
  }

  private static @Nullable String cookie(FullHttpRequest req) {
    String header = req.headers().get(HttpHeaderNames.COOKIE);
    if (header == null) {
      return null;
    }
    for (var c : ServerCookieDecoder.STRICT.decodeAll(header)) {
      if (c.name().equals(COOKIE)) {
        return c.value();
      }
    }
    return null;
  }

  private static Map<String, List<String>> form(FullHttpRequest req) {
    String body = req.content().toString(StandardCharsets.UTF_8);
    return new QueryStringDecoder(body, StandardCharsets.UTF_8, false, MAX_ARGS * 2).parameters();
  }

  /** Runs one command as a client would, if the console may run it; its reply as JSON. */
  private CompletableFuture<Answer> call(List<String> args) {
    if (args.isEmpty() || args.size() > MAX_ARGS) {
      return done(Answer.json(400, "{\"error\":\"a call is 1 to " + MAX_ARGS + " arguments\"}"));
    }
    String refusal = refusal(args);
    if (refusal != null) {
      return done(Answer.json(200, "{\"error\":" + Json.string(refusal) + "}"));
    }
    byte[][] words = new byte[args.size()][];
    for (int i = 0; i < words.length; i++) {
      words[i] = args.get(i).getBytes(StandardCharsets.UTF_8);
    }
    Session session = Session.detached(callIds.getAndIncrement());
    session.setProtocol(3);
    Reply reply = server.dispatcher().dispatch(session, new Command(words));
    long seq = session.takeDurableSeq();
    CompletableFuture<Reply> resolved =
        reply instanceof Reply.Deferred d ? d.future() : CompletableFuture.completedFuture(reply);
    CompletableFuture<Answer> out = new CompletableFuture<>();
    resolved.whenComplete(
        (r, e) -> {
          Runnable answer =
              () ->
                  out.complete(
                      e != null
                          ? Answer.json(200, "{\"error\":" + Json.string(String.valueOf(e)) + "}")
                          : Answer.json(200, Json.reply(r)));
          Journal journal = server.engine().journal();
          if (seq > journal.durableSeq()) {
            journal.whenDurable(seq, answer); // a write is answered once it is durable
          } else {
            answer.run();
          }
        });
    return out;
  }

  /** Why the console does not run this command, or null if it does. */
  private @Nullable String refusal(List<String> args) {
    String name = args.getFirst().toLowerCase(java.util.Locale.ROOT);
    CommandSpec spec = server.commands().get(args.getFirst().getBytes(StandardCharsets.UTF_8));
    if (spec == null) {
      return "ERR unknown command '" + args.getFirst() + "'";
    }
    String withSub =
        args.size() > 1 ? name + " " + args.get(1).toLowerCase(java.util.Locale.ROOT) : name;
    if (INTROSPECTION.contains(name)
        || INTROSPECTION.contains(withSub)
        || WRITES.contains(name)
        || WRITES.contains(withSub)
        || spec.has(CommandSpec.Flag.READONLY) && !spec.has(CommandSpec.Flag.WRITE)) {
      return null;
    }
    return "ERR the console does not run " + name.toUpperCase(java.util.Locale.ROOT);
  }

  /** Replies as JSON: maps as objects, bulk strings as UTF-8 text, errors as {"error": ...}. */
  static final class Json {
    private Json() {}

    static String reply(Reply r) {
      StringBuilder b = new StringBuilder();
      if (r instanceof Reply.Error err) {
        return "{\"error\":" + string(err.text()) + "}";
      }
      b.append("{\"reply\":");
      write(b, r);
      return b.append('}').toString();
    }

    private static void write(StringBuilder b, Reply r) {
      switch (r) {
        case Reply.Simple s -> b.append(string(s.text()));
        case Reply.Error e -> b.append("{\"error\":").append(string(e.text())).append('}');
        case Reply.Int i -> b.append(i.value());
        case Reply.Bulk bulk -> b.append(string(new String(bulk.bytes(), StandardCharsets.UTF_8)));
        case Reply.Null n -> b.append("null");
        case Reply.NullArray n -> b.append("null");
        case Reply.None n -> b.append("null");
        case Reply.Array a -> list(b, a.items());
        case Reply.Set s -> list(b, s.items());
        case Reply.IntRows rows -> {
          b.append('[');
          for (int row = 0; row < rows.rows(); row++) {
            b.append(row == 0 ? "[" : ",[");
            for (int c = 0; c < rows.width(); c++) {
              b.append(c == 0 ? "" : ",").append(rows.values()[row * rows.width() + c]);
            }
            b.append(']');
          }
          b.append(']');
        }
        case Reply.Map m -> {
          b.append('{');
          List<Reply> kv = m.keysAndValues();
          for (int i = 0; i < kv.size(); i += 2) {
            b.append(i == 0 ? "" : ",").append(string(text(kv.get(i)))).append(':');
            write(b, kv.get(i + 1));
          }
          b.append('}');
        }
        case Reply.Double d ->
            b.append(
                Double.isFinite(d.value()) ? Double.toString(d.value()) : string("" + d.value()));
        case Reply.Bool bool -> b.append(bool.value());
        case Reply.Verbatim v -> b.append(string(v.text()));
        case Reply.Deferred d -> b.append("null");
      }
    }

    private static void list(StringBuilder b, List<Reply> items) {
      b.append('[');
      for (int i = 0; i < items.size(); i++) {
        if (i > 0) {
          b.append(',');
        }
        write(b, items.get(i));
      }
      b.append(']');
    }

    private static String text(Reply r) {
      return switch (r) {
        case Reply.Simple s -> s.text();
        case Reply.Bulk bulk -> new String(bulk.bytes(), StandardCharsets.UTF_8);
        case Reply.Int i -> Long.toString(i.value());
        default -> String.valueOf(r);
      };
    }

    static String string(String s) {
      StringBuilder b = new StringBuilder(s.length() + 2).append('"');
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        switch (c) {
          case '"' -> b.append("\\\"");
          case '\\' -> b.append("\\\\");
          case '\n' -> b.append("\\n");
          case '\r' -> b.append("\\r");
          case '\t' -> b.append("\\t");
          default -> {
            if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x2028 || c == 0x2029) {
              b.append(String.format("\\u%04x", (int) c));
            } else {
              b.append(c);
            }
          }
        }
      }
      return b.append('"').toString();
    }
  }
}
