package io.idem.client;

import io.idem.client.IdemClient.Keyword;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * One job queue of the server (docs/commands/queue.md), typed: payloads are bytes, times are {@link
 * Duration}s and {@link Instant}s, outcomes are enums. Every call has a blocking form and an
 * asynchronous one ({@code …Async}, a {@link CompletionStage}).
 */
public final class Queue {

  private static final Keyword ADD = Keyword.of("QUEUE.ADD");
  private static final Keyword RESERVE = Keyword.of("QUEUE.RESERVE");
  private static final Keyword ACK = Keyword.of("QUEUE.ACK");
  private static final Keyword FAIL = Keyword.of("QUEUE.FAIL");
  private static final Keyword EXTEND = Keyword.of("QUEUE.EXTEND");
  private static final Keyword RELEASE = Keyword.of("QUEUE.RELEASE");
  private static final Keyword INFO = Keyword.of("QUEUE.INFO");
  private static final Keyword DEAD = Keyword.of("QUEUE.DEAD");
  private static final Keyword REPLAY = Keyword.of("QUEUE.REPLAY");

  private final IdemClient client;
  private final String key;
  private final byte[] keyBytes;

  Queue(IdemClient client, String key) {
    this.client = client;
    this.key = key;
    this.keyBytes = key.getBytes(StandardCharsets.UTF_8);
  }

  public String key() {
    return key;
  }

  /** Whether an add made a job, or found one holding its id. */
  public enum Outcome {
    NEW,
    DUPLICATE
  }

  /** Where a job is. */
  public enum State {
    WAITING,
    LEASED,
    DEAD,
    /** Acked, and its id still taken for its unique window. */
    DONE
  }

  /** What {@link #add} did: the job's id, and its state (for a duplicate, the holder's). */
  public record Added(Outcome outcome, String id, State state) {}

  /**
   * A job leased to this worker: {@code token} names this lease alone (acks, failures, extensions
   * and releases carry it), {@code attempt} counts from 1.
   */
  public record Job(String queue, byte[] id, byte[] payload, long token, int attempt) {
    public String idText() {
      return new String(id, StandardCharsets.UTF_8);
    }
  }

  /** What {@link #fail} did. */
  public enum FailOutcome {
    /** Due again at {@link Failed#retryAt}. */
    RETRY,
    /** That was its last attempt: a dead letter now. */
    DEAD,
    /** This lease did not hold the job (it expired, and the job went on). */
    NOT_LEASED
  }

  /** The outcome of a failure, and when a retried job is due. */
  public record Failed(FailOutcome outcome, @Nullable Instant retryAt) {}

  /** The jobs of the queue by state, as of the call. */
  public record Info(long ready, long delayed, long leased, long dead) {}

  /** A dead letter and its errors, oldest first. */
  public record DeadJob(String id, byte[] payload, int attempts, List<String> errors) {}

  // ---- add

  /** Adds a job due now, one attempt. */
  public Added add(byte[] payload) {
    return join(addAsync(payload, AddOptions.defaults()));
  }

  public Added add(byte[] payload, AddOptions options) {
    return join(addAsync(payload, options));
  }

  public CompletionStage<Added> addAsync(byte[] payload, AddOptions options) {
    CommandArgs<byte[], byte[]> args = IdemClient.args().addKey(keyBytes).add(payload);
    options.appendTo(args);
    return client
        .array(ADD, args)
        .thenApply(
            r ->
                new Added(
                    Outcome.valueOf(text(r.get(0)).toUpperCase(Locale.ROOT)),
                    text(r.get(1)),
                    State.valueOf(text(r.get(2)).toUpperCase(Locale.ROOT))));
  }

  // ---- reserve

  /** Leases up to {@code count} due jobs for {@code lease}; none if nothing is due. */
  public List<Job> reserve(int count, Duration lease) {
    return join(reserveAsync(count, lease, null));
  }

  /**
   * As {@link #reserve(int, Duration)}, waiting up to {@code block} for a job (off the server's
   * event loop). Blocks this client's shared connection meanwhile: a consumer uses its own.
   */
  public CompletionStage<List<Job>> reserveAsync(
      int count, Duration lease, @Nullable Duration block) {
    return reserve(null, count, lease, block);
  }

  CompletionStage<List<Job>> reserve(
      @Nullable StatefulRedisConnection<byte[], byte[]> on,
      int count,
      Duration lease,
      @Nullable Duration block) {
    CommandArgs<byte[], byte[]> args =
        IdemClient.args()
            .addKey(keyBytes)
            .add("COUNT")
            .add(count)
            .add("LEASE")
            .add(millis(lease) + "ms");
    if (block != null) {
      args.add("BLOCK").add(millis(block) + "ms");
    }
    CompletionStage<List<Object>> reply =
        on == null ? client.array(RESERVE, args) : IdemClient.array(on, RESERVE, args);
    return reply.thenApply(this::jobs);
  }

