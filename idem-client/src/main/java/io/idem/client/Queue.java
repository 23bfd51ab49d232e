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
  private static final Keyword MADD = Keyword.of("QUEUE.MADD");
  private static final Keyword PAUSE = Keyword.of("QUEUE.PAUSE");
  private static final Keyword RESUME = Keyword.of("QUEUE.RESUME");
  private static final Keyword CANCEL = Keyword.of("QUEUE.CANCEL");
  private static final Keyword PROGRESS = Keyword.of("QUEUE.PROGRESS");
  private static final Keyword JOB = Keyword.of("QUEUE.JOB");
  private static final Keyword CONFIG = Keyword.of("QUEUE.CONFIG");
  private static final Keyword GROUP = Keyword.of("QUEUE.GROUP");
  private static final Keyword GROUPS = Keyword.of("QUEUE.GROUPS");
  private static final Keyword SCHEDULE = Keyword.of("QUEUE.SCHEDULE");
  private static final Keyword UNSCHEDULE = Keyword.of("QUEUE.UNSCHEDULE");
  private static final Keyword SCHEDULES = Keyword.of("QUEUE.SCHEDULES");
  private static final Keyword COMPLETE = Keyword.of("QUEUE.COMPLETE");
  private static final Keyword RESULT = Keyword.of("QUEUE.RESULT");
  private static final Keyword EVENTS = Keyword.of("QUEUE.EVENTS");
  private static final Keyword FLOW = Keyword.of("QUEUE.FLOW");
  private static final Keyword CHILDREN = Keyword.of("QUEUE.CHILDREN");

  /** One thing that happened to a job (QUEUE.EVENTS): its id counts up. */
  public record Event(long id, Instant time, String type, String jobId, byte[] detail) {}

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
    DONE,
    /** A flow's parent, waiting for its children to be done. */
    WAITING_CHILDREN
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
  public record Info(long ready, long delayed, long leased, long dead, boolean paused) {
    /** Counts of a queue that is not paused. */
    public Info(long ready, long delayed, long leased, long dead) {
      this(ready, delayed, leased, dead, false);
    }
  }

  /** What a flow's parent does when one of its children dies or is cancelled. */
  public enum OnChildFail {
    /** The parent becomes a dead letter, with the child's error. */
    FAIL,
    /** The parent waits until the child is replayed and done. */
    HOLD,
    /** The child counts as done, without a result. */
    IGNORE
  }

  /**
   * A flow to add with {@link #flow}: a root job and its children, each child's parent the root
   * unless it names an earlier job of the flow by its id (which that job's options must give).
   */
  public static final class FlowSpec {
    private record Step(
        byte[] payload,
        AddOptions options,
        @Nullable String parent,
        @Nullable OnChildFail onChildFail) {}

    private final List<Step> steps = new ArrayList<>();

    private FlowSpec() {}

    /** A flow whose root is this job, failing if a child fails. */
    public static FlowSpec root(byte[] payload, AddOptions options) {
      return root(payload, options, null);
    }

    /** A flow whose root is this job, doing {@code onChildFail} if a child fails (null: FAIL). */
    public static FlowSpec root(
        byte[] payload, AddOptions options, @Nullable OnChildFail onChildFail) {
      FlowSpec f = new FlowSpec();
      f.steps.add(new Step(payload, options, null, onChildFail));
      return f;
    }

    /** A child of the root. */
    public FlowSpec child(byte[] payload, AddOptions options) {
      return child(null, payload, options, null);
    }

    /**
     * A child of the earlier job with id {@code parent} (null: the root), itself doing {@code
     * onChildFail} when one of its own children fails (null: FAIL).
     */
    public FlowSpec child(
        @Nullable String parent,
        byte[] payload,
        AddOptions options,
        @Nullable OnChildFail onChildFail) {
      steps.add(new Step(payload, options, parent, onChildFail));
      return this;
    }

    void appendTo(CommandArgs<byte[], byte[]> args) {
      for (int i = 0; i < steps.size(); i++) {
        Step s = steps.get(i);
        if (i > 0) {
          args.add("CHILD");
        }
        args.add(s.payload());
        s.options().appendTo(args);
        if (s.parent() != null) {
          args.add("PARENT").add(s.parent());
        }
        if (s.onChildFail() != null) {
          args.add("ONCHILDFAIL").add(s.onChildFail().name());
        }
      }
    }
  }

  /**
   * A flow parent's child as {@link #children} shows it: {@code state} is {@link #job}'s while it
   * is in the queue, "done" once acked (with the result it was completed with, or null), "gone" if
   * it was cancelled or purged.
   */
  public record Child(String id, String state, byte @Nullable [] result) {}

  /** A job to add with {@link #addAll}: its payload and how it is added. */
  public record NewJob(byte[] payload, AddOptions options) {}

  /** Where a lease holder stands after a call on its job. */
  public enum LeaseState {
    /** The lease holds the job, and the call did what it asked. */
    HELD,
    /** The lease no longer holds it (it ended, or the job was acked): another may run it. */
    LOST,
    /** The job was cancelled: it is gone now, and the holder should stop working on it. */
    CANCELLED
  }

  /** What {@link #complete} did. */
  public enum Completed {
    DONE,
    /** The job was cancelled while leased: it is gone, and no result was kept. */
    CANCELLED,
    /** The lease of this token does not hold the job. */
    NOT_LEASED
  }

  /** A finished job's stored result ({@code value} null for an ack without one). */
  public record Result(Instant completed, int attempts, byte @Nullable [] value) {}

  /** What {@link #cancel} did to one job. */
  public enum Cancelled {
    /** It was waiting, delayed or dead: gone, its id free. */
    CANCELLED,
    /** It is leased: its holder is told at its next call (or its lease's end), then it is gone. */
    LEASED,
    /** No such job. */
    NOT_FOUND
  }

  /**
   * One job as {@link #job} shows it: {@code state} is ready, delayed, leased or dead; {@code
   * leaseUntil} is null unless leased; {@code cancelled} while a cancelled job's holder is still to
   * be told.
   */
  public record JobInfo(
      String state,
      byte[] payload,
      int priority,
      int attempts,
      int maxAttempts,
      Instant due,
      @Nullable Instant leaseUntil,
      byte @Nullable [] progress,
      List<String> errors,
      boolean cancelled,
      @Nullable String group) {}

  /**
   * A rate: {@code count} leases a {@code period} (whole seconds), evenly spaced (GCRA), with
   * bursts of {@code burst} more after a rest.
   */
  public record Rate(long count, Duration period, long burst) {
    public static Rate of(long count, Duration period) {
      return new Rate(count, period, 0);
    }

    public Rate burst(long n) {
      return new Rate(count, period, n);
    }

    void appendTo(CommandArgs<byte[], byte[]> args) {
      args.add(count).add(period.toSeconds() + "s").add("BURST").add(burst);
    }

    static @Nullable Rate parse(@Nullable Object reply) {
      if (!(reply instanceof List<?> r)) {
        return null;
      }
      return new Rate((Long) r.get(0), Duration.ofSeconds((Long) r.get(1)), (Long) r.get(2));
    }
  }

  /** What a schedule does about runs missed while the server was down. */
  public enum Missed {
    /** Run once, for the latest time missed. */
    ONE,
    /** Run every time missed, up to {@link Repeat#maxMissed} a firing. */
    ALL,
    /** Skip what was missed. */
    NONE
  }

  /**
   * When a schedule runs: every so long, or by a five-field cron expression in a time zone; what it
   * does about missed runs; and its bounds (null and 0: none).
   */
  public record Repeat(
      @Nullable Duration every,
      boolean align,
      @Nullable String cron,
      java.time.@Nullable ZoneId zone,
      Missed missed,
      int maxMissed,
      @Nullable Instant start,
      @Nullable Instant end,
      long limit) {

    /** Every {@code d}, the first run now (or at {@link #start}). */
    public static Repeat every(Duration d) {
      return new Repeat(d, false, null, null, Missed.ONE, 100, null, null, 0);
    }

    /** At the times a cron expression ({@code "0 9 * * 1-5"}) matches in {@code zone}. */
    public static Repeat cron(String expression, java.time.ZoneId zone) {
      return new Repeat(null, false, expression, zone, Missed.ONE, 100, null, null, 0);
    }

    /** Runs on multiples of the interval since the epoch (every hour on the hour). */
    public Repeat aligned() {
      return new Repeat(every, true, cron, zone, missed, maxMissed, start, end, limit);
    }

    public Repeat missed(Missed m) {
      return new Repeat(every, align, cron, zone, m, maxMissed, start, end, limit);
    }

    public Repeat missedAll(int max) {
      return new Repeat(every, align, cron, zone, Missed.ALL, max, start, end, limit);
    }

    public Repeat start(Instant t) {
      return new Repeat(every, align, cron, zone, missed, maxMissed, t, end, limit);
    }

    public Repeat end(Instant t) {
      return new Repeat(every, align, cron, zone, missed, maxMissed, start, t, limit);
    }

    public Repeat limit(long runs) {
      return new Repeat(every, align, cron, zone, missed, maxMissed, start, end, runs);
    }
  }

  /** A schedule as the server shows it: when it runs, its next run (null: none), its runs. */
  public record ScheduleInfo(
      String name, String when, @Nullable Instant next, boolean done, long runs) {}

  /**
   * A queue's limits: its own rate and concurrency (0: none), and what every group gets unless it
   * sets its own.
   */
  public record Limits(
      @Nullable Rate rate, int concurrency, @Nullable Rate groupRate, int groupConcurrency) {
    public static Limits none() {
      return new Limits(null, 0, null, 0);
    }
  }

  /**
   * A group's settings: its weight, and its own rate and concurrency, or the queue's defaults for
   * groups ({@link #defaults}), or none.
   */
  public record GroupSettings(
      int weight,
      @Nullable Rate rate,
      boolean defaultRate,
      int concurrency,
      boolean defaultConcurrency) {
    /** Weight 1, the queue's rate and concurrency for groups. */
    public static GroupSettings defaults() {
      return new GroupSettings(1, null, true, 0, true);
    }

    public GroupSettings weight(int w) {
      return new GroupSettings(w, rate, defaultRate, concurrency, defaultConcurrency);
    }

    /** Its own rate; null: none, whatever the queue's default for groups. */
    public GroupSettings rate(@Nullable Rate r) {
      return new GroupSettings(weight, r, false, concurrency, defaultConcurrency);
    }

    /** Its own concurrency limit; 0: none. */
    public GroupSettings concurrency(int n) {
      return new GroupSettings(weight, rate, defaultRate, n, false);
    }
  }

  /**
   * A group as the server shows it: its settings ({@code rate} and {@code concurrency} null when it
   * takes the queue's defaults for groups; a rate of none is {@code noRate}), whether paused, and
   * its jobs due, leased and in all.
   */
  public record GroupInfo(
      String name,
      int weight,
      boolean paused,
      @Nullable Rate rate,
      boolean noRate,
      @Nullable Integer concurrency,
      long ready,
      long leased,
      long jobs) {}

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
    return client.array(ADD, args).thenApply(Queue::added);
  }

  /**
   * Adds every job in one write, in order (QUEUE.MADD): one {@link Added} a job. At most 10,000
   * jobs; nothing is added if the server refuses the command.
   */
  public List<Added> addAll(List<NewJob> jobs) {
    return join(addAllAsync(jobs));
  }

  public CompletionStage<List<Added>> addAllAsync(List<NewJob> jobs) {
    CommandArgs<byte[], byte[]> args = IdemClient.args().addKey(keyBytes);
    for (NewJob j : jobs) {
      args.add("JOB").add(j.payload());
      j.options().appendTo(args);
    }
    return client
        .array(MADD, args)
        .thenApply(
            r -> {
              List<Added> out = new ArrayList<>(r.size());
              for (Object o : r) {
                out.add(added((List<?>) o));
              }
              return out;
            });
  }

  /**
   * Adds a flow in one write (QUEUE.FLOW): one {@link Added} a job, the root first; a job with
   * children is {@link State#WAITING_CHILDREN} until they are done. Every id must be new, else the
   * server refuses the whole flow (an {@link io.lettuce.core.RedisCommandExecutionException}).
   */
  public List<Added> flow(FlowSpec flow) {
    CommandArgs<byte[], byte[]> args = IdemClient.args().addKey(keyBytes);
    flow.appendTo(args);
    List<Object> r = join(client.array(FLOW, args));
    List<Added> out = new ArrayList<>(r.size());
    for (Object o : r) {
      out.add(added((List<?>) o));
    }
    return out;
  }

  /** A flow parent's children, in the order added; empty if the job is no flow's parent here. */
  public java.util.Optional<List<Child>> children(String parentId) {
    List<Object> r = join(client.array(CHILDREN, IdemClient.args().addKey(keyBytes).add(parentId)));
    if (r == null || r.isEmpty() || r.get(0) == null) {
      return java.util.Optional.empty(); // nil, as Lettuce reads it (a parent has a child)
    }
    List<Child> out = new ArrayList<>(r.size());
    for (Object o : r) {
      List<?> c = (List<?>) o;
      out.add(new Child(text(c.get(0)), text(c.get(1)), (byte[]) c.get(2)));
    }
    return java.util.Optional.of(out);
  }

  private static Added added(List<?> r) {
    return new Added(
        Outcome.valueOf(text(r.get(0)).toUpperCase(Locale.ROOT)),
        text(r.get(1)),
        State.valueOf(text(r.get(2)).toUpperCase(Locale.ROOT).replace('-', '_')));
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

  /** As {@link #extend}, telling a lost lease from a cancelled job. */
  public LeaseState extendLease(Job job, Duration lease) {
    return join(extendLeaseAsync(job, lease));
  }

  public CompletionStage<LeaseState> extendLeaseAsync(Job job, Duration lease) {
    CommandArgs<byte[], byte[]> args =
        IdemClient.args().addKey(keyBytes).add(job.id()).add(job.token()).add(millis(lease) + "ms");
    return client
        .single(EXTEND, new IntegerOutput<>(ByteArrayCodec.INSTANCE), args)
        .thenApply(Queue::leaseState);
  }

  /** Reports the job's progress (up to 4 KiB, shown by {@link #job}). */
  public LeaseState progress(Job job, byte[] value) {
    return join(progressAsync(job, value));
  }

  public CompletionStage<LeaseState> progressAsync(Job job, byte[] value) {
    CommandArgs<byte[], byte[]> args =
        IdemClient.args().addKey(keyBytes).add(job.id()).add(job.token()).add(value);
    return client
        .single(PROGRESS, new IntegerOutput<>(ByteArrayCodec.INSTANCE), args)
        .thenApply(Queue::leaseState);
  }

  private static LeaseState leaseState(Long n) {
    return n == 1 ? LeaseState.HELD : n == -1 ? LeaseState.CANCELLED : LeaseState.LOST;
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

  // ---- results

  /** Acks the job with its result, kept for the queue's retention ({@link #keepResults}). */
  public Completed complete(Job job, byte @Nullable [] result) {
    return join(completeAsync(job, result));
  }

  public CompletionStage<Completed> completeAsync(Job job, byte @Nullable [] result) {
    CommandArgs<byte[], byte[]> args =
        IdemClient.args().addKey(keyBytes).add(job.id()).add(job.token());
    if (result != null) {
      args.add("RESULT").add(result);
    }
    return client
        .single(
            COMPLETE, new io.lettuce.core.output.ByteArrayOutput<>(ByteArrayCodec.INSTANCE), args)
        .thenApply(
            r ->
                r == null
                    ? Completed.NOT_LEASED
                    : text(r).equals("done") ? Completed.DONE : Completed.CANCELLED);
  }

  /** Keeps finished jobs' results for {@code retention} (null: none from now on). */
  public void keepResults(@Nullable Duration retention) {
    join(
        client.array(
            CONFIG,
            IdemClient.args()
                .addKey(keyBytes)
                .add("RESULTS")
                .add(retention == null ? "OFF" : millis(retention) + "ms")));
  }

  /** A finished job's result, while it is kept. */
  public java.util.Optional<Result> result(String id) {
    List<Object> r = join(client.array(RESULT, IdemClient.args().addKey(keyBytes).add(id)));
    if (r == null || r.size() < 2) {
      return java.util.Optional.empty();
    }
    java.util.Map<String, Object> f = fields(r);
    return java.util.Optional.of(
        new Result(
            Instant.ofEpochMilli((Long) f.get("completed")),
            ((Long) f.get("attempts")).intValue(),
            (byte[]) f.get("result")));
  }

  // ---- events

  /**
   * The events after {@code afterId} (0: every one kept), at most {@code count}; with {@code
   * block}, waits that long for one. Blocks this client's shared connection meanwhile.
   */
  public List<Event> events(long afterId, int count, @Nullable Duration block) {
    return events(null, afterId, count, block);
  }

  /**
   * The events after {@code afterId}, as they come: a publisher whose subscription reads them on a
   * connection of its own, as many as requested, waiting for more when it has read all. A reader
   * that falls behind the ring gets onError (the events it missed are gone).
   */
  public java.util.concurrent.Flow.Publisher<Event> eventFeed(long afterId) {
    return new QueueEventFeed(client, this, afterId);
  }

  /** {@link #events} on {@code on}, or on the shared connection when null. */
  List<Event> events(
      io.lettuce.core.api.@Nullable StatefulRedisConnection<byte[], byte[]> on,
      long afterId,
      int count,
      @Nullable Duration block) {
    CommandArgs<byte[], byte[]> args =
        IdemClient.args().addKey(keyBytes).add("FROM").add(afterId).add("COUNT").add(count);
    if (block != null) {
      args.add("BLOCK").add(millis(block) + "ms");
    }
    List<Object> r =
        join(on == null ? client.array(EVENTS, args) : IdemClient.array(on, EVENTS, args));
    List<Event> out = new ArrayList<>();
    if (r == null) {
      return out;
    }
    for (Object o : r) {
      if (o instanceof List<?> f && f.size() == 5) {
        out.add(
            new Event(
                (Long) f.get(0),
                Instant.ofEpochMilli((Long) f.get(1)),
                text(f.get(2)),
                text(f.get(3)),
                (byte[]) f.get(4)));
      }
    }
    return out;
  }

  /** Keeps the last {@code capacity} events for {@link #events} (0: none). */
  public void keepEvents(int capacity) {
    join(
        client.array(
            CONFIG,
            IdemClient.args()
                .addKey(keyBytes)
                .add("EVENTS")
                .add(capacity == 0 ? "OFF" : Integer.toString(capacity))));
  }

  // ---- control

  /** Pauses the queue: it leases nothing until resumed. False if it was paused already. */
  public boolean pause() {
    return integer(PAUSE, IdemClient.args().addKey(keyBytes)) == 1;
  }

  /** Resumes a paused queue (blocked reserves wake). False if it was not paused. */
  public boolean resume() {
    return integer(RESUME, IdemClient.args().addKey(keyBytes)) == 1;
  }

  /** Cancels the jobs with these ids: what became of each, in order. */
  public List<Cancelled> cancel(String... ids) {
    CommandArgs<byte[], byte[]> args = IdemClient.args().addKey(keyBytes);
    for (String id : ids) {
      args.add(id);
    }
    List<Object> r = join(client.array(CANCEL, args));
    List<Cancelled> out = new ArrayList<>(r.size());
    for (Object o : r) {
      out.add(
          o == null
              ? Cancelled.NOT_FOUND
              : text(o).equals("leased") ? Cancelled.LEASED : Cancelled.CANCELLED);
    }
    return out;
  }

  private long integer(Keyword command, CommandArgs<byte[], byte[]> args) {
    return join(client.single(command, new IntegerOutput<>(ByteArrayCodec.INSTANCE), args));
  }

  // ---- watching

  public Info info() {
    List<Object> r = join(client.array(INFO, IdemClient.args().addKey(keyBytes)));
    boolean paused = r.size() > 9 && (Long) r.get(9) == 1;
    return new Info((Long) r.get(1), (Long) r.get(3), (Long) r.get(5), (Long) r.get(7), paused);
  }

  /** The job with this id as of now, or empty (acked, cancelled, purged or never added). */
  public java.util.Optional<JobInfo> job(String id) {
    List<Object> r = join(client.array(JOB, IdemClient.args().addKey(keyBytes).add(id)));
    if (r == null || r.size() < 2) {
      return java.util.Optional.empty(); // nil, as Lettuce reads it
    }
    java.util.Map<String, Object> f = fields(r);
    List<String> errors = new ArrayList<>();
    for (Object e : (List<?>) f.get("errors")) {
      errors.add(text(e));
    }
    Object until = f.get("lease-until");
    return java.util.Optional.of(
        new JobInfo(
            text(f.get("state")),
            (byte[]) f.get("payload"),
            ((Long) f.get("priority")).intValue(),
            ((Long) f.get("attempts")).intValue(),
            ((Long) f.get("max-attempts")).intValue(),
            Instant.ofEpochMilli((Long) f.get("due")),
            until == null ? null : Instant.ofEpochMilli((Long) until),
            (byte[]) f.get("progress"),
            errors,
            (Long) f.get("cancelled") == 1,
            f.get("group") == null ? null : text(f.get("group"))));
  }

  // ---- limits and groups

  /** The queue's limits. */
  public Limits limits() {
    return limits(join(client.array(CONFIG, IdemClient.args().addKey(keyBytes))));
  }

  /** Sets every limit of the queue to these (null and 0: none); the limits now. */
  public Limits configure(Limits l) {
    CommandArgs<byte[], byte[]> args = IdemClient.args().addKey(keyBytes);
    args.add("RATE");
    if (l.rate() == null) {
      args.add("OFF");
    } else {
      l.rate().appendTo(args);
    }
    args.add("CONCURRENCY").add(l.concurrency() == 0 ? "OFF" : Integer.toString(l.concurrency()));
    args.add("GROUP-RATE");
    if (l.groupRate() == null) {
      args.add("OFF");
    } else {
      l.groupRate().appendTo(args);
    }
    args.add("GROUP-CONCURRENCY")
        .add(l.groupConcurrency() == 0 ? "OFF" : Integer.toString(l.groupConcurrency()));
    return limits(join(client.array(CONFIG, args)));
  }

  private static Limits limits(List<Object> r) {
    java.util.Map<String, Object> f = fields(r);
    return new Limits(
        Rate.parse(f.get("rate")),
        ((Long) f.get("concurrency")).intValue(),
        Rate.parse(f.get("group-rate")),
        ((Long) f.get("group-concurrency")).intValue());
  }

  /** Sets a group's settings, all of them (made if new); the group now. */
  public GroupInfo group(String name, GroupSettings s) {
    CommandArgs<byte[], byte[]> args =
        IdemClient.args().addKey(keyBytes).add(name).add("RESET").add("WEIGHT").add(s.weight());
    args.add("RATE");
    if (s.defaultRate()) {
      args.add("DEFAULT");
    } else if (s.rate() == null) {
      args.add("OFF");
    } else {
      s.rate().appendTo(args);
    }
    args.add("CONCURRENCY")
        .add(
            s.defaultConcurrency()
                ? "DEFAULT"
                : s.concurrency() == 0 ? "OFF" : Integer.toString(s.concurrency()));
    return groupInfo(join(client.array(GROUP, args)));
  }

  /** The queue's groups (at most 10,000), in the order they were made. */
  public List<GroupInfo> groups() {
    List<Object> r =
        join(client.array(GROUPS, IdemClient.args().addKey(keyBytes).add("COUNT").add(10_000)));
    List<GroupInfo> out = new ArrayList<>(r.size());
    for (Object o : r) {
      out.add(groupInfo((List<?>) o));
    }
    return out;
  }

  private static GroupInfo groupInfo(List<?> r) {
    java.util.Map<String, Object> f = fields(r);
    Object rate = f.get("rate");
    Object conc = f.get("concurrency");
    boolean rateDefault = rate instanceof byte[];
    return new GroupInfo(
        text(f.get("name")),
        ((Long) f.get("weight")).intValue(),
        (Long) f.get("paused") == 1,
        Rate.parse(rate),
        rate == null,
        conc instanceof Long n ? Integer.valueOf(n.intValue()) : null,
        (Long) f.get("ready"),
        (Long) f.get("leased"),
        (Long) f.get("jobs"));
  }

  // ---- schedules

  /**
   * Defines a repeatable job (or replaces the one of that name): each run is a job of {@code
   * payload} added with {@code options} (no id, delay or time: its id is name:time, and it is due
   * at its time). True if the name was new.
   */
  public boolean schedule(String name, Repeat repeat, byte[] payload, AddOptions options) {
    CommandArgs<byte[], byte[]> args = IdemClient.args().addKey(keyBytes).add(name);
    if (repeat.every() != null) {
      args.add("EVERY").add(millis(repeat.every()) + "ms");
      if (repeat.align()) {
        args.add("ALIGN");
      }
    } else {
      args.add("CRON").add(repeat.cron()).add("TZ").add(repeat.zone().getId());
    }
    args.add(payload);
    options.appendTo(args);
    args.add("MISSED").add(repeat.missed().name());
    if (repeat.missed() == Missed.ALL) {
      args.add("MAX").add(repeat.maxMissed());
    }
    if (repeat.start() != null) {
      args.add("START").add(repeat.start().toEpochMilli());
    }
    if (repeat.end() != null) {
      args.add("END").add(repeat.end().toEpochMilli());
    }
    if (repeat.limit() > 0) {
      args.add("LIMIT").add(repeat.limit());
    }
    return text(join(
            client.single(
                SCHEDULE,
                new io.lettuce.core.output.ByteArrayOutput<>(ByteArrayCodec.INSTANCE),
                args)))
        .equals("new");
  }

  /** Removes a schedule (the jobs it added stay); false if there was none. */
  public boolean unschedule(String name) {
    return integer(UNSCHEDULE, IdemClient.args().addKey(keyBytes).add(name)) == 1;
  }

  /** The queue's schedules, by name. */
  public List<ScheduleInfo> schedules() {
    List<Object> r = join(client.array(SCHEDULES, IdemClient.args().addKey(keyBytes)));
    List<ScheduleInfo> out = new ArrayList<>(r.size());
    for (Object o : r) {
      java.util.Map<String, Object> f = fields((List<?>) o);
      Object next = f.get("next");
      out.add(
          new ScheduleInfo(
              text(f.get("name")),
              text(f.get("when")),
              next == null ? null : Instant.ofEpochMilli((Long) next),
              (Long) f.get("done") == 1,
              (Long) f.get("runs")));
    }
    return out;
  }

  /** Pauses one group: its jobs wait while the others go on. False if it was paused. */
  public boolean pause(String group) {
    return integer(PAUSE, IdemClient.args().addKey(keyBytes).add("GROUP").add(group)) == 1;
  }

  public boolean resume(String group) {
    return integer(RESUME, IdemClient.args().addKey(keyBytes).add("GROUP").add(group)) == 1;
  }

  /** A map reply (a flat list of keys and values) by key. */
  private static java.util.Map<String, Object> fields(List<?> r) {
    java.util.Map<String, Object> f = new java.util.HashMap<>();
    for (int i = 0; i + 1 < r.size(); i += 2) {
      f.put(text(r.get(i)), r.get(i + 1));
    }
    return f;
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
