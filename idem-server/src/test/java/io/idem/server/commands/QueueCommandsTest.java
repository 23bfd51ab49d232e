package io.idem.server.commands;

import static io.idem.server.commands.Harness.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.commands.CuckooCodecTest.Logged;
import io.idem.server.commands.CuckooCodecTest.Recording;
import io.idem.server.commands.queue.JobQueue;
import io.idem.server.commands.queue.QueueCodec;
import io.idem.server.reply.Replies;
import io.idem.server.reply.Reply;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** QUEUE.* through the dispatcher, at a clock the test moves, and their log's replay. */
class QueueCommandsTest {

  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final Harness h = new Harness(clock::get);

  private String show(String... words) {
    return h.show(words);
  }

  /** The token of each job's latest lease, by id, as QUEUE.RESERVE gave them. */
  private final java.util.Map<String, String> tokens = new java.util.HashMap<>();

  /** QUEUE.RESERVE's jobs as "id payload attempt" strings; their tokens go to {@link #tokens}. */
  private List<String> reserve(String... words) {
    List<String> out = new ArrayList<>();
    for (Reply job : ((Reply.Array) h.call(words)).items()) {
      List<Reply> f = ((Reply.Array) job).items();
      tokens.put(text(f.get(0)), Long.toString(((Reply.Int) f.get(2)).value()));
      out.add(text(f.get(0)) + " " + text(f.get(1)) + " " + ((Reply.Int) f.get(3)).value());
    }
    return out;
  }

  private String token(String id) {
    return tokens.get(id);
  }

  private static String text(Reply r) {
    return new String(((Reply.Bulk) r).bytes(), java.nio.charset.StandardCharsets.UTF_8);
  }