  private List<Job> jobs(@Nullable List<Object> reply) {
    List<Job> out = new ArrayList<>();
    if (reply == null) {
      return out; // a BLOCK that ran out
    }
    for (Object o : reply) {
      if (o instanceof List<?> f && f.size() == 4) {
        out.add(
            new Job(
                key,
                (byte[]) f.get(0),
                (byte[]) f.get(1),
                (Long) f.get(2),
                ((Long) f.get(3)).intValue()));
      }
    }
    return out;
  }

  // ---- ack, fail, extend, release

  /** The jobs are done; how many were (0 for a job whose lease this worker lost). */
  public int ack(Job... jobs) {
    return join(ackAsync(List.of(jobs)));
  }

  public CompletionStage<Integer> ackAsync(List<Job> jobs) {
    CommandArgs<byte[], byte[]> args = IdemClient.args().addKey(keyBytes);
    for (Job j : jobs) {
      args.add(j.id()).add(j.token());
    }
    return client
        .single(ACK, new IntegerOutput<>(ByteArrayCodec.INSTANCE), args)
        .thenApply(Long::intValue);
  }

  /** The job failed with {@code error}: retried after its backoff, or a dead letter. */
  public Failed fail(Job job, String error) {
    return join(failAsync(job, error));
  }

  public CompletionStage<Failed> failAsync(Job job, String error) {
    CommandArgs<byte[], byte[]> args =
        IdemClient.args().addKey(keyBytes).add(job.id()).add(job.token()).add(error);
    return client
        .array(FAIL, args)
        .thenApply(
            r -> {
              if (r == null || r.isEmpty() || r.get(0) == null) {
                return new Failed(FailOutcome.NOT_LEASED, null);
              }
              if (text(r.get(0)).equals("dead")) {
                return new Failed(FailOutcome.DEAD, null);
              }
              return new Failed(FailOutcome.RETRY, Instant.ofEpochMilli((Long) r.get(1)));
            });
  }

  /** The job's lease now ends {@code lease} from now; false if this lease no longer holds it. */
  public boolean extend(Job job, Duration lease) {
    return join(extendAsync(job, lease));
  }

  public CompletionStage<Boolean> extendAsync(Job job, Duration lease) {
    CommandArgs<byte[], byte[]> args =
        IdemClient.args().addKey(keyBytes).add(job.id()).add(job.token()).add(millis(lease) + "ms");
    return client
        .single(EXTEND, new IntegerOutput<>(ByteArrayCodec.INSTANCE), args)
        .thenApply(n -> n == 1);
  }

  /** Gives the job back, due after {@code delay}, without counting the attempt. */
  public boolean release(Job job, Duration delay) {
    CommandArgs<byte[], byte[]> args =
        IdemClient.args()
            .addKey(keyBytes)
            .add(job.id())
            .add(job.token())
            .add("DELAY")
            .add(millis(delay) + "ms");
    return join(
        client
            .single(RELEASE, new IntegerOutput<>(ByteArrayCodec.INSTANCE), args)
            .thenApply(n -> n == 1));
  }

  // ---- watching

  public Info info() {
    List<Object> r = join(client.array(INFO, IdemClient.args().addKey(keyBytes)));
    return new Info((Long) r.get(1), (Long) r.get(3), (Long) r.get(5), (Long) r.get(7));
  }

  /** The dead letters, oldest first, at most {@code count}. */
  public List<DeadJob> dead(int count) {
    List<Object> r =
        join(client.array(DEAD, IdemClient.args().addKey(keyBytes).add("COUNT").add(count)));
    List<DeadJob> out = new ArrayList<>();
    for (Object o : r) {
      List<?> f = (List<?>) o;
      List<String> errors = new ArrayList<>();
      for (Object e : (List<?>) f.get(3)) {
        errors.add(text(e));
      }
      out.add(new DeadJob(text(f.get(0)), (byte[]) f.get(1), ((Long) f.get(2)).intValue(), errors));
    }
    return out;
  }

  /** Makes every dead letter due now; how many. */
  public int replayAll() {
    return join(client.single(
            REPLAY,
            new IntegerOutput<>(ByteArrayCodec.INSTANCE),
            IdemClient.args().addKey(keyBytes).add("ALL")))
        .intValue();
  }

  static long millis(Duration d) {
    return Math.max(1, d.toMillis());
  }

  static String text(Object bytes) {
    return new String((byte[]) bytes, StandardCharsets.UTF_8);
  }

  /** Waits for a call; a server error is thrown as the {@link IdemException} it is. */
  static <T> T join(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().join();
    } catch (CompletionException e) {
      throw IdemException.of(e.getCause() == null ? e : e.getCause());
    }
  }
}
