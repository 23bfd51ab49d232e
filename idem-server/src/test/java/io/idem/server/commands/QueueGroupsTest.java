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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Groups in a queue: fair shares by weight, rate and concurrency limits per group and per queue,
 * group pauses, through the commands at a clock the test moves, and their replay.
 */
class QueueGroupsTest {

  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final Harness h = new Harness(clock::get);

  /** Each job's group (its payload) and token, by id, for the leases made. */
  private final Map<String, String[]> held = new HashMap<>();

  /** Reserves and answers the groups of the jobs leased, in order (the payload is the group). */
  private List<String> reserve(String... words) {
    List<String> out = new ArrayList<>();
    Reply r = h.call(words);
    assertThat(r).as(Replies.show(r)).isInstanceOf(Reply.Array.class);
    for (Reply job : ((Reply.Array) r).items()) {
      List<Reply> f = ((Reply.Array) job).items();
      String id = text(f.get(0));
      String group = text(f.get(1));
      held.put(id, new String[] {group, Long.toString(((Reply.Int) f.get(2)).value())});
      out.add(group);
    }
    return out;
  }

  private void ack(String group) {
    for (Map.Entry<String, String[]> e : List.copyOf(held.entrySet())) {
      if (e.getValue()[0].equals(group)) {
        assertThat(h.call("QUEUE.ACK", "q", e.getKey(), e.getValue()[1]))
            .isEqualTo(Reply.integer(1));
        held.remove(e.getKey());
        return;
      }
    }
    throw new AssertionError("no job of " + group + " held");
  }

  private static String text(Reply r) {
    return new String(((Reply.Bulk) r).bytes(), StandardCharsets.UTF_8);
  }

  private void add(String group, int n) {
    List<String> words = new ArrayList<>(List.of("QUEUE.MADD", "q", "GROUP", group));
    for (int i = 0; i < n; i++) {
      words.add("JOB");
      words.add(group);
    }
    h.call(words.toArray(String[]::new));
  }

  private JobQueue live() {
    return h.engine.read(bytes("q"), e -> e.valueAs(QueueCodec.INSTANCE));
  }

  @Test
  void oneGroupsBacklog_delaysAnothersJob_byAtMostARound() {
    for (int i = 0; i < 20; i++) {
      add("big", 5_000); // 100,000 jobs first
    }
    for (int g = 0; g < 99; g++) {
      add("small-" + g, 1);
    }
    List<String> next = reserve("QUEUE.RESERVE", "q", "COUNT", "1000");
    List<String> first100 = next.subList(0, 100);
    assertThat(first100.stream().filter(g -> g.startsWith("small-")).distinct().count())
        .as("each small group's one job within the first round of 100 reserves")
        .isEqualTo(99);
    assertThat(next.subList(100, 1000)).containsOnly("big");
  }

  @Test
  void backloggedGroups_shareByWeight_atEveryPrefix() {
    h.call("QUEUE.GROUP", "q", "w1", "WEIGHT", "1");
    h.call("QUEUE.GROUP", "q", "w2", "WEIGHT", "2");
    h.call("QUEUE.GROUP", "q", "w5", "WEIGHT", "5");
    for (String g : List.of("w1", "w2", "w5")) {
      add(g, 10_000);
    }
    Map<String, Integer> weights = Map.of("w1", 1, "w2", 2, "w5", 5);
    Map<String, Integer> served = new HashMap<>(Map.of("w1", 0, "w2", 0, "w5", 0));
    for (int round = 0; round < 8; round++) {
      for (String g : reserve("QUEUE.RESERVE", "q", "COUNT", "1000")) {
        served.merge(g, 1, Integer::sum);
        for (String a : weights.keySet()) {
          for (String b : weights.keySet()) {
            double lag =
                served.get(a) / (double) weights.get(a) - served.get(b) / (double) weights.get(b);
            assertThat(Math.abs(lag))
                .as("%s against %s at %s", a, b, served)
                .isLessThanOrEqualTo(1.0);
          }
        }
      }
    }
    assertThat(served).isEqualTo(Map.of("w1", 1000, "w2", 2000, "w5", 5000));
  }

  @Test
  void aGroupIdleForAnHour_getsNoMoreThanItsShareOnReturn() {
    add("steady", 5_000);
    add("away", 1);
    reserve("QUEUE.RESERVE", "q", "COUNT", "1000"); // away's one job, then steady's
    clock.addAndGet(3_600_000);
    add("away", 1_000);
    List<String> next = reserve("QUEUE.RESERVE", "q", "COUNT", "100");
    long away = next.stream().filter("away"::equals).count();
    assertThat(away).as("away's share on return, of 100").isBetween(49L, 51L);
  }