  /**
   * A job added without an id is numbered, and skips a number an explicit id holds (a job's, or a
   * unique job's window after its ack): two jobs never share an id.
   */
  @Test
  void anExplicitNumericId_isNeverAlsoAnAutomaticOne() {
    assertThat(show("QUEUE.ADD", "q", "x", "ID", "3")).isEqualTo("[\"new\", \"3\", \"waiting\"]");
    assertThat(show("QUEUE.ADD", "q", "x", "ID", "4", "UNIQUE", "1h"))
        .isEqualTo("[\"new\", \"4\", \"waiting\"]");
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "2")).containsExactly("3 x 1", "4 x 1");
    assertThat(show("QUEUE.ACK", "q", "4", token("4"))).isEqualTo("(integer) 1");
    // The next numbers are 3 (a job holds it) and 4 (its unique window does): skipped.
    List<String> auto = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      auto.add(text(((Reply.Array) h.call("QUEUE.ADD", "q", "auto")).items().get(1)));
    }
    assertThat(auto).containsExactly("5", "6");
    assertThat(show("QUEUE.JOB", "q", "3")).contains("\"payload\"=\"x\"");
  }

  @Test
  void jobsGoOutDueAndByPriority_leasedToOne_andAckedOnce() {
    assertThat(show("QUEUE.ADD", "q", "later", "DELAY", "10s")).contains("new").contains("1");
    show("QUEUE.ADD", "q", "low");
    show("QUEUE.ADD", "q", "urgent", "PRIORITY", "5");
    show("QUEUE.ADD", "q", "low-2");
    assertThat(show("QUEUE.INFO", "q"))
        .isEqualTo(
            "{\"ready\"=(integer) 3, \"delayed\"=(integer) 1, \"leased\"=(integer) 0,"
                + " \"dead\"=(integer) 0, \"paused\"=(integer) 0, \"groups\"=(integer) 0,"
                + " \"waiting-children\"=(integer) 0}");
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "10", "LEASE", "30s"))
        .containsExactly("3 urgent 1", "2 low 1", "4 low-2 1");
    assertThat(reserve("QUEUE.RESERVE", "q")).isEmpty(); // leased, and "later" is not due
    clock.addAndGet(10_000);
    assertThat(reserve("QUEUE.RESERVE", "q")).containsExactly("1 later 1");
    assertThat(show("QUEUE.ACK", "q", "3", token("3"))).isEqualTo("(integer) 1");
    assertThat(show("QUEUE.ACK", "q", "3", token("3"))).isEqualTo("(integer) 0"); // once
    assertThat(show("QUEUE.ACK", "q", "2", token("2"), "4", token("4"), "3", token("3")))
        .isEqualTo("(integer) 2");
    assertThat(show("QUEUE.ACK", "q", "1", token("1"), "5")).contains("wrong number of arguments");
    assertThat(show("QUEUE.RESERVE", "free")).isEqualTo("[]");
  }

  @Test
  void anExpiredLease_isDeliveredAgain_andTheFirstWorkersAckIsRefused() {
    show("QUEUE.ADD", "q", "job", "ATTEMPTS", "3");
    assertThat(reserve("QUEUE.RESERVE", "q", "LEASE", "5s")).containsExactly("1 job 1");
    String first = token("1");
    clock.addAndGet(4_000);
    assertThat(show("QUEUE.EXTEND", "q", "1", first, "5s")).isEqualTo("(integer) 1");
    clock.addAndGet(4_000);
    assertThat(reserve("QUEUE.RESERVE", "q")).isEmpty(); // extended to 9 s
    clock.addAndGet(1_000);
    assertThat(reserve("QUEUE.RESERVE", "q")).containsExactly("1 job 2");
    assertThat(token("1")).isNotEqualTo(first);
    assertThat(show("QUEUE.ACK", "q", "1", first)).isEqualTo("(integer) 0");
    assertThat(show("QUEUE.ACK", "q", "1", token("1"))).isEqualTo("(integer) 1");
  }

  @Test
  void failures_backOff_thenTheLastIsADeadLetter_replayedOrPurged() {
    show("QUEUE.ADD", "q", "job", "ID", "j", "ATTEMPTS", "2", "BACKOFF", "FIXED", "10s");
    reserve("QUEUE.RESERVE", "q");
    String retry = show("QUEUE.FAIL", "q", "j", token("j"), "timeout talking to the bank");
    long due = Long.parseLong(retry.replaceAll("(?s).*\\(integer\\) (\\d+).*", "$1"));
    // Ten seconds, less up to a fifth at random so that retries spread.
    assertThat(due - clock.get()).isBetween(8_000L, 10_000L);
    clock.set(due - 1);
    assertThat(reserve("QUEUE.RESERVE", "q")).isEmpty();
    clock.set(due);
    assertThat(reserve("QUEUE.RESERVE", "q")).containsExactly("j job 2");
    assertThat(show("QUEUE.FAIL", "q", "j", token("j"), "declined")).isEqualTo("[\"dead\", (nil)]");
    assertThat(show("QUEUE.DEAD", "q"))
        .isEqualTo(
            "[[\"j\", \"job\", (integer) 2, [\"timeout talking to the bank\","
                + " \"declined\"]]]");
    assertThat(show("QUEUE.FAIL", "q", "j", token("j"), "again")).isEqualTo("(nil)"); // dead
    assertThat(show("QUEUE.REPLAY", "q", "j")).isEqualTo("(integer) 1");
    assertThat(reserve("QUEUE.RESERVE", "q")).containsExactly("j job 1");
    show("QUEUE.FAIL", "q", "j", token("j"), "x");
    clock.addAndGet(60_000);
    reserve("QUEUE.RESERVE", "q");
    show("QUEUE.FAIL", "q", "j", token("j"), "y");
    assertThat(show("QUEUE.PURGE", "q")).isEqualTo("(integer) 1");
    assertThat(show("QUEUE.DEAD", "q")).isEqualTo("[]");
  }

  @Test
  void aUniqueId_answersWhichJobHoldsIt() {
    assertThat(show("QUEUE.ADD", "q", "charge", "ID", "order-7", "UNIQUE", "1h"))
        .isEqualTo("[\"new\", \"order-7\", \"waiting\"]");
    assertThat(show("QUEUE.ADD", "q", "charge", "ID", "order-7", "UNIQUE", "1h"))
        .isEqualTo("[\"duplicate\", \"order-7\", \"waiting\"]");
    reserve("QUEUE.RESERVE", "q");
    show("QUEUE.ACK", "q", "order-7", token("order-7"));
    assertThat(show("QUEUE.ADD", "q", "charge", "ID", "order-7", "UNIQUE", "1h"))
        .isEqualTo("[\"duplicate\", \"order-7\", \"done\"]");
    clock.addAndGet(3_600_000);
    assertThat(show("QUEUE.ADD", "q", "charge", "ID", "order-7")).startsWith("[\"new\"");
  }

  @Test
  void badArguments_areRefusedWithTheirReason() {
    assertThat(show("QUEUE.ADD", "q", "p", "DELAY", "soon")).contains("a duration is");
    assertThat(show("QUEUE.ADD", "q", "p", "UNIQUE", "1h")).contains("UNIQUE needs an ID");
    assertThat(show("QUEUE.ADD", "q", "p", "ATTEMPTS", "0")).contains("ATTEMPTS is");
    assertThat(show("QUEUE.ADD", "q", "p", "BACKOFF", "LINEAR", "1s")).contains("syntax error");
    assertThat(show("QUEUE.ADD", "q", "p", "PRIORITY")).contains("syntax error");
    assertThat(show("QUEUE.RESERVE", "q", "COUNT", "5000")).contains("COUNT is");
    assertThat(show("QUEUE.ACK", "nothing", "1", "1")).contains("no such queue");
    assertThat(show("QUEUE.ACK", "q", "1", "x")).contains("a lease token is");
    h.call("SET", "s", "x");
    h.call("BF.ADD", "bf", "x");
    assertThat(show("QUEUE.ADD", "bf", "p")).contains("WRONGTYPE");
    assertThat(show("TYPE", "q")).isEqualTo("none"); // nothing was made by the errors
    show("QUEUE.ADD", "q", "p");
    assertThat(show("TYPE", "q")).isEqualTo("queue");
  }

  /**
   * A random day of a queue's life under a moving clock: the value rebuilt from its recipe and
   * logged operations, or from a snapshot taken midway and the operations after it, is the live
   * one, byte for byte.
   */
  @Test
  void replayingTheLog_orASnapshotAndTheRest_givesTheLiveQueue() throws IOException {
    Recording journal = new Recording();
    h.engine.attach(journal);
    SplittableRandom rnd = new SplittableRandom(34);
    byte[] snapshot = null;
    int snapshotOps = 0;
    List<String[]> held = new ArrayList<>();
    for (int step = 0; step < 3000; step++) {
      clock.addAndGet(rnd.nextInt(500));
      int op = rnd.nextInt(14);
      if (op < 4) {
        List<String> add = new ArrayList<>(List.of("QUEUE.ADD", "q", "payload-" + step));
        if (rnd.nextBoolean()) {
          add.addAll(List.of("DELAY", rnd.nextInt(3000) + "ms"));
        }
        if (rnd.nextInt(3) == 0) {
          add.addAll(List.of("PRIORITY", Integer.toString(rnd.nextInt(3))));
        }
        if (rnd.nextInt(4) == 0) {
          add.addAll(List.of("ID", "u-" + rnd.nextInt(50), "UNIQUE", "5s"));
        }
        add.addAll(List.of("ATTEMPTS", "3", "BACKOFF", "EXPONENTIAL", "100ms", "MAX", "2s"));
        h.call(add.toArray(String[]::new));
      } else if (op < 7) {
        for (Reply job :
            ((Reply.Array) h.call("QUEUE.RESERVE", "q", "COUNT", "3", "LEASE", "1s")).items()) {
          List<Reply> f = ((Reply.Array) job).items();
          held.add(new String[] {text(f.get(0)), Long.toString(((Reply.Int) f.get(2)).value())});
        }
      } else if (op == 12) {
        h.call("QUEUE.PURGE", "q");
      } else if (op == 13) {
        h.call("QUEUE.REPLAY", "q", "ALL");
      } else if (!held.isEmpty()) {
        String[] j = held.remove(rnd.nextInt(held.size()));
        switch (op) {
          case 7, 8 -> h.call("QUEUE.ACK", "q", j[0], j[1]);
          case 9 -> h.call("QUEUE.FAIL", "q", j[0], j[1], "error at " + step);
          case 10 -> h.call("QUEUE.RELEASE", "q", j[0], j[1], "DELAY", "200ms");
          default -> h.call("QUEUE.EXTEND", "q", j[0], j[1], "2s");
        }
      }
      if (step % 1000 == 999) {
        h.call("QUEUE.REPLAY", "q", "ALL");
      }
      if (step == 1500) {
        snapshot = CuckooCodecTest.written(QueueCodec.INSTANCE, live());
        snapshotOps = journal.of(h, "q").ops().size();
      }
    }
    h.call("QUEUE.PURGE", "q");
    Logged logged = journal.of(h, "q");
    byte[] live = QueueReplay.check(live(), logged, snapshot, snapshotOps, clock.get());
  }

  /**
   * The review's scenario (finding 3): a reserve that leases nothing but ends a lease on its last
   * attempt changes the queue (the job is dead now); unlogged, a replay saw PURGE find no dead job
   * and the second add of the id answer duplicate, and the acknowledged job was gone.
   */
  @Test
  void anEmptyReserveThatEndsALease_isLogged_soAReplayKeepsTheJobAddedAfter() throws IOException {
    Recording journal = new Recording();
    h.engine.attach(journal);
    show("QUEUE.ADD", "q", "p", "ID", "x");
    assertThat(reserve("QUEUE.RESERVE", "q", "LEASE", "1s")).containsExactly("x p 1");
    clock.addAndGet(2_000);
    assertThat(reserve("QUEUE.RESERVE", "q")).isEmpty(); // x's lease ended: x is dead
    assertThat(show("QUEUE.PURGE", "q")).isEqualTo("(integer) 1");
    assertThat(show("QUEUE.ADD", "q", "p2", "ID", "x")).startsWith("[\"new\"");
    JobQueue replayed = journal.of(h, "q").replay(QueueCodec.INSTANCE);
    assertThat(CuckooCodecTest.written(QueueCodec.INSTANCE, replayed))
        .isEqualTo(CuckooCodecTest.written(QueueCodec.INSTANCE, live()));
    assertThat(reserve("QUEUE.RESERVE", "q")).containsExactly("x p2 1");
  }

  /** Two nodes applying the same failure at the same time draw the same jitter (finding 7). */
  @Test
  void aFailuresJitter_isTheSameOnEveryNodeThatAppliesIt() {
    List<String> dues = new ArrayList<>();
    for (int node = 0; node < 2; node++) {
      Harness n = new Harness(clock::get);
      n.call("QUEUE.ADD", "q", "job", "ID", "j", "ATTEMPTS", "5", "BACKOFF", "FIXED", "1h");
      List<Reply> f =
          ((Reply.Array) ((Reply.Array) n.call("QUEUE.RESERVE", "q")).items().get(0)).items();
      String token = Long.toString(((Reply.Int) f.get(2)).value());
      dues.add(n.show("QUEUE.FAIL", "q", "j", token, "boom"));
    }
    assertThat(dues.get(0)).startsWith("[\"retry\"").isEqualTo(dues.get(1));
  }

  @Test
  void aBlockedReserve_waitsOffTheLoop_andWakesForAnAddADueJobOrItsTimeout() throws Exception {
    Harness real = new Harness(); // the system clock: the waits are real
    Reply waiting = real.call("QUEUE.RESERVE", "q", "BLOCK", "5s");
    assertThat(waiting).isInstanceOf(Reply.Deferred.class);
    var first = ((Reply.Deferred) waiting).future();
    Thread.sleep(100);
    assertThat(first).isNotDone();
    real.call("QUEUE.ADD", "q", "now");
    assertThat(Replies.show(first.get(5, java.util.concurrent.TimeUnit.SECONDS)))
        .matches("\\[\\[\"1\", \"now\", \\(integer\\) \\d+, \\(integer\\) 1]]");
    // A job due in 300 ms wakes a reserve that blocked before it was due.
    real.call("QUEUE.ADD", "q", "soon", "DELAY", "300ms");
    long start = System.nanoTime();
    var second = ((Reply.Deferred) real.call("QUEUE.RESERVE", "q", "BLOCK", "5s")).future();
    assertThat(Replies.show(second.get(5, java.util.concurrent.TimeUnit.SECONDS)))
        .matches("\\[\\[\"2\", \"soon\", \\(integer\\) \\d+, \\(integer\\) 1]]");
    assertThat(System.nanoTime() - start).isGreaterThan(200_000_000L); // not before it was due
    // Nothing comes: nil at the timeout.
    var third = ((Reply.Deferred) real.call("QUEUE.RESERVE", "q", "BLOCK", "200ms")).future();
    assertThat(third.get(5, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(Reply.NULL_ARRAY);
    // Inside a transaction a reserve does not block: nil at once, as Redis's blocking commands.
    real.call("MULTI");
    real.call("QUEUE.RESERVE", "q", "BLOCK", "5s");
    assertThat(Replies.show(real.call("EXEC"))).isEqualTo("[(nil)]");
    assertThat(real.show("QUEUE.RESERVE", "q", "BLOCK", "soon")).contains("a duration is");
  }

  /** A journal that holds back "durable" callbacks while told to: a log slow to sync. */
  private static final class SlowSync implements io.idem.server.engine.Journal {
    final io.idem.server.engine.Journal d = io.idem.server.engine.Journal.none();
    final List<Runnable> held = new ArrayList<>();
    volatile boolean holding = true;

    synchronized void release() {
      holding = false;
      held.forEach(Runnable::run);
      held.clear();
    }

    @Override
    public synchronized void whenDurable(long seq, Runnable action) {
      if (holding) {
        held.add(action);
      } else {
        action.run();
      }
    }

    @Override
    public io.idem.server.engine.Rows rows() {
      return d.rows();
    }

    @Override
    public long lastSeq() {
      return d.lastSeq();
    }

    @Override
    public long durableSeq() {
      return holding ? 0 : d.durableSeq();
    }

    @Override
    public void created(io.idem.server.engine.Entry e, byte[] recipe) {
      d.created(e, recipe);
    }

    @Override
    public void mutated(
        io.idem.server.engine.Entry e,
        byte op,
        byte[] payload,
        List<io.idem.core.store.RowChange> rows) {
      d.mutated(e, op, payload, rows);
    }

    @Override
    public void rowsChanged(
        io.idem.server.engine.Entry e, List<io.idem.core.store.RowChange> rows) {
      d.rowsChanged(e, rows);
    }

    @Override
    public void deleted(io.idem.server.engine.Entry e) {
      d.deleted(e);
    }

    @Override
    public void renamed(
        io.idem.server.engine.Key from,
        io.idem.server.engine.Entry e,
        io.idem.server.engine.@org.jspecify.annotations.Nullable Entry overwritten) {
      d.renamed(from, e, overwritten);
    }

    @Override
    public void expiryChanged(io.idem.server.engine.Entry e) {
      d.expiryChanged(e);
    }

    @Override
    public void flushed() {
      d.flushed();
    }

    @Override
    public void close() {}
  }

  /**
   * While a woken reserve's reply waits for the log, more wakes (more adds) must not lease more
   * jobs for it: they would be leased to no one until their lease ends. Seen in the benchmark.
   */
  @Test
  void aBlockedReserve_wokenAgainWhileItsReplyWaitsForTheLog_leasesNoMore() throws Exception {
    Harness real = new Harness();
    SlowSync journal = new SlowSync();
    real.engine.attach(journal);
    var reply = ((Reply.Deferred) real.call("QUEUE.RESERVE", "q", "BLOCK", "10s")).future();
    for (int i = 0; i < 5; i++) {
      real.call("QUEUE.ADD", "q", "job-" + i); // each wakes the waiter
    }
    Thread.sleep(300); // every wake has had its try
    assertThat(reply).isNotDone(); // its lease is not in the log yet
    journal.release();
    assertThat(((Reply.Array) reply.get(5, java.util.concurrent.TimeUnit.SECONDS)).items())
        .hasSize(1);
    assertThat(real.show("QUEUE.INFO", "q")).contains("\"leased\"=(integer) 1,");
  }

  /**
   * A blocked reserve whose client went away (its deferred reply cancelled, as the connection does
   * when it closes) leases nothing; and one cancelled while its leased jobs waited for the log
   * gives them back, due at once with the attempt not counted (finding 5).
   */
  @Test
  void aBlockedReserveCancelled_leasesNothing_orGivesBackWhatItLeased() throws Exception {
    Harness real = new Harness();
    var gone = ((Reply.Deferred) real.call("QUEUE.RESERVE", "q", "BLOCK", "0")).future();
    gone.cancel(false);
    real.call("QUEUE.ADD", "q", "first");
    Thread.sleep(200); // a wake would have had its try
    assertThat(real.show("QUEUE.INFO", "q")).contains("\"ready\"=(integer) 1,");
    assertThat(reserveOf(real)).startsWith("[[\"1\", \"first\"");

    SlowSync journal = new SlowSync();
    real.engine.attach(journal);
    var slow = ((Reply.Deferred) real.call("QUEUE.RESERVE", "q", "BLOCK", "10s")).future();
    real.call("QUEUE.ADD", "q", "second");
    Thread.sleep(200); // leased, its reply waiting for the log
    assertThat(real.show("QUEUE.INFO", "q")).contains("\"leased\"=(integer) 2,");
    slow.cancel(false);
    journal.release();
    Thread.sleep(200);
    assertThat(real.show("QUEUE.INFO", "q")).contains("\"ready\"=(integer) 1,");
    assertThat(reserveOf(real))
        .matches("\\[\\[\"2\", \"second\", \\(integer\\) \\d+, \\(integer\\) 1]]");
  }

  /** A blocked reserve's timeout that falls while its leased jobs wait for the log answers them. */
  @Test
  void aBlockedReservesTimeout_whileItsJobsWaitForTheLog_answersTheJobsNotNil() throws Exception {
    Harness real = new Harness();
    SlowSync journal = new SlowSync();
    real.engine.attach(journal);
    var reply = ((Reply.Deferred) real.call("QUEUE.RESERVE", "q", "BLOCK", "300ms")).future();
    real.call("QUEUE.ADD", "q", "job");
    Thread.sleep(600); // past the timeout, the lease still not in the log
    journal.release();
    assertThat(Replies.show(reply.get(5, java.util.concurrent.TimeUnit.SECONDS)))
        .startsWith("[[\"1\", \"job\"");
  }

  private static String reserveOf(Harness real) {
    return real.show("QUEUE.RESERVE", "q");
  }

  private JobQueue live() {
    return h.engine.read(bytes("q"), e -> e.valueAs(QueueCodec.INSTANCE));
  }
}
