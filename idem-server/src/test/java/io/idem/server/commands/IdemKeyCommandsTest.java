package io.idem.server.commands;

import static io.idem.server.commands.Harness.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.dedup.IdempotencyTable;
import io.idem.server.commands.CuckooCodecTest.Logged;
import io.idem.server.commands.CuckooCodecTest.Op;
import io.idem.server.commands.CuckooCodecTest.Recording;
import io.idem.server.commands.idemkey.IdemKeyCodec;
import io.idem.server.reply.Replies;
import io.idem.server.reply.Reply;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** IDEMKEY.* through the dispatcher, at a clock the test moves, and their log's replay. */
class IdemKeyCommandsTest {

  private final AtomicLong clock = new AtomicLong(1_790_000_000_000L);
  private final Harness h = new Harness(clock::get);

  private String show(String... words) {
    return h.show(words);
  }

  /** BEGIN's token, from its reply [started, token]. */
  private static String token(Reply r) {
    List<Reply> f = ((Reply.Array) r).items();
    assertThat(Replies.show(f.get(0))).isEqualTo("started");
    return Long.toString(((Reply.Int) f.get(1)).value());
  }

  @Test
  void aRequestIsStartedOnce_andItsResultAnswersEveryRetry() {
    assertThat(show("IDEMKEY.RESERVE", "api", "24h")).isEqualTo("OK");
    assertThat(show("TYPE", "api")).isEqualTo("idemkey");
    String t = token(h.call("IDEMKEY.BEGIN", "api", "pay-1", "FINGERPRINT", "f1", "LEASE", "10s"));
    clock.addAndGet(1_000);
    assertThat(show("IDEMKEY.BEGIN", "api", "pay-1", "FINGERPRINT", "f1"))
        .isEqualTo("[in_progress, (integer) 9000]");
    assertThat(show("IDEMKEY.BEGIN", "api", "pay-1", "FINGERPRINT", "f2"))
        .isEqualTo("[mismatch, (nil)]");
    assertThat(show("IDEMKEY.GET", "api", "pay-1"))
        .contains("\"state\"=in_progress")
        .contains("\"fingerprint\"=\"f1\"");
    assertThat(show("IDEMKEY.PENDING", "api")).startsWith("[(integer) 1, [[\"pay-1\"");
    assertThat(show("IDEMKEY.COMPLETE", "api", "pay-1", t, "201 created")).isEqualTo("(integer) 1");
    assertThat(show("IDEMKEY.BEGIN", "api", "pay-1", "FINGERPRINT", "f1"))
        .isEqualTo("[done, \"201 created\"]");
    assertThat(show("IDEMKEY.BEGIN", "api", "pay-1", "FINGERPRINT", "f2"))
        .isEqualTo("[mismatch, (nil)]");
    assertThat(show("IDEMKEY.COMPLETE", "api", "pay-1", t, "again")).isEqualTo("(integer) 0");
    assertThat(show("IDEMKEY.GET", "api", "pay-1"))
        .contains("\"state\"=done")
        .contains("\"result\"=\"201 created\"");
    assertThat(show("IDEMKEY.GET", "api", "never")).isEqualTo("(nil)");
    assertThat(show("IDEMKEY.INFO", "api"))
        .contains("Done=(integer) 1")
        .contains("In progress=(integer) 0")
        .contains("Retention milliseconds=(integer) 86400000");
  }

  @Test
  void aLostCaller_isTakenOverAtItsLeaseEnd_andItsTokenRefused() {
    h.call("IDEMKEY.RESERVE", "api", "1h", "LEASE", "5s");
    String first = token(h.call("IDEMKEY.BEGIN", "api", "k"));
    clock.addAndGet(5_000);
    assertThat(show("IDEMKEY.GET", "api", "k")).isEqualTo("(nil)");
    String second = token(h.call("IDEMKEY.BEGIN", "api", "k", "FINGERPRINT", "other"));
    assertThat(Long.parseLong(second)).isGreaterThan(Long.parseLong(first));
    assertThat(show("IDEMKEY.COMPLETE", "api", "k", first, "late")).isEqualTo("(integer) 0");
    assertThat(show("IDEMKEY.ABANDON", "api", "k", first)).isEqualTo("(integer) 0");
    assertThat(show("IDEMKEY.ABANDON", "api", "k", second)).isEqualTo("(integer) 1");
    assertThat(show("IDEMKEY.BEGIN", "api", "k")).startsWith("[started, ");
  }

