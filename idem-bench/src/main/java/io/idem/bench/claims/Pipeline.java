package io.idem.bench.claims;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Runs one {@link Job} per connection, all connections at once. On each connection one thread
 * writes commands while another reads their replies, so the server never waits for the client to
 * turn around; at most {@code maxInFlight} commands are unanswered, which bounds what either side
 * buffers.
 */
public final class Pipeline {
  /*
   * The writer flushes before it waits for the window: a command held in the writer's buffer
   * would otherwise never be answered, and the reader would never free a place. The reader takes
   * one "sent" permit per command before it reads a reply, and one more when the writer is done,
   * so it stops after exactly the last reply instead of blocking on a read that never ends.
   */

  /** One connection's share of a run. */
  public interface Job {
    /** Writes the next command; returns false, writing nothing, when there is none left. */
    boolean writeNext(RespWriter out) throws IOException;

    /** Handles the reply to the oldest command not yet answered. */
    void onReply(Resp reply) throws IOException;
  }

  private Pipeline() {}

  /** Runs {@code jobs[i]} on {@code connections[i]}; returns when every reply was handled. */
  public static void run(
      List<RespConnection> connections, List<? extends Job> jobs, int maxInFlight)
      throws IOException {
    if (connections.size() != jobs.size()) {
      throw new IllegalArgumentException("one job per connection");
    }
    List<Lane> lanes = new ArrayList<>();
    for (int i = 0; i < jobs.size(); i++) {
      lanes.add(new Lane(connections.get(i), jobs.get(i), maxInFlight));
    }
    for (Lane lane : lanes) {
      lane.start();
    }
    IOException failure = null;
    for (Lane lane : lanes) {
      IOException e = lane.join();
      if (e != null && failure == null) {
        failure = e;
        for (Lane other : lanes) {
          other.abort();
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static final class Lane {
    private final RespConnection connection;
    private final Job job;
    private final Semaphore window;
    private final Semaphore sent = new Semaphore(0);
    private volatile long total = -1;
    private volatile @Nullable Throwable failure;
    private final Thread writer;
    private final Thread reader;

    Lane(RespConnection connection, Job job, int maxInFlight) {
      this.connection = connection;
      this.job = job;
      this.window = new Semaphore(maxInFlight);
      this.writer = Thread.ofPlatform().name("write " + connection.name()).unstarted(this::write);
      this.reader = Thread.ofPlatform().name("read " + connection.name()).unstarted(this::read);
    }

    void start() {
      writer.start();
      reader.start();
    }

    private void write() {
      try {
        RespWriter out = connection.writer();
        long count = 0;
        while (true) {
          if (!window.tryAcquire()) {
            out.flush();
            while (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
              if (failure != null) {
                return;
              }
            }
          }
          if (!job.writeNext(out)) {
            break;
          }
          count++;
          sent.release();
        }
        out.flush();
        total = count;
        sent.release();
      } catch (Throwable t) {
        fail(t);
      }
    }

    private void read() {
      try {
        long received = 0;
        while (true) {
          while (!sent.tryAcquire(100, TimeUnit.MILLISECONDS)) {
            if (failure != null) {
              return;
            }
          }
          if (received == total) {
            return;
          }
          job.onReply(connection.read());
          received++;
          window.release();
        }
      } catch (Throwable t) {
        fail(t);
      }
    }

    private void fail(Throwable t) {
      if (failure == null) {
        failure = t;
      }
      abort();
    }

    /** Unblocks both threads: a closed socket fails any read or write in progress. */
    void abort() {
      if (failure == null) {
        failure = new IOException("stopped: another connection failed");
      }
      try {
        connection.close();
      } catch (IOException ignored) {
        // closing is best effort here; the first failure is what the run reports
      }
    }

    @Nullable IOException join() {
      try {
        writer.join();
        reader.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        abort();
        return new IOException("interrupted", e);
      }
      Throwable t = failure;
      if (t == null) {
        return null;
      }
      if (t instanceof IOException e) {
        return e;
      }
      return new IOException(connection.name() + ": " + t, t);
    }
  }
}
