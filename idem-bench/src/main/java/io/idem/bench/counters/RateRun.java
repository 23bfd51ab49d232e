package io.idem.bench.counters;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * An open-loop run: queries sent on a fixed schedule, whatever the replies do, over several
 * connections; each connection's replies read by their own thread, which waits on its socket alone
 * (not on the sender as well: that cost a thread wake-up a query). A query's latency runs from the
 * moment the schedule said to send it, so a stall counts for every query it delayed (no coordinated
 * omission). The schedule waits by parking, not spinning, so the client leaves the cores to the
 * server; a send it makes late counts against the server. A side that cannot keep up is not waited
 * for: a connection holds back while {@link #MAX_IN_FLIGHT} queries are unanswered (their wait
 * still counts, from the schedule), skips the warm-up queries it has not sent when the measured
 * part begins, and sends nothing once a second past the schedule's end, so the achieved rate shows
 * it.
 */
public final class RateRun {

  /**
   * Latencies in microseconds, from the schedule and from just before the send, of the queries
   * after the settling time; the queries answered since the measured part began and its seconds,
   * settling time included; and the CPU the client's sending and reading threads took over the same
   * part: {user, system} nanoseconds each, then the nanoseconds they waited runnable for a core and
   * the times they ran (schedstat).
   */
  public record Result(
      Histogram fromSchedule,
      Histogram fromSend,
      long queries,
      double seconds,
      long[] writersCpu,
      long[] readersCpu) {}

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private RateRun() {}

  /** Unanswered queries a connection allows, unless told otherwise. */
  public static final int MAX_IN_FLIGHT = 2000;

  private static final long MAX_MICROS = 3_600_000_000L;

  /**
   * Sends queries at {@code rate} a second for {@code warmup} seconds, then for {@code settle} and
   * {@code seconds} more, on the same connections and threads, and measures only the part after the
   * warm-up: a warm-up on connections of its own would end by closing them, and code the JIT
   * compiled for them (the client's loops, the server's write path) is thrown away when a path it
   * never saw is taken. Latencies are recorded only after the settling time: the readings taken
   * when the measured part begins cost milliseconds of a core (a server's per-thread counters are a
   * hundred files), and queries delayed by them would be charged to the server; a quarter of a
   * run's queries over 1 ms came in its first 100 ms when latencies were recorded from there.
   *
   * @param atMeasureStart run by the calling thread when the measured part begins (CPU readings)
   * @param settle seconds after the measured part begins whose latencies are not recorded
   * @param maxInFlight unanswered queries a connection allows ({@link #MAX_IN_FLIGHT})
   */
  public static Result run(
      String host,
      int port,
      List<byte[]> queries,
      int names,
      int leavesPerName,
      double rate,
      double warmup,
      double settle,
      double seconds,
      int connections,
      Runnable atMeasureStart,
      int maxInFlight)
      throws IOException, InterruptedException {
    Histogram fromSchedule = new Histogram(MAX_MICROS, 3);
    Histogram fromSend = new Histogram(MAX_MICROS, 3);
    long intervalNanos = (long) (1e9 / rate);
    long start = System.nanoTime() + 50_000_000;
    long warm = (long) (rate * warmup);
    long settled = warm + (long) (rate * settle);
    long count = settled + (long) (rate * seconds);
    Lane[] lanes = new Lane[connections];
    for (int c = 0; c < connections; c++) {
      lanes[c] =
          new Lane(
              host,
              port,
              queries,
              names,
              leavesPerName,
              start,
              intervalNanos,
              c,
              connections,
              count,
              warm,
              settled,
              maxInFlight);
    }
    for (Lane l : lanes) {
      l.start();
    }
    long measureStart = start + warm * intervalNanos;
    long wait;
    while ((wait = measureStart - System.nanoTime()) > 0) {
      Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
    }
    atMeasureStart.run();
    long done = 0;
    long[] writers = new long[4];
    long[] readers = new long[4];
    for (Lane l : lanes) {
      l.join();
      fromSchedule.add(l.fromSchedule);
      fromSend.add(l.fromSend);
      done += l.measured;
      add(writers, since(l.writerCpuWarm, l.writerCpu));
      add(readers, since(l.readerCpuWarm, l.readerCpu));
    }
    double elapsed = (System.nanoTime() - measureStart) / 1e9;
    return new Result(fromSchedule, fromSend, done, elapsed, writers, readers);
  }

