package io.idem.server.commands.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.commands.queue.JobQueue.Backoff;
import io.idem.server.commands.queue.JobQueue.BackoffKind;
import io.idem.server.commands.queue.JobQueue.Failed;
import io.idem.server.commands.queue.JobQueue.Held;
import io.idem.server.commands.queue.JobQueue.Job;
import io.idem.server.commands.queue.JobQueue.State;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The queue's order, leases, retries, dead letters and unique ids, and a model it must match. */
class JobQueueTest {

  @Test
  void anIdOrdersAndMatchesAsTheByteBufferItReplaced() {
    java.util.SplittableRandom r = new java.util.SplittableRandom(3);
    for (int n = 0; n < 20_000; n++) {
      byte[] a = new byte[r.nextInt(4)];
      byte[] b = new byte[r.nextInt(4)];
      for (int k = 0; k < a.length; k++) {
        a[k] = (byte) r.nextInt(-2, 3); // few values, both signs: many ties and prefixes
      }
      for (int k = 0; k < b.length; k++) {
        b[k] = (byte) r.nextInt(-2, 3);
      }
      JobQueue.Id x = new JobQueue.Id(a);
      JobQueue.Id y = new JobQueue.Id(b);
      java.nio.ByteBuffer bx = java.nio.ByteBuffer.wrap(a);
      java.nio.ByteBuffer by = java.nio.ByteBuffer.wrap(b);
      assertThat(Integer.signum(x.compareTo(y))).isEqualTo(Integer.signum(bx.compareTo(by)));
      assertThat(x.equals(y)).isEqualTo(bx.equals(by));
      if (x.equals(y)) {
        assertThat(x.hashCode()).isEqualTo(new JobQueue.Id(b.clone()).hashCode());
      }
    }
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  private static List<String> ids(List<Job> jobs) {
    return jobs.stream().map(j -> s(j.id())).toList();
  }

  private static JobQueue.Added add(JobQueue q, long now, String id, int priority, long due) {
    return q.add(now, id == null ? null : b(id), b("p"), priority, due, 3, Backoff.NONE, 0);
  }

  @Test
  void dueJobs_goByPriority_thenDueTime_thenTheOrderAdded() {
    JobQueue q = new JobQueue();
    add(q, 0, "low-early", 0, 10);
    add(q, 0, "high-late", 5, 30);
    add(q, 0, "low-late", 0, 20);
    add(q, 0, "high-early", 5, 20);
    add(q, 0, "low-early-2", 0, 10);
    add(q, 0, "future", 9, 1000);
    assertThat(q.reserve(5, 10, 100)).isEmpty(); // nothing due at 5
    assertThat(ids(q.reserve(50, 10, 5000)))
        .containsExactly("high-early", "high-late", "low-early", "low-early-2", "low-late");
    assertThat(q.counts(50)).containsExactly(0, 1, 5, 0);
    assertThat(ids(q.reserve(1000, 10, 2000))).containsExactly("future");
  }

  @Test
  void aLease_holdsTheJobForOneWorker_andItsExpiryMakesItDueAgain() {
    JobQueue q = new JobQueue();
    assertThat(add(q, 0, null, 0, 0).id()).isEqualTo(b("1")); // no id: its number
    Job first = q.reserve(0, 1, 100).get(0);
    long stale = first.token;
    assertThat(first.attempts).isEqualTo(1);
    assertThat(q.reserve(50, 1, 150)).isEmpty(); // leased: no one else gets it
    assertThat(q.extend(b("1"), stale, 200)).isEqualTo(Held.DONE);
    assertThat(q.reserve(150, 1, 250)).isEmpty(); // extended past 150
    Job again = q.reserve(200, 1, 300).get(0); // the lease ended at 200: due again
    assertThat(again.attempts).isEqualTo(2);
    assertThat(again.errors()).containsExactly("lease expired at 200");
    // The first worker's token is stale: its ack, fail, extend and release do nothing.
    assertThat(again.token).isNotEqualTo(stale);
    assertThat(q.ack(210, b("1"), stale)).isEqualTo(Held.NOT_LEASED);
    assertThat(q.fail(210, b("1"), stale, "late", 0)).isEqualTo(Failed.NOT_LEASED);
    assertThat(q.extend(b("1"), stale, 999)).isEqualTo(Held.NOT_LEASED);
    assertThat(q.release(b("1"), stale, 0)).isEqualTo(Held.NOT_LEASED);
    assertThat(q.ack(210, b("1"), again.token)).isEqualTo(Held.DONE);
    assertThat(q.job(b("1"))).isNull();
    assertThat(q.counts(210)).containsExactly(0, 0, 0, 0);
  }

  @Test
  void failures_retryAtTheGivenTime_thenTheLastOneIsADeadLetterWithItsHistory() {
    JobQueue q = new JobQueue();
    q.add(0, b("j"), b("p"), 0, 0, 3, new Backoff(BackoffKind.EXPONENTIAL, 100, 1000), 0);
    for (int attempt = 1; attempt <= 2; attempt++) {
      Job j = q.reserve(attempt * 1000L, 1, attempt * 1000L + 50).get(0);
      assertThat(q.fail(attempt * 1000L, j.id(), j.token, "boom " + attempt, attempt * 1000L + 500))
          .isEqualTo(Failed.RETRY);
      assertThat(q.reserve(attempt * 1000L + 499, 1, 0)).isEmpty(); // not before its retry time
    }
    Job last = q.reserve(3000, 1, 3050).get(0);
    assertThat(q.fail(3000, last.id(), last.token, "boom 3", 9999)).isEqualTo(Failed.DEAD);
    assertThat(q.dead(10)).hasSize(1);
    assertThat(q.dead(10).get(0).errors()).containsExactly("boom 1", "boom 2", "boom 3");
    assertThat(q.job(b("j")).state()).isEqualTo(State.DEAD);
    assertThat(q.counts(3000)).containsExactly(0, 0, 0, 1);
    assertThat(q.replay(4000, b("j"))).isEqualTo(1);
    Job replayed = q.reserve(4000, 1, 4100).get(0);
    assertThat(replayed.attempts).isEqualTo(1);
    assertThat(replayed.errors()).isEmpty();
    q.fail(4000, replayed.id(), replayed.token, "again", 4000);
    // A lease that expires on the last attempt is a dead letter too.
    q.reserve(4000, 1, 4010);
    q.reserve(4010, 1, 4020);
    assertThat(q.counts(4020)).containsExactly(0, 0, 0, 1); // as of 4020, dead
    q.settle(4020);
    assertThat(q.dead(10).get(0).errors())
        .containsExactly("again", "lease expired at 4010", "lease expired at 4020");
    assertThat(q.purge()).isEqualTo(1);
    assertThat(q.job(b("j"))).isNull();
  }

  @Test
  void releasing_givesTheJobBack_withoutCountingTheAttempt() {
    JobQueue q = new JobQueue();
    q.add(0, b("j"), b("p"), 0, 0, 1, Backoff.NONE, 0);
    Job j = q.reserve(0, 1, 100).get(0);
    assertThat(q.release(j.id(), j.token, 50)).isEqualTo(Held.DONE);
    assertThat(q.reserve(49, 1, 100)).isEmpty();
    assertThat(q.reserve(50, 1, 100).get(0).attempts).isEqualTo(1); // still its first attempt
  }

  @Test
  void aUniqueId_isHeldWhileTheJobLives_andForItsWindowAfterItsAck() {
    JobQueue q = new JobQueue();
    assertThat(q.add(0, b("order-7"), b("p"), 0, 0, 1, Backoff.NONE, 1000).isNew()).isTrue();
    JobQueue.Added again = q.add(5, b("order-7"), b("other"), 0, 0, 1, Backoff.NONE, 1000);
    assertThat(again.isNew()).isFalse();
    assertThat(again.state()).isEqualTo(State.WAITING);
    Job j = q.reserve(10, 1, 100).get(0);
    assertThat(q.add(20, b("order-7"), b("p"), 0, 0, 1, Backoff.NONE, 1000).state())
        .isEqualTo(State.LEASED);
    q.ack(30, j.id(), j.token);
    JobQueue.Added done = q.add(500, b("order-7"), b("p"), 0, 0, 1, Backoff.NONE, 1000);
    assertThat(done.isNew()).isFalse();
    assertThat(done.state()).isNull(); // done, inside its window
    assertThat(q.add(1030, b("order-7"), b("p"), 0, 0, 1, Backoff.NONE, 1000).isNew()).isTrue();
  }

  /**
   * A token names one lease: after a release, a replay or an id's reuse, the stale worker's token
   * holds nothing, whatever the attempt counts say (attempts go back down after a release).
   */
  @Test
  void aToken_isNeverHandedOutTwice_acrossReleaseReplayAndIdReuse() {
    JobQueue q = new JobQueue();
    java.util.Set<Long> seen = new java.util.HashSet<>();
    q.add(0, b("j"), b("p"), 0, 0, 1, Backoff.NONE, 0);
    Job a = q.reserve(0, 1, 100).get(0);
    long ta = a.token;
    seen.add(ta);
    assertThat(q.release(b("j"), ta, 0)).isEqualTo(Held.DONE);
    Job b = q.reserve(1, 1, 100).get(0);
    assertThat(b.attempts).isEqualTo(1); // the same attempt as the released lease
    assertThat(seen.add(b.token)).isTrue();
    assertThat(q.ack(2, b("j"), ta)).isEqualTo(Held.NOT_LEASED); // the first worker's late ack
    assertThat(q.job(b("j")).state()).isEqualTo(State.LEASED);
    long tb = b.token;
    assertThat(q.fail(3, b("j"), tb, "x", 3)).isEqualTo(Failed.DEAD);
    assertThat(q.replay(4, b("j"))).isEqualTo(1);
    long tc = q.reserve(4, 1, 100).get(0).token;
    assertThat(seen.add(tc)).isTrue();
    assertThat(q.extend(b("j"), tb, 500)).isEqualTo(Held.NOT_LEASED);
    assertThat(q.ack(5, b("j"), tc)).isEqualTo(Held.DONE);
    // The id is free again (no UNIQUE window): a new job under it.
    q.add(6, b("j"), b("p2"), 0, 6, 1, Backoff.NONE, 0);
    long td = q.reserve(6, 1, 100).get(0).token;
    assertThat(seen.add(td)).isTrue();
    for (long stale : List.of(ta, tb, tc)) {
      assertThat(q.ack(7, b("j"), stale)).isEqualTo(Held.NOT_LEASED);
      assertThat(q.release(b("j"), stale, 7)).isEqualTo(Held.NOT_LEASED);
    }
    assertThat(q.ack(7, b("j"), td)).isEqualTo(Held.DONE);
  }

  /**
   * Acked unique ids leave at the end of their windows, each window its own; and dropping them
   * visits only those that end, so many ids in long windows cost an add nothing (it took a walk of
   * every id on every add and reserve: hundreds of thousands of adds then took minutes, which the
   * timeout catches).
   */
  @Test
  @org.junit.jupiter.api.Timeout(
      value = 120,
      threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void doneIds_leaveAtTheirWindowsEnd_andDroppingThemWalksOnlyThose() {
    JobQueue q = new JobQueue();
    int n = 300_000;
    for (int i = 0; i < n; i++) {
      q.add(i, b("u" + i), b("p"), 0, i, 1, Backoff.NONE, i % 2 == 0 ? 1_000_000 : 10);
      Job j = q.reserve(i, 1, i + 5).get(0);
      assertThat(q.ack(i, j.id(), j.token)).isEqualTo(Held.DONE);
    }
    // At n + 10 every short window has ended; the long ones last until 1,000,000 past their ack.
    assertThat(q.add(n + 10, b("u1"), b("p"), 0, 0, 1, Backoff.NONE, 0).isNew()).isTrue();
    assertThat(q.add(n + 10, b("u0"), b("p"), 0, 0, 1, Backoff.NONE, 0).isNew()).isFalse();
    assertThat(q.add(n + 10, b("u" + (n - 2)), b("p"), 0, 0, 1, Backoff.NONE, 0).isNew()).isFalse();
    assertThat(q.add(1_000_000 + 2, b("u2"), b("p"), 0, 0, 1, Backoff.NONE, 0).isNew()).isTrue();
    assertThat(q.add(1_000_000 + 2, b("u4"), b("p"), 0, 0, 1, Backoff.NONE, 0).isNew()).isFalse();
    long held = q.memoryUsage();
    q.settle(2_000_000 + n);
    assertThat(q.doneIds()).isEmpty();
    assertThat(q.memoryUsage()).isLessThan(held);
  }

  @Test
  void backoffs_fixedOrDoubling_capped() {
    Backoff fixed = new Backoff(BackoffKind.FIXED, 500, 10_000);
    Backoff doubling = new Backoff(BackoffKind.EXPONENTIAL, 100, 1000);
    assertThat(fixed.delay(1)).isEqualTo(500);
    assertThat(fixed.delay(9)).isEqualTo(500);
    assertThat(List.of(1, 2, 3, 4, 5, 80).stream().map(doubling::delay).toList())
        .containsExactly(100L, 200L, 400L, 800L, 1000L, 1000L);
  }

  /** A job of the model: the same fields, kept in a plain list. */
  private static final class M {
    final long seq;
    final String id;
    final int priority;
    long due;
    int attempts;
    long token;
    long leaseUntil;
    State state = State.WAITING;

    M(long seq, String id, int priority, long due) {
      this.seq = seq;
      this.id = id;
      this.priority = priority;
      this.due = due;
    }
  }

  /**
   * Random adds, reserves, acks, fails, extends and releases at a clock that moves on, against a
   * model that sorts a list on every reserve: the queue leases the same jobs in the same order.
   */
  @Test
  void randomOperations_matchASortedListModel() {
    SplittableRandom rnd = new SplittableRandom(33);
    JobQueue q = new JobQueue();
    List<M> model = new ArrayList<>();
    long now = 0;
    long seq = 1;
    int maxAttempts = 3;
    for (int step = 0; step < 5000; step++) {
      now += rnd.nextInt(20);
      int op = rnd.nextInt(10);
      if (op < 4) {
        int priority = rnd.nextInt(3);
        long due = now + (rnd.nextBoolean() ? 0 : rnd.nextInt(200));
        // Some jobs named, some numbered by the queue (their id is their number, not kept).
        boolean named = rnd.nextBoolean();
        String id = named ? "job-" + seq : Long.toString(seq);
        JobQueue.Added added =
            q.add(
                now,
                named ? b(id) : null,
                b("p" + seq),
                priority,
                due,
                maxAttempts,
                Backoff.NONE,
                0);
        assertThat(s(added.id())).isEqualTo(id);
        assertThat(s(q.job(b(id)).payload())).isEqualTo("p" + seq);
        model.add(new M(seq++, id, priority, due));
      } else if (op < 7) {
        int count = 1 + rnd.nextInt(3);
        long until = now + 1 + rnd.nextInt(100);
        List<Job> leased = q.reserve(now, count, until);
        List<String> got = ids(leased);
        // The model: expired leases first, then the due jobs sorted.
        for (M m : model) {
          if (m.state == State.LEASED && m.leaseUntil <= now) {
            if (m.attempts >= maxAttempts) {
              m.state = State.DEAD;
            } else {
              m.state = State.WAITING;
              m.due = m.leaseUntil;
            }
          }
        }
        final long t = now;
        List<M> due =
            new ArrayList<>(
                model.stream().filter(m -> m.state == State.WAITING && m.due <= t).toList());
        due.sort(
            Comparator.<M>comparingInt(m -> -m.priority)
                .thenComparingLong(m -> m.due)
                .thenComparingLong(m -> m.seq));
        List<String> want = new ArrayList<>();
        for (M m : due.subList(0, Math.min(count, due.size()))) {
          m.state = State.LEASED;
          m.attempts++;
          m.leaseUntil = until;
          want.add(m.id);
        }
        assertThat(got).as("step %d at %d", step, now).isEqualTo(want);
        for (int i = 0; i < leased.size(); i++) {
          due.get(i).token = leased.get(i).token;
        }
      } else {
        List<M> held = model.stream().filter(m -> m.state == State.LEASED).toList();
        if (held.isEmpty()) {
          continue;
        }
        // Until a reserve settles it, an expired lease is still its worker's: its token works.
        M m = held.get(rnd.nextInt(held.size()));
        long token = m.token;
        switch (op) {
          case 7 -> {
            if (q.ack(now, b(m.id), token) == Held.DONE) {
              model.remove(m);
            }
          }
          case 8 -> {
            long retry = now + rnd.nextInt(50);
            Failed f = q.fail(now, b(m.id), token, "e", retry);
            if (f == Failed.DEAD) {
              m.state = State.DEAD;
            } else if (f == Failed.RETRY) {
              m.state = State.WAITING;
              m.due = retry;
            }
          }
          default -> {
            long until = now + rnd.nextInt(100);
            if (q.extend(b(m.id), token, until) == Held.DONE) {
              m.leaseUntil = until;
            }
          }
        }
      }
      if (step % 7 == 0) {
        assertThat(q.counts(now))
            .as("step %d", step)
            .containsExactly(modelCounts(model, now, maxAttempts));
      }
    }
    long[] counts = q.counts(now);
    assertThat(counts[0] + counts[1] + counts[2] + counts[3]).isEqualTo(model.size());
    assertThat(counts).containsExactly(modelCounts(model, now, maxAttempts));
  }

  /** Due, delayed, leased and dead as of {@code now}, from the model. */
  private static long[] modelCounts(List<M> model, long now, int maxAttempts) {
    long[] c = new long[4];
    for (M m : model) {
      switch (m.state) {
        case WAITING -> c[m.due <= now ? 0 : 1]++;
        case LEASED -> {
          if (m.leaseUntil > now) {
            c[2]++;
          } else {
            c[m.attempts >= maxAttempts ? 3 : 0]++;
          }
        }
        case DEAD -> c[3]++;
      }
    }
    return c;
  }
}
