package io.idem.client.http;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import io.idem.client.IdempotencyKeys;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Idempotency keys for the JDK's {@code HttpServer}: a request of the policy's methods with an
 * {@code Idempotency-Key} runs once; every retry gets the first response (status, the policy's
 * headers, body, and {@code Idempotent-Replayed: true}); a retry while it runs gets 409 with
 * Retry-After, or waits (as the policy says); a retry with another method, target or body gets 422;
 * a missing key gets 400 if the policy requires one. The handler's response is buffered whole.
 */
public final class IdempotencyHttpFilter extends Filter {

  private final IdempotencyKeys keys;
  private final IdempotencyPolicy policy;

  public IdempotencyHttpFilter(IdempotencyKeys keys, IdempotencyPolicy policy) {
    this.keys = keys;
    this.policy = policy;
  }

  @Override
  public String description() {
    return "Idempotency-Key: a request runs once, its retries get its response";
  }

  @Override
  public void doFilter(HttpExchange ex, Chain chain) throws IOException {
    if (!policy.applies(ex.getRequestMethod())) {
      chain.doFilter(ex);
      return;
    }
    String key = policy.key(ex.getRequestHeaders().getFirst(policy.header()));
    if (key == null && !policy.keyRequired()) {
      chain.doFilter(ex);
      return;
    }
    StoredResponse refused = IdempotentExchange.badKey(policy, key);
    if (refused != null) {
      send(ex, refused, false);
      return;
    }
    byte[] body = ex.getRequestBody().readNBytes(policy.maxBodyBytes() + 1);
    if (body.length > policy.maxBodyBytes()) {
      send(ex, IdempotentExchange.TOO_LARGE, false);
      return;
    }
    IdempotentExchange.Answer a;
    try {
      a =
          IdempotentExchange.respond(
              keys,
              policy,
              key,
              ex.getRequestMethod(),
              ex.getRequestURI().toString(),
              body,
              () -> {
                Capturing c = new Capturing(ex, body);
                chain.doFilter(c);
                return c.response();
              });
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(e);
    }
    send(ex, a.response(), a.replayed());
  }

  private static void send(HttpExchange ex, StoredResponse r, boolean replayed) throws IOException {
    Headers h = ex.getResponseHeaders();
    for (Map.Entry<String, String> e : r.headers()) {
      h.add(e.getKey(), e.getValue());
    }
    if (replayed) {
      h.set(IdempotencyPolicy.REPLAYED_HEADER, "true");
    }
    boolean noBody = r.body().length == 0 || r.status() == 204 || r.status() == 304;
    ex.sendResponseHeaders(r.status(), noBody ? -1 : r.body().length);
    if (!noBody) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(r.body());
      }
    }
    ex.close();
  }

  /** The exchange as the handler sees it: the buffered body in, the response captured out. */
  private static final class Capturing extends HttpExchange {
    private final HttpExchange real;
    private final Headers responseHeaders = new Headers();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private int status = -1;
    private InputStream in;

    Capturing(HttpExchange real, byte[] body) {
      this.real = real;
      this.in = new ByteArrayInputStream(body);
    }

    StoredResponse response() {
      if (status < 0) {
        throw new IllegalStateException("the handler sent no response");
      }
      List<Map.Entry<String, String>> headers = new ArrayList<>();
      for (Map.Entry<String, List<String>> e : responseHeaders.entrySet()) {
        for (String v : e.getValue()) {
          headers.add(Map.entry(e.getKey(), v));
        }
      }
      return new StoredResponse(status, headers, out.toByteArray());
    }

    @Override
    public Headers getRequestHeaders() {
      return real.getRequestHeaders();
    }

    @Override
    public Headers getResponseHeaders() {
      return responseHeaders;
    }

    @Override
    public URI getRequestURI() {
      return real.getRequestURI();
    }

    @Override
    public String getRequestMethod() {
      return real.getRequestMethod();
    }

    @Override
    public HttpContext getHttpContext() {
      return real.getHttpContext();
    }

    @Override
    public void close() {}

    @Override
    public InputStream getRequestBody() {
      return in;
    }

    @Override
    public OutputStream getResponseBody() {
      return out;
    }

    @Override
    public void sendResponseHeaders(int rCode, long responseLength) {
      status = rCode;
    }

    @Override
    public InetSocketAddress getRemoteAddress() {
      return real.getRemoteAddress();
    }

    @Override
    public int getResponseCode() {
      return status;
    }

    @Override
    public InetSocketAddress getLocalAddress() {
      return real.getLocalAddress();
    }

    @Override
    public String getProtocol() {
      return real.getProtocol();
    }

    @Override
    public Object getAttribute(String name) {
      return real.getAttribute(name);
    }

    @Override
    public void setAttribute(String name, Object value) {
      real.setAttribute(name, value);
    }

    @Override
    public void setStreams(InputStream i, OutputStream o) {
      if (i != null) {
        in = i;
      }
    }

    @Override
    public HttpPrincipal getPrincipal() {
      return real.getPrincipal();
    }
  }
}
