package io.idem.client.http;

import io.idem.client.IdempotencyKeys;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Idempotency keys for a Jakarta Servlet 6 container, as {@link IdempotencyHttpFilter} for the
 * JDK's server: a request of the policy's methods with an {@code Idempotency-Key} runs once; every
 * retry gets its response (status, the policy's headers, body, {@code Idempotent-Replayed: true});
 * 409 with Retry-After or a wait while it runs; 422 for another request under the key; 400 for a
 * missing key when one is required. For synchronous servlets: the response is buffered whole.
 */
public final class IdempotencyServletFilter implements Filter {

  private final IdempotencyKeys keys;
  private final IdempotencyPolicy policy;

  public IdempotencyServletFilter(IdempotencyKeys keys, IdempotencyPolicy policy) {
    this.keys = keys;
    this.policy = policy;
  }

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    if (!(req instanceof HttpServletRequest http)
        || !(res instanceof HttpServletResponse out)
        || !policy.applies(http.getMethod())) {
      chain.doFilter(req, res);
      return;
    }
    String key = policy.key(http.getHeader(policy.header()));
    if (key == null && !policy.keyRequired()) {
      chain.doFilter(req, res);
      return;
    }
    StoredResponse refused = IdempotentExchange.badKey(policy, key);
    if (refused != null) {
      send(out, refused, false);
      return;
    }
    byte[] body = http.getInputStream().readNBytes(policy.maxBodyBytes() + 1);
    if (body.length > policy.maxBodyBytes()) {
      send(out, IdempotentExchange.TOO_LARGE, false);
      return;
    }
    String query = http.getQueryString();
    String target = http.getRequestURI() + (query == null ? "" : "?" + query);
    IdempotentExchange.Answer a;
    try {
      a =
          IdempotentExchange.respond(
              keys,
              policy,
              key,
              http.getMethod(),
              target,
              body,
              () -> {
                Capturing c = new Capturing(out);
                chain.doFilter(new Buffered(http, body), c);
                return c.response();
              });
    } catch (IOException | ServletException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new ServletException(e);
    }
    send(out, a.response(), a.replayed());
  }

  private static void send(HttpServletResponse out, StoredResponse r, boolean replayed)
      throws IOException {
    out.reset();
    out.setStatus(r.status());
    for (Map.Entry<String, String> h : r.headers()) {
      out.addHeader(h.getKey(), h.getValue());
    }
    if (replayed) {
      out.setHeader(IdempotencyPolicy.REPLAYED_HEADER, "true");
    }
    out.setContentLength(r.body().length);
    if (r.body().length > 0) {
      out.getOutputStream().write(r.body());
    }
    out.flushBuffer();
  }

  /** The request with its body read already, to fingerprint it, and given again. */
  private static final class Buffered extends HttpServletRequestWrapper {
    private final byte[] body;

    Buffered(HttpServletRequest request, byte[] body) {
      super(request);
      this.body = body;
    }

    @Override
    public ServletInputStream getInputStream() {
      ByteArrayInputStream in = new ByteArrayInputStream(body);
      return new ServletInputStream() {
        @Override
        public boolean isFinished() {
          return in.available() == 0;
        }

        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setReadListener(ReadListener listener) {
          throw new IllegalStateException("a buffered body is read synchronously");
        }

        @Override
        public int read() {
          return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) {
          return in.read(b, off, len);
        }
      };
    }

    @Override
    public BufferedReader getReader() {
      String enc = getCharacterEncoding();
      Charset cs = enc == null ? StandardCharsets.UTF_8 : Charset.forName(enc);
      return new BufferedReader(new InputStreamReader(new ByteArrayInputStream(body), cs));
    }

    @Override
    public int getContentLength() {
      return body.length;
    }

    @Override
    public long getContentLengthLong() {
      return body.length;
    }
  }

  /**
   * The response as the servlet writes it: headers and status go to the real response, which
   * nothing commits while the body is held here; the body is captured.
   */
  private static final class Capturing extends HttpServletResponseWrapper {
    private final HttpServletResponse real;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private PrintWriter writer;
    private ServletOutputStream stream;

    Capturing(HttpServletResponse real) {
      super(real);
      this.real = real;
    }

    StoredResponse response() {
      if (writer != null) {
        writer.flush();
      }
      List<Map.Entry<String, String>> headers = new ArrayList<>();
      for (String name : real.getHeaderNames()) {
        for (String v : real.getHeaders(name)) {
          headers.add(Map.entry(name, v));
        }
      }
      String type = real.getContentType();
      if (type != null
          && headers.stream().noneMatch(h -> h.getKey().equalsIgnoreCase("Content-Type"))) {
        headers.add(Map.entry("Content-Type", type));
      }
      headers.removeIf(h -> h.getKey().equalsIgnoreCase("Content-Length"));
      return new StoredResponse(real.getStatus(), headers, body.toByteArray());
    }

    @Override
    public ServletOutputStream getOutputStream() {
      if (stream == null) {
        stream =
            new ServletOutputStream() {
              @Override
              public boolean isReady() {
                return true;
              }

              @Override
              public void setWriteListener(WriteListener listener) {
                throw new IllegalStateException("the response is buffered synchronously");
              }

              @Override
              public void write(int b) {
                body.write(b);
              }

              @Override
              public void write(byte[] b, int off, int len) {
                body.write(b, off, len);
              }
            };
      }
      return stream;
    }

    @Override
    public PrintWriter getWriter() {
      if (writer == null) {
        String enc = real.getCharacterEncoding();
        Charset cs = enc == null ? StandardCharsets.UTF_8 : Charset.forName(enc);
        writer = new PrintWriter(new OutputStreamWriter(body, cs));
      }
      return writer;
    }

    @Override
    public void sendError(int sc) {
      real.setStatus(sc);
    }

    @Override
    public void sendError(int sc, String msg) {
      real.setStatus(sc);
      body.writeBytes(msg.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void sendRedirect(String location) {
      real.setStatus(302);
      real.setHeader("Location", location);
    }

    @Override
    public void setContentLength(int len) {}

    @Override
    public void setContentLengthLong(long len) {}

    @Override
    public void flushBuffer() {}

    @Override
    public void resetBuffer() {
      body.reset();
    }

    @Override
    public void reset() {
      real.reset();
      body.reset();
    }

    @Override
    public boolean isCommitted() {
      return false;
    }
  }
}
