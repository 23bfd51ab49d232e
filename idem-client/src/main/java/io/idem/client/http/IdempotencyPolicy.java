package io.idem.client.http;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * How the HTTP filters treat a request's {@code Idempotency-Key}: which methods it applies to,
 * whether a key is required, what a retry gets while the first request runs (409, or a wait for its
 * response), which response headers are stored with the status and body, and whether server errors
 * (5xx) are stored (Stripe stores them; a stored 500 answers every retry).
 */
public final class IdempotencyPolicy {

  /** The IETF draft's header. */
  public static final String HEADER = "Idempotency-Key";

  /** The header a replayed response carries (Stripe's name). */
  public static final String REPLAYED_HEADER = "Idempotent-Replayed";

  private String header = HEADER;
  private Set<String> methods = Set.of("POST", "PATCH");
  private boolean keyRequired;
  private Duration waitWhileInProgress = Duration.ZERO;
  private Set<String> storedHeaders = caseless(List.of("Content-Type", "Location"));
  private boolean storeServerErrors = true;
  private Duration lease = Duration.ofSeconds(30);
  private int maxBodyBytes = 1 << 20;
  private int maxKeyBytes = 255;

  private IdempotencyPolicy() {}

  /** POST and PATCH with a key; no key required; 409 while in progress; 5xx stored. */
  public static IdempotencyPolicy defaults() {
    return new IdempotencyPolicy();
  }

  public IdempotencyPolicy header(String name) {
    this.header = name;
    return this;
  }

  public IdempotencyPolicy methods(String... methods) {
    this.methods = Set.of(upper(methods));
    return this;
  }

  /** Requests of the policy's methods without a key get 400. */
  public IdempotencyPolicy keyRequired(boolean required) {
    this.keyRequired = required;
    return this;
  }

  /** A retry while the first request runs waits up to this for its response (zero: 409 at once). */
  public IdempotencyPolicy waitWhileInProgress(Duration wait) {
    this.waitWhileInProgress = wait;
    return this;
  }

  /** The response headers stored with the status and body, and so replayed. */
  public IdempotencyPolicy storedHeaders(String... names) {
    this.storedHeaders = caseless(List.of(names));
    return this;
  }

  public IdempotencyPolicy storeServerErrors(boolean store) {
    this.storeServerErrors = store;
    return this;
  }

  /** How long a request may run before a retry may take its key over: its longest time. */
  public IdempotencyPolicy lease(Duration lease) {
    this.lease = lease;
    return this;
  }

  /** Larger request bodies get 413 (the body is read whole, to fingerprint it). */
  public IdempotencyPolicy maxBodyBytes(int bytes) {
    this.maxBodyBytes = bytes;
    return this;
  }

  public String header() {
    return header;
  }

  public boolean keyRequired() {
    return keyRequired;
  }

  public Duration waitWhileInProgress() {
    return waitWhileInProgress;
  }

  public boolean storeServerErrors() {
    return storeServerErrors;
  }

  public Duration lease() {
    return lease;
  }

  public int maxBodyBytes() {
    return maxBodyBytes;
  }

  /** Whether requests of this method are made idempotent. */
  public boolean applies(String method) {
    return methods.contains(method.toUpperCase(Locale.ROOT));
  }

  /** Whether the response header is stored. */
  public boolean stores(String headerName) {
    return storedHeaders.contains(headerName);
  }

  /**
   * The key of a header's value: the draft's structured-field string (in double quotes) or a bare
   * token; null if there is no header; {@code ""} (bad) if it is empty, too long or not text.
   */
  public @Nullable String key(@Nullable String value) {
    if (value == null) {
      return null;
    }
    String v = value.strip();
    if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
      v = v.substring(1, v.length() - 1);
    }
    if (v.isEmpty()
        || v.length() > maxKeyBytes
        || !v.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
      return "";
    }
    return v;
  }

  private static Set<String> caseless(List<String> names) {
    Set<String> s = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    s.addAll(names);
    return s;
  }

  private static String[] upper(String[] methods) {
    String[] out = new String[methods.length];
    for (int i = 0; i < methods.length; i++) {
      out[i] = methods[i].toUpperCase(Locale.ROOT);
    }
    return out;
  }
}