  @Test
  void results_areKeptTheRetention_thenGoWithTheirRows() {
    h.call("IDEMKEY.RESERVE", "api", "8h"); // slices of an hour
    String t = token(h.call("IDEMKEY.BEGIN", "api", "k"));
    h.call("IDEMKEY.COMPLETE", "api", "k", t, "r");
    clock.addAndGet(8 * 3_600_000L - 1);
    h.engine.runBackground();
    assertThat(show("IDEMKEY.BEGIN", "api", "k")).isEqualTo("[done, \"r\"]");
    clock.addAndGet(3_600_001L);
    h.engine.runBackground();
    assertThat(show("IDEMKEY.INFO", "api")).contains("Done=(integer) 0");
    assertThat(show("IDEMKEY.BEGIN", "api", "k")).startsWith("[started, ");
  }

  @Test
  void badArguments_areRefusedWithTheirReason_andMakeNothing() {
    assertThat(show("IDEMKEY.BEGIN", "none", "k")).isEqualTo("(error) ERR not found");
    assertThat(show("IDEMKEY.RESERVE", "api", "soon")).contains("a duration is");
    assertThat(show("IDEMKEY.RESERVE", "api", "1h", "MAXRESULT", "0")).contains("MAXRESULT must");
    assertThat(show("IDEMKEY.RESERVE", "api", "1h", "LEASE", "2h")).contains("a LEASE is from");
    assertThat(show("IDEMKEY.RESERVE", "api", "1h", "SLICES")).contains("syntax error");
    assertThat(show("IDEMKEY.RESERVE", "api", "1h", "SLICES", "2", "SLICES", "3"))
        .contains("syntax error");
    assertThat(show("TYPE", "api")).isEqualTo("none");
    h.call("IDEMKEY.RESERVE", "api", "1h", "MAXRESULT", "4", "MAXPENDING", "1");
    assertThat(show("IDEMKEY.RESERVE", "api", "1h")).isEqualTo("(error) ERR item exists");
    assertThat(show("IDEMKEY.BEGIN", "api", "")).contains("an id is 1 to 1024 bytes");
    assertThat(show("IDEMKEY.BEGIN", "api", "k", "FINGERPRINT", "x".repeat(65)))
        .contains("a fingerprint is at most 64 bytes");
    assertThat(show("IDEMKEY.BEGIN", "api", "k", "WAIT")).contains("syntax error");
    String t = token(h.call("IDEMKEY.BEGIN", "api", "k"));
    assertThat(show("IDEMKEY.BEGIN", "api", "k2")).contains("too many keys in progress");
    assertThat(show("IDEMKEY.COMPLETE", "api", "k", t, "12345")).contains("over the table's");
    assertThat(show("IDEMKEY.COMPLETE", "api", "k", "x", "1")).contains("a lease token is");
    assertThat(show("IDEMKEY.PENDING", "api", "COUNT", "0")).contains("COUNT is");
    h.call("BF.ADD", "bf", "x");
    assertThat(show("IDEMKEY.BEGIN", "bf", "k")).contains("WRONGTYPE");
    assertThat(show("IDEMKEY.RESERVE", "bf", "1h")).contains("WRONGTYPE");
  }

  /**
   * A random day of a table under a moving clock: rebuilt from its recipe and logged operations, or
   * from a snapshot taken midway and the operations after it, it is the live one, byte for byte.
   */
  @Test
  void replayingTheLog_orASnapshotAndTheRest_givesTheLiveTable() throws IOException {
    Recording journal = new Recording(true);
    h.engine.attach(journal);
    h.call("IDEMKEY.RESERVE", "api", "2h", "MAXPENDING", "30");
    SplittableRandom rnd = new SplittableRandom(45);
    List<String[]> held = new ArrayList<>();
    byte[] snapshot = null;
    int snapshotOps = 0;
    for (int step = 0; step < 3000; step++) {
      clock.addAndGet(rnd.nextInt(5_000));
      String id = "k" + rnd.nextInt(400);
      int op = rnd.nextInt(10);
      if (op < 5) {
        Reply r =
            h.call(
                "IDEMKEY.BEGIN",
                "api",
                id,
                "FINGERPRINT",
                "f" + rnd.nextInt(2),
                "LEASE",
                (1 + rnd.nextInt(60)) + "s");
        if (r instanceof Reply.Array a && Replies.show(a.items().get(0)).equals("started")) {
          held.add(new String[] {id, token(r)});
        }
      } else if (op < 9 && !held.isEmpty()) {
        String[] k = held.remove(rnd.nextInt(held.size()));
        if (op < 8) {
          h.call("IDEMKEY.COMPLETE", "api", k[0], k[1], "result " + step);
        } else {
          h.call("IDEMKEY.ABANDON", "api", k[0], k[1]);
        }
      } else {
        h.engine.runBackground();
      }
      if (step == 1500) {
        snapshot = CuckooCodecTest.written(IdemKeyCodec.INSTANCE, live());
        snapshotOps = journal.of(h, "api").ops().size();
      }
    }
    Logged logged = journal.of(h, "api");
    byte[] live = CuckooCodecTest.written(IdemKeyCodec.INSTANCE, live());
    assertThat(logged.ops()).hasSizeGreaterThan(800);
    assertThat(CuckooCodecTest.written(IdemKeyCodec.INSTANCE, logged.replay(IdemKeyCodec.INSTANCE)))
        .isEqualTo(live);
    IdempotencyTable fromSnapshot =
        IdemKeyCodec.INSTANCE.read(new ByteArrayInputStream(snapshot), 1L << 30);
    for (Op op : logged.ops().subList(snapshotOps, logged.ops().size())) {
      IdemKeyCodec.INSTANCE.apply(fromSnapshot, op.op(), op.payload());
    }
    assertThat(CuckooCodecTest.written(IdemKeyCodec.INSTANCE, fromSnapshot)).isEqualTo(live);
  }

