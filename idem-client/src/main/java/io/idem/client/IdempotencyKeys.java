package io.idem.client;

import io.idem.client.IdemClient.Keyword;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * An idempotency-key table (IDEMKEY.*, docs/commands/idemkey.md): an API's requests begun once
 * under their keys, the first one's result stored and handed to every retry. {@link #run} wraps a
 * piece of work in it; {@link #begin}, {@link #complete} and {@link #abandon} are the commands.
 *
 * <p>A begin that waits for a key in progress holds its connection's later replies, so it is sent
 * on a connection of its own, taken from a small pool, never on the client's shared one.
 */
public final class IdempotencyKeys implements AutoCloseable {

  private static final Keyword RESERVE = Keyword.of("IDEMKEY.RESERVE");
  private static final Keyword BEGIN = Keyword.of("IDEMKEY.BEGIN");
  private static final Keyword COMPLETE = Keyword.of("IDEMKEY.COMPLETE");
  private static final Keyword ABANDON = Keyword.of("IDEMKEY.ABANDON");
  private static final Keyword GET = Keyword.of("IDEMKEY.GET");

  /** Idle connections kept for waiting begins; more are opened while more wait, then closed. */
  static final int IDLE_WAIT_CONNECTIONS = 8;

  private final IdemClient client;
  private final byte[] key;
  private final ConcurrentLinkedQueue<StatefulRedisConnection<byte[], byte[]>> idle =
      new ConcurrentLinkedQueue<>();
  private final AtomicInteger idleCount = new AtomicInteger();

  IdempotencyKeys(IdemClient client, String key) {
    this.client = client;
    this.key = key.getBytes(StandardCharsets.UTF_8);
  }

  /** What a begin found. */
  public sealed interface Begin {}

  /** The key is the caller's until its lease ends; complete or abandon it with this token. */
  public record Started(long token) implements Begin {}

  /** The key was completed with the same fingerprint: the stored result. */
  public record Done(byte[] result) implements Begin {}

  /** Another caller holds the key, with the same fingerprint; its lease has this left. */
  public record InProgress(Duration left) implements Begin {}

  /** The key was begun or completed with another fingerprint. */
  public record Mismatch() implements Begin {}

  /** How a result is stored: its bytes, and back. */
  public interface ResultCodec<T> {
    byte[] encode(T value);

    T decode(byte[] bytes);

    /** Bytes as they are. */
    static ResultCodec<byte[]> bytes() {
      return new ResultCodec<>() {
        @Override
        public byte[] encode(byte[] value) {
          return value;
        }

        @Override
        public byte[] decode(byte[] bytes) {
          return bytes;
        }
      };
    }

    /** Text as UTF-8. */
    static ResultCodec<String> utf8() {
      return new ResultCodec<>() {
        @Override
        public byte[] encode(String value) {
          return value.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] bytes) {
          return new String(bytes, StandardCharsets.UTF_8);
        }
      };
    }
  }

  /** A key another caller still holds (and {@link #run} was not told to wait, or waited enough). */
  public static final class KeyInProgressException extends IdemException {
    private final Duration left;

    KeyInProgressException(Duration left) {
      super("the idempotency key is in progress; its lease ends in " + left.toMillis() + " ms");
      this.left = left;
    }

    /** What the holder's lease has left: a client's Retry-After. */
    public Duration left() {
      return left;
    }
  }

  /** A key begun or completed with another fingerprint: a different request under the same key. */
  public static final class FingerprintMismatchException extends IdemException {
    FingerprintMismatchException() {
      super("the idempotency key was used with another request (its fingerprint differs)");
    }
  }

  /**
   * Makes the table: results kept at least {@code retention}; at most {@code maxResultBytes} each;
   * {@code lease} for a begin that gives none.
   */
  public void reserve(Duration retention, int maxResultBytes, Duration lease) {
    Queue.join(
        client.array(
            RESERVE,
            IdemClient.args()
                .addKey(key)
                .add(Queue.millis(retention) + "ms")
                .add("MAXRESULT")
                .add(maxResultBytes)
                .add("LEASE")
                .add(Queue.millis(lease) + "ms")));
  }

  /** Begins {@code id}, not waiting: see {@link Begin}. */
  public Begin begin(String id, byte[] fingerprint, Duration lease) {
    return Queue.join(
        client
            .array(BEGIN, beginArgs(id, fingerprint, lease, null))
            .thenApply(IdempotencyKeys::begun));
  }

  /**
   * Begins {@code id}; if another caller holds it, waits up to {@code wait} for its result (Done),
   * for it to be abandoned or its lease to end (Started: the caller takes over), else InProgress.
   */
  public Begin begin(String id, byte[] fingerprint, Duration lease, Duration wait) {
    StatefulRedisConnection<byte[], byte[]> c = borrow();
    boolean reusable = false;
    try {
      Begin b =
          Queue.join(
              IdemClient.array(c, BEGIN, beginArgs(id, fingerprint, lease, wait))
                  .thenApply(IdempotencyKeys::begun));
      reusable = true;
      return b;
    } finally {
      giveBack(c, reusable);
    }
  }

  private CommandArgs<byte[], byte[]> beginArgs(
      String id, byte[] fingerprint, Duration lease, @Nullable Duration wait) {
    CommandArgs<byte[], byte[]> args =
        IdemClient.args()
            .addKey(key)
            .add(id)
            .add("FINGERPRINT")
            .add(fingerprint)
            .add("LEASE")
            .add(Queue.millis(lease) + "ms");
    if (wait != null) {
      args.add("WAIT").add(Queue.millis(wait) + "ms");
    }
    return args;
  }

  private static Begin begun(List<Object> r) {
    String status = Queue.text(r.get(0));
    return switch (status) {
      case "started" -> new Started((Long) r.get(1));
      case "done" -> new Done((byte[]) r.get(1));
      case "in_progress" -> new InProgress(Duration.ofMillis((Long) r.get(1)));
      case "mismatch" -> new Mismatch();
      default -> throw new IdemException("IDEMKEY.BEGIN answered " + status);
    };
  }

  /** Stores the result of the key the token holds: false if it no longer holds it. */
  public boolean complete(String id, long token, byte[] result) {
    return Queue.join(
            client.single(
                COMPLETE,
                new IntegerOutput<>(ByteArrayCodec.INSTANCE),
                IdemClient.args().addKey(key).add(id).add(token).add(result)))
        == 1L;
  }

  /** Frees the key the token holds, so that the next begin starts it: false if it did not. */
  public boolean abandon(String id, long token) {
    return Queue.join(
            client.single(
                ABANDON,
                new IntegerOutput<>(ByteArrayCodec.INSTANCE),
                IdemClient.args().addKey(key).add(id).add(token)))
        == 1L;
  }

  /** The key's stored result, or null if it is not done (free, or in progress). */
  public byte @Nullable [] result(String id) {
    List<Object> r = Queue.join(client.array(GET, IdemClient.args().addKey(key).add(id)));
    if (r == null || r.isEmpty()) {
      return null;
    }
    for (int i = 0; i + 1 < r.size(); i += 2) {
      if ("result".equals(Queue.text(r.get(i)))) {
        return (byte[]) r.get(i + 1);
      }
    }
    return null;
  }

  /**
   * Runs {@code work} once for the key: the first caller runs it and stores its result; a retry
   * after that gets the stored result without running it; a retry while the first runs waits up to
   * {@code wait} for its result (zero: does not wait) and otherwise throws {@link
   * KeyInProgressException}. If the work throws, the key is abandoned (the next retry runs it) and
   * the exception goes on. A lease that ends before the work does lets another caller take the key
   * over and run the work again: give the lease the work's longest time.
   *
   * @throws FingerprintMismatchException if the key was used with another fingerprint
   */
  public <T> T run(
      String id,
      byte[] fingerprint,
      Duration lease,
      Duration wait,
      ResultCodec<T> codec,
      Callable<T> work)
      throws Exception {
    Begin b = begin(id, fingerprint, lease);
    if (b instanceof InProgress && !wait.isZero()) {
      b = begin(id, fingerprint, lease, wait);
    }
    return switch (b) {
      case Done d -> codec.decode(d.result());
      case Mismatch m -> throw new FingerprintMismatchException();
      case InProgress p -> throw new KeyInProgressException(p.left());
      case Started s -> {
        T value;
        try {
          value = work.call();
        } catch (Exception | Error e) {
          try {
            abandon(id, s.token());
          } catch (RuntimeException again) {
            e.addSuppressed(again);
          }
          throw e;
        }
        complete(id, s.token(), codec.encode(value));
        yield value;
      }
    };
  }

  private StatefulRedisConnection<byte[], byte[]> borrow() {
    StatefulRedisConnection<byte[], byte[]> c = idle.poll();
    if (c != null) {
      idleCount.decrementAndGet();
      return c;
    }
    return client.newConnection();
  }

  /** Back to the pool if it may serve again and the pool has room; else closed. */
  private void giveBack(StatefulRedisConnection<byte[], byte[]> c, boolean reusable) {
    if (reusable && c.isOpen() && idleCount.incrementAndGet() <= IDLE_WAIT_CONNECTIONS) {
      idle.offer(c);
      return;
    }
    if (reusable && c.isOpen()) {
      idleCount.decrementAndGet();
    }
    c.close();
  }

  /** Closes the connections kept for waiting begins. */
  @Override
  public void close() {
    for (StatefulRedisConnection<byte[], byte[]> c; (c = idle.poll()) != null; ) {
      idleCount.decrementAndGet();
      c.close();
    }
  }
}
