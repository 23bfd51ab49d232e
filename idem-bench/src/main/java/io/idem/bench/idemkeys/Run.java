package io.idem.bench.idemkeys;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayDeque;
import java.util.Arrays;
import org.HdrHistogram.Histogram;

/**
 * One side's run of a {@link Mix}: requests sent on their schedule (open loop: a request's latency
 * runs from when the schedule said to send it, so a stall counts for every request it delays), at
 * most {@code maxInFlight} at once, each driven by the side's {@link Design} until it has its
 * answer. A first request runs its work for {@code workMillis} then completes its key; every other
 * gets the first's result, which is checked byte for byte. Only requests after the warm-up are
 * counted.
 */
public final class Run implements Loop.Source {

  /**
   * The figures of a run's measured part. Latencies in microseconds: of first requests (their work
   * included), of the others (retries), split into those answered at once and those that found the
   * key in progress; and of the latter, from when the first's completion was acknowledged to their
   * answer (0 if before).
   */
  public record Result(
      Histogram firsts,
      Histogram duplicates,
      Histogram atOnce,
      Histogram waited,
      Histogram afterStored,
      long requests,
      double seconds,
      long commands,
      long polls,
      long waits,
      long workRunTwice,
      long clientCpuNanos) {

    public double perSecond() {
      return requests / seconds;
    }
  }

  /**
   * How a run sends: over {@code connections} shared connections, {@code rate} requests a second,
   * the first {@code warmupSeconds} of them not counted, a first request's work taking {@code
   * workMillis}, at most {@code maxInFlight} requests at once.
   */
  public record Plan(
      int connections, double rate, double warmupSeconds, double workMillis, int maxInFlight) {}

  /** A request in flight. */
  static final class Request {
    final int index;
    final int key;
    final long scheduled;
    final Loop.Conn conn;

    /** The design's own: Idem's token, or whether Redis's marker was set. */
    long token;

    boolean marked;

    /** Found the key in progress: polled or waited. */
    boolean waited;

    Request(int index, int key, long scheduled, Loop.Conn conn) {
      this.index = index;
      this.key = key;
      this.scheduled = scheduled;
      this.conn = conn;
    }
  }

  private static final long MAX_MICROS = 3_600_000_000L;

  final Loop loop;
  final Mix mix;
  private final Design design;
  private final Loop.Conn[] conns;
  private final ArrayDeque<Loop.Conn> idleWaitConns = new ArrayDeque<>();
  private final String host;
  private final int port;
  private final long start;
  private final double intervalNanos;
  private final long workNanos;
  private final int firstMeasured;
  private final int maxInFlight;
  private final Runnable atMeasureStart;
  private final byte[] starts;
  private final Histogram firsts = new Histogram(MAX_MICROS, 3);
  private final Histogram duplicates = new Histogram(MAX_MICROS, 3);
  private final Histogram atOnce = new Histogram(MAX_MICROS, 3);
  private final Histogram waited = new Histogram(MAX_MICROS, 3);
  private final Histogram afterStored = new Histogram(MAX_MICROS, 3);

  /** When each key's completion was acknowledged (System.nanoTime), 0 before. */
  private final long[] completedAt;

  private int next;
  private int inFlight;
  private long measureStart;
  private long measureEnd;
  private long commandsAtStart;
  private long cpuAtStart;
  private long polls;
  private long waits;
  private long measured;

  private Run(Design design, Mix mix, String host, int port, Plan plan, Runnable atMeasureStart)
      throws IOException {
    this.design = design;
    this.mix = mix;
    this.host = host;
    this.port = port;
    this.loop = new Loop();
    this.conns = new Loop.Conn[plan.connections()];
    for (int c = 0; c < conns.length; c++) {
      conns[c] = loop.open(host, port);
    }
    this.intervalNanos = 1e9 / plan.rate();
    this.workNanos = (long) (plan.workMillis() * 1e6);
    this.firstMeasured =
        (int) Math.min(mix.requests() - 1, Math.round(plan.rate() * plan.warmupSeconds()));
    this.maxInFlight = plan.maxInFlight();
    this.atMeasureStart = atMeasureStart;
    this.starts = new byte[mix.requests()];
    this.completedAt = new long[mix.requests()];
    this.start = System.nanoTime() + 20_000_000;
  }