  private static long[] since(long[] before, long[] after) {
    long[] d = new long[after.length];
    for (int i = 0; i < d.length; i++) {
      d[i] = after[i] - before[i];
    }
    return d;
  }

  private static void add(long[] sum, long[] cpu) {
    for (int i = 0; i < sum.length; i++) {
      sum[i] += cpu[i];
    }
  }

  /**
   * The calling thread's {user, system} CPU nanoseconds, its run-queue wait in nanoseconds and the
   * times it ran (0 and 0 off Linux).
   */
  private static long[] ownCpu() {
    long user = THREADS.getCurrentThreadUserTime();
    long[] sched;
    try {
      sched =
          io.idem.bench.ProcStat.schedstat(java.nio.file.Path.of("/proc/thread-self/schedstat"));
    } catch (IOException | RuntimeException e) {
      sched = new long[2];
    }
    return new long[] {user, THREADS.getCurrentThreadCpuTime() - user, sched[0], sched[1]};
  }

  private static final class Lane {
    final Socket socket;
    final List<byte[]> queries;
    final int names;
    final int leavesPerName;
    final long start;
    final long interval;
    final int index;
    final int stride;
    final long total;

    /** The lane's first query of the measured part: those before it are the warm-up. */
    final long firstMeasured;

    /** The lane's first query whose latency is recorded: those before it are the settling time. */
    final long firstRecorded;

    final int maxInFlight;

    /**
     * The first warm-up query the writer skipped, -1 if none: a writer still behind in the warm-up
     * when the measured part begins (a side that cannot keep up) goes straight to it, so that the
     * measured part is measured, and the reader takes the reply after this one's predecessor as the
     * first measured query's.
     */
    volatile long skippedFrom = -1;

    final long[] sentAt;
    final Histogram fromSchedule = new Histogram(MAX_MICROS, 3);
    final Histogram fromSend = new Histogram(MAX_MICROS, 3);

    /**
     * The warm-up's latencies, recorded as the measured ones are and then dropped: a recording path
     * first taken when the measured part begins would be code the JIT compiled without it, and the
     * reader would stall there, deoptimized, on the measured part's first queries.
     */
    final Histogram warmSchedule = new Histogram(MAX_MICROS, 3);

    final Histogram warmSend = new Histogram(MAX_MICROS, 3);
    volatile long received;
    long measured; // the reader's, read after it ends
    volatile long sentCount;
    volatile boolean writerDone;
    volatile IOException failure;
    volatile long[] writerCpu = new long[4];
    volatile long[] readerCpu = new long[4];

    /** The threads' CPU when the measured part began for them (zero without a warm-up). */
    volatile long[] writerCpuWarm = new long[4];

    volatile long[] readerCpuWarm = new long[4];
    Thread writer;
    Thread reader;

    Lane(
        String host,
        int port,
        List<byte[]> queries,
        int names,
        int leavesPerName,
        long start,
        long interval,
        int index,
        int stride,
        long count,
        long warm,
        long settled,
        int maxInFlight)
        throws IOException {
      this.socket = new Socket();
      socket.setTcpNoDelay(true);
      socket.connect(new InetSocketAddress(host, port), 5000);
      // A reader waits on its socket before its query is sent: at least three gaps of its own.
      socket.setSoTimeout(
          (int) Math.min(Integer.MAX_VALUE, Math.max(30_000, 3 * stride * interval / 1_000_000)));
      this.maxInFlight = maxInFlight;
      this.queries = queries;
      this.names = names;
      this.leavesPerName = leavesPerName;
      this.start = start;
      this.interval = interval;
      this.index = index;
      this.stride = stride;
      this.total = (count - index + stride - 1) / stride;
      this.firstMeasured = (warm - index + stride - 1) / stride;
      this.firstRecorded = (settled - index + stride - 1) / stride;
      this.sentAt = new long[(int) total];
    }

