package io.idem.client;

import io.lettuce.core.protocol.CommandArgs;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * How a job is added: when it is due, its priority, its unique id, its attempts and backoff. An
 * immutable value: each method returns a new one.
 *
 * <pre>{@code
 * AddOptions.defaults().id("welcome:" + user).unique(Duration.ofDays(1))
 *     .attempts(5).exponentialBackoff(Duration.ofSeconds(1), Duration.ofMinutes(10))
 * }</pre>
 */
public record AddOptions(
    @Nullable Duration delay,
    @Nullable Instant at,
    int priority,
    @Nullable String id,
    @Nullable Duration unique,
    int attempts,
    @Nullable Duration backoff,
    boolean exponential,
    @Nullable Duration maxBackoff,
    @Nullable String group) {

  /** Due now, priority 0, no id, one attempt, no backoff. */
  public static AddOptions defaults() {
    return new AddOptions(null, null, 0, null, null, 1, null, false, null, null);
  }

  public AddOptions delay(Duration d) {
    return new AddOptions(
        d, null, priority, id, unique, attempts, backoff, exponential, maxBackoff, group);
  }

  public AddOptions at(Instant t) {
    return new AddOptions(
        null, t, priority, id, unique, attempts, backoff, exponential, maxBackoff, group);
  }

  public AddOptions priority(int p) {
    return new AddOptions(
        delay, at, p, id, unique, attempts, backoff, exponential, maxBackoff, group);
  }

  public AddOptions id(String jobId) {
    return new AddOptions(
        delay, at, priority, jobId, unique, attempts, backoff, exponential, maxBackoff, group);
  }

  /** With {@link #id}: the id stays taken this long after the job's ack. */
  public AddOptions unique(Duration window) {
    return new AddOptions(
        delay, at, priority, id, window, attempts, backoff, exponential, maxBackoff, group);
  }

  public AddOptions attempts(int n) {
    return new AddOptions(
        delay, at, priority, id, unique, n, backoff, exponential, maxBackoff, group);
  }

  public AddOptions fixedBackoff(Duration wait) {
    return new AddOptions(delay, at, priority, id, unique, attempts, wait, false, null, group);
  }

  public AddOptions exponentialBackoff(Duration first, Duration max) {
    return new AddOptions(delay, at, priority, id, unique, attempts, first, true, max, group);
  }

  /** Into a group (a tenant): groups share the queue fairly, by weight, each under its limits. */
  public AddOptions group(String name) {
    return new AddOptions(
        delay, at, priority, id, unique, attempts, backoff, exponential, maxBackoff, name);
  }

  void appendTo(CommandArgs<byte[], byte[]> args) {
    if (group != null) {
      args.add("GROUP").add(group);
    }
    if (delay != null) {
      args.add("DELAY").add(Queue.millis(delay) + "ms");
    }
    if (at != null) {
      args.add("AT").add(at.toEpochMilli());
    }
    if (priority != 0) {
      args.add("PRIORITY").add(priority);
    }
    if (id != null) {
      args.add("ID").add(id);
      if (unique != null) {
        args.add("UNIQUE").add(Queue.millis(unique) + "ms");
      }
    }
    if (attempts != 1) {
      args.add("ATTEMPTS").add(attempts);
    }
    if (backoff != null) {
      args.add("BACKOFF")
          .add(exponential ? "EXPONENTIAL" : "FIXED")
          .add(Queue.millis(backoff) + "ms");
      if (maxBackoff != null) {
        args.add("MAX").add(Queue.millis(maxBackoff) + "ms");
      }
    }
  }
}
