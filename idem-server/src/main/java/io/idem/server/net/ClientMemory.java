package io.idem.server.net;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * All normal clients' buffers together, bounded by maxmemory-clients as Redis 7 bounds them: once
 * the query buffers of unfinished requests and the replies not yet sent pass the limit, the client
 * that holds the most is closed. Without it, a dozen connections each sending most of a large
 * argument and never finishing it took gigabytes, each within its own client-query-buffer-limit.
 *
 * <p>Query buffers are counted as they grow (from every event loop, hence the atomic total); output
 * buffers as each connection last measured them (on each reply and once a second).
 */
final class ClientMemory {

  private final AtomicLong queryBytes = new AtomicLong();

  /** All clients' unsent replies, as the last once-a-second check added them up. */
  private volatile long outputBytes;

  private final LongSupplier limit;
  private final Supplier<Iterable<Connection>> connections;

  /**
   * @param limit maxmemory-clients as set now; 0 is no limit
   * @param connections the open connections, for choosing which to close
   */
  ClientMemory(LongSupplier limit, Supplier<Iterable<Connection>> connections) {
    this.limit = limit;
    this.connections = connections;
  }

  /** The bytes of unfinished requests in every query buffer. */
  long queryBytes() {
    return queryBytes.get();
  }

  /**
   * A connection's query buffer grew or shrank by {@code delta}. Past the limit, closes the client
   * holding the most; false if that is {@code grower} itself, which the caller refuses.
   */
  boolean changed(Connection grower, long delta) {
    long query = queryBytes.addAndGet(delta);
    long max = limit.getAsLong();
    if (delta <= 0 || max == 0 || query + outputBytes <= max) {
      return true;
    }
    return evictLargest(grower) != grower;
  }

  /** Once a second: closes the client holding the most while all together pass the limit. */
  void check() {
    long sum = 0;
    for (Connection c : connections.get()) {
      sum += c.outputBytesMeasured();
    }
    outputBytes = sum;
    long max = limit.getAsLong();
    if (max > 0 && queryBytes.get() + sum > max) {
      evictLargest(null);
    }
  }

  /**
   * Closes the connection holding the most if the clients not already being closed still pass the
   * limit (a client chosen before may not have let go yet: it is not counted, nor chosen again).
   * Unless the one chosen is {@code caller}, who is told so by the result and closes itself. Null
   * if none was chosen.
   */
  private @Nullable Connection evictLargest(@Nullable Connection caller) {
    long max = limit.getAsLong();
    Connection largest = null;
    long most = -1;
    long live = 0;
    for (Connection c : connections.get()) {
      if (c.evicted()) {
        continue;
      }
      long bytes = c.memoryBytes();
      live += bytes;
      if (bytes > most) {
        largest = c;
        most = bytes;
      }
    }
    if (largest == null || live <= max) {
      return null;
    }
    largest.evict(most, max, largest == caller);
    return largest;
  }
}