    void start() {
      writer = Thread.ofPlatform().name("rate-write-" + index).start(this::write);
      reader = Thread.ofPlatform().name("rate-read-" + index).start(this::read);
    }

    void join() throws IOException, InterruptedException {
      writer.join();
      reader.join();
      socket.close();
      if (failure != null) {
        throw failure;
      }
    }

    private void write() {
      try {
        OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
        long end = start + total * stride * interval;
        long measureStart = scheduled(firstMeasured);
        for (int i = 0; i < total && failure == null; i++) {
          while (i - received > maxInFlight && System.nanoTime() < end && failure == null) {
            LockSupport.parkNanos(100_000);
          }
          if (System.nanoTime() > end + 1_000_000_000L) {
            break; // past saturation: what was sent is answered, the rest never sent
          }
          if (i < firstMeasured && System.nanoTime() >= measureStart) {
            skippedFrom = i; // published before the next send, whose reply the reader relabels
            i = (int) firstMeasured;
          }
          long target = scheduled(i);
          long wait;
          while ((wait = target - System.nanoTime()) > 0) {
            LockSupport.parkNanos(wait);
          }
          if (i == firstMeasured && i > 0) {
            writerCpuWarm = ownCpu();
          }
          // Stamped and counted before the send, as the reply may be read before the send returns.
          sentAt[i] = System.nanoTime();
          sentCount = i + 1;
          out.write(queries.get((int) ((long) i * stride + index) % queries.size()));
          out.flush();
        }
      } catch (IOException e) {
        if (failure == null) {
          failure = e; // else the reader's, the first
        }
      } finally {
        writerCpu = ownCpu();
        writerDone = true;
        releaseReader();
      }
    }

    /**
     * A reader blocked on a reply that will never come, as the writer stopped early (saturated or
     * failed), is woken by closing the input once it has read every reply it can expect: it no
     * longer waits on the writer query by query, which cost a thread wake-up a query.
     */
    private void releaseReader() {
      if (sentCount == total) {
        return; // every query sent: the reader ends on the last reply
      }
      // A side that stops answering fails the reader by its socket's timeout.
      while (received < sentCount && failure == null) {
        LockSupport.parkNanos(1_000_000);
      }
      try {
        socket.shutdownInput();
      } catch (IOException e) {
        // closed already: the reader has ended
      }
    }

    private long scheduled(long i) {
      return start + (i * stride + index) * interval;
    }

    private void read() {
      try {
        LeanReply in = new LeanReply(socket.getInputStream());
        long[] sums = new long[names];
        for (int i = 0; i < total; i++) {
          if (writerDone && i >= sentCount) {
            return; // the writer stopped early, and every reply it can expect is read
          }
          int leaves;
          try {
            leaves = in.read(sums, leavesPerName);
          } catch (IOException e) {
            if (writerDone && i >= sentCount) {
              return; // the input closed by releaseReader
            }
            throw e;
          }
          long now = System.nanoTime();
          // The writer's count, written before the send this replies to, is seen: and with it
          // a skip, written before that count (a count past i is the skip's send or i's own).
          while (sentCount <= i) {
            if (writerDone && sentCount <= i) {
              throw new IOException("a reply to no query sent");
            }
            Thread.onSpinWait();
          }
          if (i == skippedFrom) {
            i = (int) firstMeasured; // the writer skipped the rest of the warm-up: the next it sent
          }
          if (i == firstMeasured && i > 0) {
            readerCpuWarm = ownCpu();
          }
          if (leaves != names * leavesPerName) {
            throw new IOException("a reply of " + leaves + " values, not " + names * leavesPerName);
          }
          boolean recorded = i >= firstRecorded;
          (recorded ? fromSchedule : warmSchedule)
              .recordValue(Math.min(MAX_MICROS, Math.max(0, now - scheduled(i)) / 1000));
          (recorded ? fromSend : warmSend)
              .recordValue(Math.min(MAX_MICROS, Math.max(0, now - sentAt[i]) / 1000));
          measured += i >= firstMeasured ? 1 : 0;
          received = i + 1;
        }
      } catch (IOException e) {
        if (failure == null) {
          failure = e; // else the writer's, which closed the input
        }
      } finally {
        readerCpu = ownCpu();
      }
    }
  }
}
