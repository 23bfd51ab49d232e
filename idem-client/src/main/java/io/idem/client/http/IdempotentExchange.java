package io.idem.client.http;

import io.idem.client.IdemException;
import io.idem.client.IdempotencyKeys;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * What both HTTP filters do with a request that carries a key, whatever the server: begin the key,
 * then replay the stored response, refuse (409, 422), or run the handler and store its response.
 */
final class IdempotentExchange {

  /** Runs the request's handler, capturing its response. */
  interface Handler {
    StoredResponse run() throws Exception;
  }

  /** The response to send, and whether it is a stored one replayed. */
  record Answer(StoredResponse response, boolean replayed) {}

  private IdempotentExchange() {}

  /** The request's fingerprint: the first 16 bytes of SHA-256 over method, target and body. */
  static byte[] fingerprint(String method, String target, byte[] body) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      d.update(method.getBytes(StandardCharsets.US_ASCII));
      d.update((byte) '\n');
      d.update(target.getBytes(StandardCharsets.UTF_8));
      d.update((byte) '\n');
      d.update(body);
      return Arrays.copyOf(d.digest(), 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  static Answer respond(
      IdempotencyKeys keys,
      IdempotencyPolicy policy,
      String key,
      String method,
      String target,
      byte[] body,
      Handler handler)
      throws Exception {
    byte[] fp = fingerprint(method, target, body);
    IdempotencyKeys.Begin b;
    try {
      b = keys.begin(key, fp, policy.lease());
      Duration wait = policy.waitWhileInProgress();
      if (b instanceof IdempotencyKeys.InProgress && !wait.isZero()) {
        b = keys.begin(key, fp, policy.lease(), wait);
      }
    } catch (IdemException e) {
      // Unreachable, timed out or refusing: the request is not run, as it could not be run once.
      return new Answer(UNAVAILABLE, false);
    }
    return switch (b) {
      case IdempotencyKeys.Done d -> new Answer(StoredResponse.decode(d.result()), true);
      case IdempotencyKeys.Mismatch m ->
          new Answer(
              problem(
                  422,
                  "Idempotency key reused",
                  "This key was used with another request; use a new key for a new request."),
              false);
      case IdempotencyKeys.InProgress p ->
          new Answer(
              withHeader(
                  problem(
                      409,
                      "Request in progress",
                      "A request with this key is still being processed; retry later."),
                  "Retry-After",
                  Long.toString(Math.max(1, (p.left().toMillis() + 999) / 1000))),
              false);
      case IdempotencyKeys.Started s ->
          new Answer(run(keys, policy, key, s.token(), handler), false);
    };
  }

  private static StoredResponse run(
      IdempotencyKeys keys, IdempotencyPolicy policy, String key, long token, Handler handler)
      throws Exception {
    StoredResponse r;
    try {
      r = handler.run();
    } catch (Exception | Error e) {
      abandonQuietly(keys, key, token, e);
      throw e;
    }
    if (r.status() >= 500 && !policy.storeServerErrors()) {
      abandonQuietly(keys, key, token, null);
      return r;
    }
    List<Map.Entry<String, String>> stored = new ArrayList<>();
    for (Map.Entry<String, String> h : r.headers()) {
      if (policy.stores(h.getKey())) {
        stored.add(h);
      }
    }
    try {
      keys.complete(key, token, new StoredResponse(r.status(), stored, r.body()).encode());
    } catch (IdemException e) {
      // Too large for the table, say: sent unstored, and the next retry runs the request again.
      abandonQuietly(keys, key, token, e);
    }
    return r;
  }

  private static void abandonQuietly(
      IdempotencyKeys keys,
      String key,
      long token,
      @org.jspecify.annotations.Nullable Throwable why) {
    try {
      keys.abandon(key, token);
    } catch (RuntimeException e) {
      if (why != null) {
        why.addSuppressed(e);
      }
    }
  }

  /** The answer when Idem cannot begin the key (down, slow past the client's timeout, refusing). */
  static final StoredResponse UNAVAILABLE =
      withHeader(
          problem(
              503,
              "Idempotency store unavailable",
              "The request was not run, as it could not be run only once; retry later."),
          "Retry-After",
          "1");

  /** The answer to a body over the policy's bound. */
  static final StoredResponse TOO_LARGE =
      problem(413, "Request too large", "The body is over the limit.");

  /**
   * The 400 for a key the policy cannot take: none where one is required, or a bad one (empty, too
   * long, not text); null if the key is good.
   */
  static @org.jspecify.annotations.Nullable StoredResponse badKey(
      IdempotencyPolicy policy, @org.jspecify.annotations.Nullable String key) {
    if (key != null && !key.isEmpty()) {
      return null;
    }
    return problem(
        400,
        "Idempotency key required",
        key == null
            ? "This request needs an " + policy.header() + " header."
            : "The " + policy.header() + " header is empty, too long or not text.");
  }

  /** An RFC 9457 problem response. */
  static StoredResponse problem(int status, String title, String detail) {
    String json =
        "{\"type\":\"about:blank\",\"title\":\""
            + title
            + "\",\"status\":"
            + status
            + ",\"detail\":\""
            + detail
            + "\"}";
    return new StoredResponse(
        status,
        List.of(Map.entry("Content-Type", "application/problem+json")),
        json.getBytes(StandardCharsets.UTF_8));
  }

  private static StoredResponse withHeader(StoredResponse r, String name, String value) {
    List<Map.Entry<String, String>> h = new ArrayList<>(r.headers());
    h.add(Map.entry(name, value));
    return new StoredResponse(r.status(), h, r.body());
  }
}