  private IdempotencyTable live() {
    return h.engine.read(bytes("api"), e -> e.valueAs(IdemKeyCodec.INSTANCE));
  }

  private static CompletableFuture<Reply> deferred(Reply r) {
    assertThat(r).isInstanceOf(Reply.Deferred.class);
    return ((Reply.Deferred) r).future();
  }

  @Test
  void aWaitingBegin_isAnsweredByTheCompletion_byTheLeaseEnd_orItsTimeout() throws Exception {
    Harness real = new Harness(); // the system clock: the waits are real
    real.call("IDEMKEY.RESERVE", "api", "1h");
    String t = token(real.call("IDEMKEY.BEGIN", "api", "k", "LEASE", "30s"));
    CompletableFuture<Reply> first = deferred(real.call("IDEMKEY.BEGIN", "api", "k", "WAIT", "5s"));
    CompletableFuture<Reply> second = deferred(real.call("IDEMKEY.BEGIN", "api", "k", "WAIT", "0"));
    Thread.sleep(100);
    assertThat(first).isNotDone();
    real.call("IDEMKEY.COMPLETE", "api", "k", t, "the result");
    assertThat(Replies.show(first.get(5, TimeUnit.SECONDS))).isEqualTo("[done, \"the result\"]");
    assertThat(Replies.show(second.get(5, TimeUnit.SECONDS))).isEqualTo("[done, \"the result\"]");

    // A lease that runs out: the waiter takes the key over.
    real.call("IDEMKEY.BEGIN", "api", "lost", "LEASE", "300ms");
    CompletableFuture<Reply> taker =
        deferred(real.call("IDEMKEY.BEGIN", "api", "lost", "WAIT", "0"));
    assertThat(Replies.show(taker.get(5, TimeUnit.SECONDS))).startsWith("[started, ");

    // Nothing comes: in_progress at the timeout, with the lease's time left.
    real.call("IDEMKEY.BEGIN", "api", "slow", "LEASE", "1h");
    CompletableFuture<Reply> late =
        deferred(real.call("IDEMKEY.BEGIN", "api", "slow", "WAIT", "200ms"));
    assertThat(Replies.show(late.get(5, TimeUnit.SECONDS))).startsWith("[in_progress, (integer) ");

    // An abandon wakes a waiter, which takes over.
    String s = token(real.call("IDEMKEY.BEGIN", "api", "a", "LEASE", "1h"));
    CompletableFuture<Reply> next = deferred(real.call("IDEMKEY.BEGIN", "api", "a", "WAIT", "5s"));
    real.call("IDEMKEY.ABANDON", "api", "a", s);
    assertThat(Replies.show(next.get(5, TimeUnit.SECONDS))).startsWith("[started, ");

    // Inside a transaction a begin does not wait: nil, as Redis's blocking commands.
    real.call("MULTI");
    real.call("IDEMKEY.BEGIN", "api", "slow", "WAIT", "5s");
    assertThat(Replies.show(real.call("EXEC"))).isEqualTo("[(nil)]");
  }

  @Test
  void aWaiterWhoseClientLeft_takesNothingOver() throws Exception {
    Harness real = new Harness();
    real.call("IDEMKEY.RESERVE", "api", "1h");
    real.call("IDEMKEY.BEGIN", "api", "k", "LEASE", "200ms");
    CompletableFuture<Reply> gone = deferred(real.call("IDEMKEY.BEGIN", "api", "k", "WAIT", "0"));
    gone.cancel(false); // its connection closed
    Thread.sleep(600); // past the lease end, when the waiter would have taken over
    assertThat(real.show("IDEMKEY.BEGIN", "api", "k")).startsWith("[started, ");
  }
}
