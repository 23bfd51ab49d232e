package io.idem.bench.counters;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * An open-loop run: queries sent on a fixed schedule, whatever the replies do, over several
 * connections; each connection's replies read by their own thread. A query's latency runs from the
 * moment the schedule said to send it, so a stall counts for every query it delayed (no coordinated
 * omission). The schedule waits by parking, not spinning, so the client leaves the cores to the
 * server; a send it makes late counts against the server. A side that cannot keep up is not waited
 * for: a connection holds back while {@link #MAX_IN_FLIGHT} queries are unanswered (their wait
 * still counts, from the schedule) and sends nothing after the schedule's end, so the achieved rate
 * shows it.
 */
public final class RateRun {

  /**
   * Latencies in microseconds, from the schedule and from the actual send, what was done, and the
   * CPU the client's sending and reading threads took: {user, system} nanoseconds each.
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

  /** Unanswered queries a connection allows. */
  static final int MAX_IN_FLIGHT = 2000;

  private static final long MAX_MICROS = 3_600_000_000L;

  public static Result run(
      String host,
      int port,
      List<byte[]> queries,
      int names,
      int leavesPerName,
      double rate,
      double seconds,
      int connections)
      throws IOException, InterruptedException {
    Histogram fromSchedule = new Histogram(MAX_MICROS, 3);
    Histogram fromSend = new Histogram(MAX_MICROS, 3);
    long intervalNanos = (long) (1e9 / rate);
    long start = System.nanoTime() + 50_000_000;
    long count = (long) (rate * seconds);
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
              count);
    }
    for (Lane l : lanes) {
      l.start();
    }
    long done = 0;
    long[] writers = new long[2];
    long[] readers = new long[2];
    for (Lane l : lanes) {
      l.join();
      fromSchedule.add(l.fromSchedule);
      fromSend.add(l.fromSend);
      done += l.received;
      add(writers, l.writerCpu);
      add(readers, l.readerCpu);
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    return new Result(fromSchedule, fromSend, done, elapsed, writers, readers);
  }

  private static void add(long[] sum, long[] cpu) {
    sum[0] += cpu[0];
    sum[1] += cpu[1];
  }

  /** The calling thread's {user, system} CPU nanoseconds. */
  private static long[] ownCpu() {
    long user = THREADS.getCurrentThreadUserTime();
    return new long[] {user, THREADS.getCurrentThreadCpuTime() - user};
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
    final long[] scheduled;
    final long[] sentAt;
    final Semaphore sent = new Semaphore(0);
    final Histogram fromSchedule = new Histogram(MAX_MICROS, 3);
    final Histogram fromSend = new Histogram(MAX_MICROS, 3);
    volatile long received;
    volatile long sentCount;
    volatile boolean writerDone;
    volatile IOException failure;
    volatile long[] writerCpu = new long[2];
    volatile long[] readerCpu = new long[2];
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
        long count)
        throws IOException {
      this.socket = new Socket();
      socket.setTcpNoDelay(true);
      socket.connect(new InetSocketAddress(host, port), 5000);
      socket.setSoTimeout(30_000);
      this.queries = queries;
      this.names = names;
      this.leavesPerName = leavesPerName;
      this.start = start;
      this.interval = interval;
      this.index = index;
      this.stride = stride;
      this.total = (count - index + stride - 1) / stride;
      this.scheduled = new long[(int) total];
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
        for (int i = 0; i < total && failure == null; i++) {
          long target = start + ((long) i * stride + index) * interval;
          while (i - received > MAX_IN_FLIGHT && System.nanoTime() < end && failure == null) {
            LockSupport.parkNanos(100_000);
          }
          if (System.nanoTime() > end + 1_000_000_000L) {
            break; // past saturation: what was sent is answered, the rest never sent
          }
          long wait;
          while ((wait = target - System.nanoTime()) > 0) {
            LockSupport.parkNanos(wait);
          }
          out.write(queries.get((int) ((long) i * stride + index) % queries.size()));
          out.flush();
          scheduled[i] = target;
          sentAt[i] = System.nanoTime();
          sentCount = i + 1;
          sent.release();
        }
        writerDone = true;
      } catch (IOException e) {
        failure = e;
      } finally {
        writerCpu = ownCpu();
      }
    }

    private void read() {
      try {
        LeanReply in = new LeanReply(socket.getInputStream());
        long[] sums = new long[names];
        for (int i = 0; i < total; i++) {
          while (!sent.tryAcquire(100, TimeUnit.MILLISECONDS)) {
            if (failure != null || (writerDone && i >= sentCount)) {
              return;
            }
          }
          int leaves = in.read(sums, leavesPerName);
          long now = System.nanoTime();
          if (leaves != names * leavesPerName) {
            throw new IOException("a reply of " + leaves + " values, not " + names * leavesPerName);
          }
          fromSchedule.recordValue(Math.min(MAX_MICROS, Math.max(0, now - scheduled[i]) / 1000));
          fromSend.recordValue(Math.min(MAX_MICROS, Math.max(0, now - sentAt[i]) / 1000));
          received = i + 1;
        }
      } catch (IOException e) {
        failure = e;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        readerCpu = ownCpu();
      }
    }
  }
}
