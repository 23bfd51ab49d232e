package io.idem.client;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.ArrayOutput;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.protocol.ProtocolVersion;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A typed client for an Idem server, on Lettuce: Java types in, Java types out ({@link Queue} for
 * the job queues). Thread-safe; one connection is shared by every call but the blocking ones (a
 * {@link QueueConsumer} opens its own). Close it when done.
 */
public final class IdemClient implements AutoCloseable {

  private final RedisClient lettuce;
  private final RedisURI uri;
  private final StatefulRedisConnection<byte[], byte[]> connection;

  private IdemClient(RedisClient lettuce, RedisURI uri) {
    this.lettuce = lettuce;
    this.uri = uri;
    this.connection = lettuce.connect(ByteArrayCodec.INSTANCE, uri);
  }

  /** Connects to {@code redis://host:port} (Lettuce's URI syntax: a password, TLS, a timeout). */
  public static IdemClient create(String uri) {
    RedisURI u = RedisURI.create(uri);
    RedisClient c = RedisClient.create();
    // RESP2: every reply this client reads is an array, a bulk string or an integer.
    c.setOptions(ClientOptions.builder().protocolVersion(ProtocolVersion.RESP2).build());
    try {
      return new IdemClient(c, u);
    } catch (RuntimeException e) {
      c.shutdown();
      throw e;
    }
  }

  /** The queue at {@code key}. */
  public Queue queue(String key) {
    return new Queue(this, key);
  }

  /**
   * The idempotency-key table at {@code key}; close it to close the connections its waiting begins
   * keep.
   */
  public IdempotencyKeys idempotencyKeys(String key) {
    return new IdempotencyKeys(this, key);
  }

  /**
   * The rate limiter at {@code key}: {@code count} requests every {@code period} (whole seconds),
   * with bursts of {@code maxBurst} more (CL.THROTTLE).
   */
  public RateLimiter rateLimiter(String key, long maxBurst, long count, Duration period) {
    return new RateLimiter(this, key, maxBurst, count, period);
  }

  /** The exact dedup table at {@code key}. */
  public Dedup dedup(String key) {
    return new Dedup(this, key);
  }

  /** The Bloom filter at {@code key}. */
  public Bloom bloom(String key) {
    return new Bloom(this, key);
  }

  /**
   * A seen-cache on the server at {@code key} (one a user): a Bloom filter for {@code capacity}
   * items at {@code rate}, dropped {@code ttl} after its last add. The cookie seen-cache's
   * interface, so an application can keep either by configuration.
   */
  public ServerSeenCache seenCache(String key, long capacity, double rate, Duration ttl) {
    return new ServerSeenCache(this, key, capacity, rate, ttl);
  }

  /** The windowed counter table at {@code key}. */
  public Counters counters(String key) {
    return new Counters(this, key);
  }

  public Sketches.Cuckoo cuckoo(String key) {
    return new Sketches.Cuckoo(this, Sketches.key(key));
  }

  public Sketches.CountMin countMin(String key) {
    return new Sketches.CountMin(this, Sketches.key(key));
  }

  public Sketches.TopK topK(String key) {
    return new Sketches.TopK(this, Sketches.key(key));
  }

  public Sketches.TDigest tDigest(String key) {
    return new Sketches.TDigest(this, Sketches.key(key));
  }

  public Sketches.HyperLogLog hyperLogLog(String key) {
    return new Sketches.HyperLogLog(this, Sketches.key(key));
  }

  public Sketches.Distinct distinct(String key) {
    return new Sketches.Distinct(this, Sketches.key(key));
  }

  /** A connection of its own, for a consumer whose reserves block. */
  StatefulRedisConnection<byte[], byte[]> newConnection() {
    return lettuce.connect(ByteArrayCodec.INSTANCE, uri);
  }

  Duration commandTimeout() {
    return uri.getTimeout();
  }

  /** An Idem command by name. */
  record Keyword(String name, byte[] bytes) implements ProtocolKeyword {
    static Keyword of(String name) {
      return new Keyword(name, name.getBytes(StandardCharsets.US_ASCII));
    }

    @Override
    public byte[] getBytes() {
      return bytes;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** Sends a command on the shared connection; its reply as Lettuce reads an array's items. */
  CompletionStage<List<Object>> array(Keyword command, CommandArgs<byte[], byte[]> args) {
    return array(connection, command, args);
  }

  static CompletionStage<List<Object>> array(
      StatefulRedisConnection<byte[], byte[]> on,
      Keyword command,
      CommandArgs<byte[], byte[]> args) {
    return on.async().dispatch(command, new ArrayOutput<>(ByteArrayCodec.INSTANCE), args);
  }

  /** Sends a command whose reply is one value (an integer, a bulk string, nil). */
  <T> CompletionStage<T> single(
      Keyword command, CommandOutput<byte[], byte[], T> output, CommandArgs<byte[], byte[]> args) {
    return connection.async().dispatch(command, output, args);
  }

  static CommandArgs<byte[], byte[]> args() {
    return new CommandArgs<>(ByteArrayCodec.INSTANCE);
  }

  @Override
  public void close() {
    connection.close();
    lettuce.shutdown();
  }
}