  /** Sends the mix's requests through {@code design} as the plan says; the measured figures. */
  public static Result run(
      Design design, Mix mix, String host, int port, Plan plan, Runnable atMeasureStart)
      throws IOException {
    Run r = new Run(design, mix, host, port, plan, atMeasureStart);
    try (Loop loop = r.loop) {
      long scheduleNanos = (long) (mix.requests() * r.intervalNanos);
      loop.run(r, r.start + 2 * scheduleNanos + 120_000_000_000L);
    }
    long twice = 0;
    for (byte s : r.starts) {
      twice += s > 1 ? 1 : 0;
    }
    long cpu = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - r.cpuAtStart;
    return new Result(
        r.firsts,
        r.duplicates,
        r.atOnce,
        r.waited,
        r.afterStored,
        r.measured,
        (r.measureEnd - r.measureStart) / 1e9,
        r.loop.commands() - r.commandsAtStart,
        r.polls,
        r.waits,
        twice,
        cpu);
  }

  @Override
  public long tick(long now) throws IOException {
    while (next < mix.requests() && inFlight < maxInFlight) {
      long at = start + (long) (next * intervalNanos);
      if (at > now) {
        return at;
      }
      if (next == firstMeasured) {
        atMeasureStart.run();
        measureStart = System.nanoTime();
        commandsAtStart = loop.commands();
        cpuAtStart = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
      }
      Request r = new Request(next, mix.keyOf(next), at, conns[next % conns.length]);
      next++;
      inFlight++;
      design.begin(this, r);
    }
    return Long.MAX_VALUE; // all sent, or at the limit: a reply gives the next turn
  }

  @Override
  public boolean done() {
    return next == mix.requests() && inFlight == 0;
  }

  /** The request was given the key: its work runs, then {@code complete} is called. */
  void started(Request r, Runnable complete) {
    if (starts[r.key] < Byte.MAX_VALUE) {
      starts[r.key]++;
    }
    loop.at(System.nanoTime() + workNanos, complete);
  }

  /** The request has its answer: {@code result} (a duplicate's) or null (its own work's, done). */
  void finish(Request r, byte[] result) throws IOException {
    boolean first = result == null;
    if (!first && !Arrays.equals(result, mix.result(r.key))) {
      throw new IOException(design.label() + " answered request " + r.index + " another result");
    }
    inFlight--;
    long now = System.nanoTime();
    if (first) {
      completedAt[r.key] = now;
    }
    if (r.index >= firstMeasured) {
      long micros = micros(now - r.scheduled);
      (first ? firsts : duplicates).recordValue(micros);
      if (!first) {
        (r.waited ? waited : atOnce).recordValue(micros);
        if (r.waited) {
          long stored = completedAt[r.key];
          afterStored.recordValue(stored == 0 ? 0 : micros(now - stored));
        }
      }
      measured++;
      measureEnd = now;
    }
  }

  private static long micros(long nanos) {
    return Math.min(MAX_MICROS, Math.max(0, nanos) / 1000);
  }

  void polled(Request r) {
    r.waited = true;
    polls += r.index >= firstMeasured ? 1 : 0;
  }

  /** A connection of its own for a begin that waits (it holds its connection's later replies). */
  Loop.Conn waitConn(Request r) throws IOException {
    r.waited = true;
    waits += r.index >= firstMeasured ? 1 : 0;
    Loop.Conn c = idleWaitConns.poll();
    return c != null ? c : loop.open(host, port);
  }

  void releaseWaitConn(Loop.Conn c) {
    idleWaitConns.push(c);
  }
}