  @Test
  void aGroupsConcurrency_holdsAcrossAcksFailuresAndLeaseEnds() {
    h.call("QUEUE.GROUP", "q", "t", "CONCURRENCY", "2");
    add("t", 10);
    add("other", 10);
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "10", "LEASE", "5s"))
        .containsOnly("t", "other")
        .filteredOn("t"::equals)
        .hasSize(2);
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "10")).containsOnly("other");
    ack("t");
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "10", "LEASE", "5s")).containsExactly("t");
    clock.addAndGet(5_000); // both of t's leases end: two slots
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "10", "LEASE", "1h"))
        .filteredOn("t"::equals)
        .hasSize(2);
    assertThat(Replies.show(h.call("QUEUE.GROUPS", "q")))
        .contains("\"name\"=\"t\"")
        .contains("\"concurrency\"=(integer) 2")
        .contains("\"leased\"=(integer) 2");
    // The default for groups: every group at most 1, t keeping its own 2.
    h.call("QUEUE.CONFIG", "q", "GROUP-CONCURRENCY", "1");
    add("u", 5);
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "10")).containsExactly("u");
  }

  @Test
  void aGroupsRate_spacesItsLeases_andDoesNotHoldBackOthers() {
    h.call("QUEUE.GROUP", "q", "slow", "RATE", "10", "1s"); // one every 100 ms, no burst
    add("slow", 50);
    add("fast", 50);
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "5"))
        .containsExactly("slow", "fast", "fast", "fast", "fast");
    for (int step = 1; step <= 5; step++) {
      clock.addAndGet(99);
      assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "1"))
          .as("99 ms on")
          .containsExactly("fast");
      clock.addAndGet(1);
      assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "1"))
          .as("100 ms on")
          .containsExactly("slow");
    }
    // BURST 4: five at once after a long rest, then one an interval.
    h.call("QUEUE.GROUP", "q", "slow", "RATE", "10", "1s", "BURST", "4");
    clock.addAndGet(60_000);
    h.call("QUEUE.PAUSE", "q", "GROUP", "fast");
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "10")).hasSize(5).containsOnly("slow");
    clock.addAndGet(100);
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "10")).containsExactly("slow");
    assertThat(Replies.show(h.call("QUEUE.GROUP", "q", "slow")))
        .contains("\"rate\"=[(integer) 10, (integer) 1, (integer) 4]");
  }

  /**
   * Times are whole milliseconds: a rate above one a millisecond still leases its rate, a
   * millisecond's worth at a time (one a millisecond would cap every rate at 1000 a second).
   */
  @Test
  void aRateAboveOneAMillisecond_leasesItsRate() {
    h.call("QUEUE.CONFIG", "q", "RATE", "2000", "1s");
    add("t", 5000);
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "100")).hasSize(2);
    int leased = 0;
    for (int ms = 1; ms <= 1000; ms++) {
      clock.addAndGet(1);
      List<String> got = reserve("QUEUE.RESERVE", "q", "COUNT", "100");
      assertThat(got).as("at %d ms", ms).hasSize(2);
      leased += got.size();
    }
    assertThat(leased).isEqualTo(2000);
    h.call("QUEUE.CONFIG", "q", "RATE", "3000", "1s"); // an interval of 333,333 ns
    clock.addAndGet(10);
    int ten = 0;
    for (int ms = 0; ms < 1000; ms++) {
      clock.addAndGet(1);
      ten += reserve("QUEUE.RESERVE", "q", "COUNT", "100").size();
    }
    // A second of it holds the rate, give or take a millisecond's worth (3) at its ends.
    assertThat(ten).as("a second at 3000 a second").isBetween(2997, 3003);
  }

  @Test
  void theQueuesOwnLimits_countEveryGroup() {
    h.call("QUEUE.CONFIG", "q", "RATE", "2", "1s", "CONCURRENCY", "3");
    add("a", 10);
    add("b", 10);
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "10", "LEASE", "1h")).containsExactly("a");
    clock.addAndGet(500);
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "10", "LEASE", "1h")).containsExactly("b");
    clock.addAndGet(500);
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "10", "LEASE", "1h")).containsExactly("a");
    clock.addAndGet(500);
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "10")).as("three leased").isEmpty();
    ack("a");
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "10")).containsExactly("b");
    assertThat(Replies.show(h.call("QUEUE.CONFIG", "q")))
        .isEqualTo(
            "{\"rate\"=[(integer) 2, (integer) 1, (integer) 0], \"concurrency\"=(integer) 3,"
                + " \"group-rate\"=(nil), \"group-concurrency\"=(integer) 0, \"results\"=(integer) 0,"
                + " \"events\"=(integer) 0}");
    h.call("QUEUE.CONFIG", "q", "RATE", "OFF", "CONCURRENCY", "OFF");
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "100")).hasSize(16);
  }

  @Test
  void aPausedGroup_waits_whileTheOthersGoOn() {
    add("a", 3);
    add("b", 3);
    assertThat(h.call("QUEUE.PAUSE", "q", "GROUP", "a")).isEqualTo(Reply.integer(1));
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "10")).containsExactly("b", "b", "b");
    assertThat(h.call("QUEUE.RESUME", "q", "GROUP", "a")).isEqualTo(Reply.integer(1));
    assertThat(reserve("QUEUE.RESERVE", "q", "COUNT", "10")).containsExactly("a", "a", "a");
  }

  @Test
  void aReserveBlockedByAConcurrencyLimit_wakesOnTheAckThatFreesASlot() throws Exception {
    Harness real = new Harness();
    real.call("QUEUE.GROUP", "q", "t", "CONCURRENCY", "1");
    real.call("QUEUE.ADD", "q", "one", "ID", "1", "GROUP", "t");
    real.call("QUEUE.ADD", "q", "two", "ID", "2", "GROUP", "t");
    List<Reply> first = ((Reply.Array) real.call("QUEUE.RESERVE", "q", "COUNT", "5")).items();
    assertThat(first).hasSize(1);
    long token = ((Reply.Int) ((Reply.Array) first.get(0)).items().get(2)).value();
    var waiting = ((Reply.Deferred) real.call("QUEUE.RESERVE", "q", "BLOCK", "10s")).future();
    Thread.sleep(300);
    assertThat(waiting).isNotDone();
    real.call("QUEUE.ACK", "q", "1", Long.toString(token));
    assertThat(Replies.show(waiting.get(5, TimeUnit.SECONDS))).startsWith("[[\"2\", \"two\"");
  }

  @Test
  void groupCommands_refuseWhatIsOutOfRange() {
    assertThat(h.show("QUEUE.GROUP", "q", "g", "WEIGHT", "0")).contains("WEIGHT is an integer");
    assertThat(h.show("QUEUE.GROUP", "q", "g", "RATE", "10", "1500ms"))
        .contains("whole number of seconds");
    assertThat(h.show("QUEUE.GROUP", "q", "g", "RATE", "0", "1s")).contains("positive integer");
    assertThat(h.show("QUEUE.GROUP", "q", "g", "CONCURRENCY", "-3")).contains("concurrency is");
    assertThat(h.show("QUEUE.GROUP", "q", "x".repeat(257))).contains("group name is 1 to 256");
    assertThat(h.show("QUEUE.ADD", "q", "p", "GROUP", "")).contains("group name is 1 to 256");
    assertThat(h.show("QUEUE.CONFIG", "q", "RATE", "DEFAULT")).contains("error");
    assertThat(h.show("QUEUE.CONFIG", "free")).isEqualTo("(error) ERR no such queue");
    assertThat(h.show("QUEUE.GROUPS", "free")).isEqualTo("(error) ERR no such queue");
    assertThat(h.show("QUEUE.PAUSE", "q", "GROUPS", "a")).contains("syntax error");
    assertThat(h.show("EXISTS", "q")).isEqualTo("(integer) 0");
  }

  /**
   * A random life of a queue with groups, weights, limits and pauses under a moving clock: the log
   * alone, and a snapshot midway plus the rest, give the live queue byte for byte; once every group
   * is empty and plain again, the queue is written as a plain one.
   */
  @Test
  void groupsAndLimits_replayFromTheLog_andFromASnapshot() throws IOException {
    Recording journal = new Recording();
    h.engine.attach(journal);
    SplittableRandom rnd = new SplittableRandom(4646);
    List<String[]> leases = new ArrayList<>();
    byte[] snapshot = null;
    int snapshotOps = 0;
    for (int step = 0; step < 4000; step++) {
      clock.addAndGet(rnd.nextInt(120));
      int op = rnd.nextInt(20);
      String group = "g" + rnd.nextInt(6);
      if (op < 5) {
        List<String> words = new ArrayList<>(List.of("QUEUE.ADD", "q", group));
        if (rnd.nextInt(5) != 0) {
          words.addAll(List.of("GROUP", group));
        }
        if (rnd.nextBoolean()) {
          words.addAll(List.of("PRIORITY", Integer.toString(rnd.nextInt(3))));
        }
        words.addAll(List.of("ATTEMPTS", "2"));
        h.call(words.toArray(String[]::new));
      } else if (op < 10) {
        Reply r = h.call("QUEUE.RESERVE", "q", "COUNT", "3", "LEASE", "700ms");
        if (r instanceof Reply.Array a) {
          for (Reply job : a.items()) {
            List<Reply> f = ((Reply.Array) job).items();
            leases.add(
                new String[] {text(f.get(0)), Long.toString(((Reply.Int) f.get(2)).value())});
          }
        }
      } else if (op == 10) {
        h.call("QUEUE.GROUP", "q", group, "WEIGHT", Integer.toString(1 + rnd.nextInt(4)));
      } else if (op == 11) {
        h.call(
            "QUEUE.GROUP",
            "q",
            group,
            "RATE",
            Integer.toString(1 + rnd.nextInt(20)),
            "1s",
            "BURST",
            Integer.toString(rnd.nextInt(3)));
      } else if (op == 12) {
        h.call("QUEUE.GROUP", "q", group, "CONCURRENCY", Integer.toString(1 + rnd.nextInt(3)));
      } else if (op == 13) {
        h.call("QUEUE.GROUP", "q", group, "RESET");
      } else if (op == 14) {
        h.call(rnd.nextBoolean() ? "QUEUE.PAUSE" : "QUEUE.RESUME", "q", "GROUP", group);
      } else if (op == 15) {
        h.call(
            "QUEUE.CONFIG",
            "q",
            "RATE",
            rnd.nextBoolean() ? "OFF" : Integer.toString(5 + rnd.nextInt(50)),
            "1s",
            "CONCURRENCY",
            rnd.nextBoolean() ? "OFF" : Integer.toString(2 + rnd.nextInt(8)),
            "GROUP-CONCURRENCY",
            rnd.nextBoolean() ? "OFF" : "2");
      } else if (!leases.isEmpty()) {
        String[] j = leases.remove(rnd.nextInt(leases.size()));
        switch (op) {
          case 16, 17 -> h.call("QUEUE.ACK", "q", j[0], j[1]);
          case 18 -> h.call("QUEUE.FAIL", "q", j[0], j[1], "e" + step);
          default -> h.call("QUEUE.CANCEL", "q", j[0]);
        }
      }
      if (step == 2000) {
        snapshot = CuckooCodecTest.written(QueueCodec.INSTANCE, live());
        snapshotOps = journal.of(h, "q").ops().size();
      }
    }
    Logged logged = journal.of(h, "q");
    byte[] live = QueueReplay.check(live(), logged, snapshot, snapshotOps, clock.get());
    assertThat(live[0]).isEqualTo((byte) 3);
    // Every group reset and emptied, the limits off: after the rates are full again, the groups
    // are dropped and the queue is plain.
    h.call("QUEUE.CONFIG", "q", "RATE", "OFF", "CONCURRENCY", "OFF", "GROUP-CONCURRENCY", "OFF");
    for (int g = 0; g < 6; g++) {
      h.call("QUEUE.GROUP", "q", "g" + g, "RESET");
      h.call("QUEUE.RESUME", "q", "GROUP", "g" + g);
    }
    h.call("QUEUE.RESUME", "q");
    for (int i = 0; i < 20; i++) {
      clock.addAndGet(3_600_000);
      Reply r = h.call("QUEUE.RESERVE", "q", "COUNT", "1000", "LEASE", "1s");
      for (Reply job : ((Reply.Array) r).items()) {
        List<Reply> f = ((Reply.Array) job).items();
        h.call("QUEUE.ACK", "q", text(f.get(0)), Long.toString(((Reply.Int) f.get(2)).value()));
      }
      h.call("QUEUE.PURGE", "q");
    }
    assertThat(h.show("QUEUE.GROUPS", "q")).isEqualTo("[]");
    assertThat(CuckooCodecTest.written(QueueCodec.INSTANCE, live())[0]).isEqualTo((byte) 2);
    assertThat(
            CuckooCodecTest.written(
                QueueCodec.INSTANCE, journal.of(h, "q").replay(QueueCodec.INSTANCE)))
        .isEqualTo(CuckooCodecTest.written(QueueCodec.INSTANCE, live()));
  }
}
