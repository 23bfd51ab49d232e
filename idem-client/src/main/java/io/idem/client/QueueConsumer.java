package io.idem.client;

import io.idem.client.Queue.Job;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A queue's jobs as a {@link Flow.Publisher} of {@link Delivery}: a subscriber gets no more jobs
 * than it requested (each request reserves at most that many, so backpressure reaches the server:
 * unrequested jobs stay in the queue for other workers). While a delivery is neither acked nor
 * failed, its lease is extended at half its length, so a job that runs long is not handed to
 * another worker. Reactor ({@code JdkFlowAdapter}) and RxJava ({@code FlowAdapters}) adapt it.
 *
 * <p>{@link #process} is the usual worker: a handler run on {@code concurrency} threads, each job
 * acked when the handler returns and failed (retried after its backoff, or a dead letter) when it
 * throws.
 */
public final class QueueConsumer implements Flow.Publisher<QueueConsumer.Delivery> {

  private final IdemClient client;
  private final Queue queue;
  private final Duration lease;
  private final int batch;

  /** How long one blocked reserve waits before it asks again (below the command timeout). */
  private static final Duration BLOCK = Duration.ofSeconds(2);

  public QueueConsumer(IdemClient client, String queue, Duration lease, int batch) {
    if (batch < 1 || batch > 1000) {
      throw new IllegalArgumentException("batch is 1 to 1000");
    }
    if (lease.toMillis() < 100) {
      throw new IllegalArgumentException("a lease is at least 100 ms");
    }
    this.client = client;
    this.queue = client.queue(queue);
    this.lease = lease;
    this.batch = batch;
  }

  /**
   * A job handed to the subscriber: ack it, fail it or release it, once. If the job is cancelled
   * meanwhile (QUEUE.CANCEL), the keep-alive or a {@link #progress} learns it: the delivery is then
   * settled, {@link #cancelled} is true, and the {@link #onCancel} action runs.
   */
  public final class Delivery {
    private final Job job;
    private final Subscription owner;
    private final ScheduledFuture<?> keepAlive;
    private final AtomicBoolean settled = new AtomicBoolean();
    private volatile boolean cancelled;
    private volatile Runnable onCancel = () -> {};

    private Delivery(Job job, Subscription owner) {
      this.job = job;
      this.owner = owner;
      long every = Math.max(50, lease.toMillis() / 2);
      this.keepAlive =
          owner.timer.scheduleAtFixedRate(
              () -> {
                if (!settled.get()) {
                  queue.extendLeaseAsync(job, lease).thenAccept(this::learned);
                }
              },
              every,
              every,
              TimeUnit.MILLISECONDS);
    }

    public Job job() {
      return job;
    }

    /** Whether the job was cancelled while this worker held it. */
    public boolean cancelled() {
      return cancelled;
    }

    /** What to do when the job is found cancelled (at once if it was already). */
    public void onCancel(Runnable action) {
      onCancel = action;
      if (cancelled) {
        action.run();
      }
    }

    /** Reports progress (up to 4 KiB): held, lost, or cancelled (then settled, as above). */
    public Queue.LeaseState progress(byte[] value) {
      Queue.LeaseState state = queue.progress(job, value);
      learned(state);
      return state;
    }

    private void learned(Queue.LeaseState state) {
      if (state == Queue.LeaseState.CANCELLED && settle()) {
        cancelled = true;
        onCancel.run();
      }
    }

    /** The job is done. False if its lease was lost (another worker may run it again). */
    public boolean ack() {
      return settle() && queue.ack(job) == 1;
    }

    /** The job is done, with its result (kept while the queue keeps results). */
    public Queue.Completed complete(byte @Nullable [] result) {
      if (!settle()) {
        return cancelled ? Queue.Completed.CANCELLED : Queue.Completed.NOT_LEASED;
      }
      return queue.complete(job, result);
    }

    /** The job failed: retried after its backoff, or a dead letter after its last attempt. */
    public Queue.Failed fail(Throwable error) {
      if (!settle()) {
        return new Queue.Failed(Queue.FailOutcome.NOT_LEASED, null);
      }
      return queue.fail(job, String.valueOf(error));
    }

    /** Gives the job back, due now, its attempt not counted. False if its lease was lost. */
    public boolean release() {
      return settle() && queue.release(job, Duration.ZERO);
    }

    private boolean settle() {
      if (!settled.compareAndSet(false, true)) {
        return false;
      }
      keepAlive.cancel(false);
      owner.settled();
      return true;
    }
  }

  @Override
  public void subscribe(Flow.Subscriber<? super Delivery> subscriber) {
    Subscription s = new Subscription(subscriber);
    subscriber.onSubscribe(s);
    s.start();
  }

  private final class Subscription extends DemandSubscription<Delivery> {
    private final ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().name("idem-lease-keeper").daemon().unstarted(r));
    private Thread loop;

    /** Deliveries not settled yet: the lease keeper runs until the loop ended and these did. */
    private final AtomicInteger open = new AtomicInteger();

    private volatile boolean loopDone;

    Subscription(Flow.Subscriber<? super Delivery> subscriber) {
      super(subscriber);
    }

    void start() {
      loop = Thread.ofPlatform().name("idem-consumer-" + queue.key()).daemon().start(this::run);
    }

    /** Waits for the loop to end after a cancel: its blocked reserve returns within BLOCK. */
    void awaitStopped() throws InterruptedException {
      loop.join(BLOCK.toMillis() + 5_000);
    }

    private void run() {
      if (cancelled) {
        return;
      }
      try (StatefulRedisConnection<byte[], byte[]> own = client.newConnection()) {
        while (!cancelled) {
          long want = awaitDemand();
          if (want == 0) {
            continue;
          }
          int count = (int) Math.min(batch, want);
          List<Job> jobs = Queue.join(queue.reserve(own, count, lease, BLOCK));
          for (Job j : jobs) {
            demand.decrementAndGet();
            open.incrementAndGet();
            subscriber.onNext(new Delivery(j, this));
          }
        }
        subscriber.onComplete();
      } catch (RuntimeException | InterruptedException e) {
        if (!cancelled) {
          subscriber.onError(e);
        }
      } finally {
        loopDone = true;
        if (open.get() == 0) {
          timer.shutdownNow();
        }
      }
    }

    /** A delivery was settled: the last one after the loop ended stops the lease keeper. */
    void settled() {
      if (open.decrementAndGet() == 0 && loopDone) {
        timer.shutdownNow();
      }
    }
  }

  /**
   * Runs {@code handler} on each job, {@code concurrency} at a time: acked when it returns, failed
   * with what it threw (an Error too, then thrown on). A job cancelled while its handler runs
   * interrupts the handler's thread (learned at the next keep-alive, within half a lease). Returns
   * a handle whose {@code close} stops taking jobs and waits for the running ones, their leases
   * kept meanwhile.
   */
  public AutoCloseable process(int concurrency, Consumer<Job> handler) {
    ExecutorService workers = Executors.newFixedThreadPool(concurrency);
    Flow.Subscription[] sub = new Flow.Subscription[1];
    subscribe(
        new Flow.Subscriber<>() {
          @Override
          public void onSubscribe(Flow.Subscription s) {
            sub[0] = s;
            s.request(concurrency);
          }

          @Override
          public void onNext(Delivery d) {
            workers.execute(
                () -> {
                  // A cancel interrupts the handler, only while it runs this job.
                  Thread me = Thread.currentThread();
                  Object lock = new Object();
                  boolean[] running = {true};
                  d.onCancel(
                      () -> {
                        synchronized (lock) {
                          if (running[0]) {
                            me.interrupt();
                          }
                        }
                      });
                  try {
                    handler.accept(d.job());
                    d.ack();
                  } catch (Throwable e) {
                    d.fail(e);
                    if (e instanceof Error error) {
                      throw error;
                    }
                  } finally {
                    synchronized (lock) {
                      running[0] = false;
                      Thread.interrupted(); // a cancel's interrupt ends with its job
                    }
                    sub[0].request(1);
                  }
                });
          }

          @Override
          public void onError(Throwable t) {
            workers.shutdown();
          }

          @Override
          public void onComplete() {
            workers.shutdown();
          }
        });
    return () -> {
      sub[0].cancel();
      ((Subscription) sub[0]).awaitStopped(); // the client may be closed right after this
      workers.shutdown();
      workers.awaitTermination(1, TimeUnit.MINUTES);
    };
  }
}
