package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.dispatch.CommandSpec;
import io.idem.server.reply.Replies;
import io.idem.server.reply.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * QUEUE.JOBS through the dispatcher at a clock the test moves: its filters, its cursor through a
 * whole queue (and through one that changes between pages), its errors.
 */
class QueueJobsTest {

  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final Harness h = new Harness(clock::get);

  private String show(String... words) {
    return h.show(words);
  }

  private static String text(Reply r) {
    return new String(((Reply.Bulk) r).bytes(), StandardCharsets.UTF_8);
  }

  /** One reply of QUEUE.JOBS: its cursor, and its jobs as maps of field to value. */
  private record Page(String cursor, List<Map<String, Reply>> jobs) {}

  private Page page(String... words) {
    Reply r = h.call(words);
    assertThat(r).as(Replies.show(r)).isInstanceOf(Reply.Array.class);
    List<Reply> two = ((Reply.Array) r).items();
    assertThat(two).hasSize(2);
    List<Map<String, Reply>> jobs = new ArrayList<>();
    for (Reply job : ((Reply.Array) two.get(1)).items()) {
      List<Reply> kv = ((Reply.Map) job).keysAndValues();
      Map<String, Reply> fields = new LinkedHashMap<>();
      for (int i = 0; i < kv.size(); i += 2) {
        fields.put(text(kv.get(i)), kv.get(i + 1));
      }
      jobs.add(fields);
    }
    return new Page(text(two.get(0)), jobs);
  }

  /**
   * Walks the queue with these options from cursor 0 until the cursor is 0 again, {@code between}
   * run after each page but the last; the ids listed, in order, each page at most {@code count}.
   */
  private List<String> walk(int count, Runnable between, String... options) {
    List<String> ids = new ArrayList<>();
    String cursor = "0";
    for (int calls = 1; ; calls++) {
      assertThat(calls).as("calls of one walk").isLessThan(10_000);
      List<String> words = new ArrayList<>(List.of("QUEUE.JOBS", "q"));
      words.addAll(List.of(options));
      words.addAll(List.of("CURSOR", cursor, "COUNT", Integer.toString(count)));
      Page p = page(words.toArray(String[]::new));
      assertThat(p.jobs().size()).isLessThanOrEqualTo(count);
      for (Map<String, Reply> job : p.jobs()) {
        ids.add(text(job.get("id")));
      }
      cursor = p.cursor();
      if (cursor.equals("0")) {
        return ids;
      }
      between.run();
    }
  }

  private List<String> ids(String... options) {
    return walk(1000, () -> {}, options);
  }

  /** Reserves one job with a lease of an hour; its token. */
  private String reserveOne(String id) {
    List<Reply> f =
        ((Reply.Array)
                ((Reply.Array) h.call("QUEUE.RESERVE", "q", "LEASE", "1h")).items().getFirst())
            .items();
    assertThat(text(f.get(0))).isEqualTo(id);
    return Long.toString(((Reply.Int) f.get(2)).value());
  }

  @Test
  void jobs_filteredByState_listEachJobInItsStateAsOfNow() {
    show("QUEUE.ADD", "q", "x", "ID", "x1");
    show("QUEUE.FAIL", "q", "x1", reserveOne("x1"), "boom"); // its only attempt: dead
    show("QUEUE.ADD", "q", "l", "ID", "l1");
    reserveOne("l1"); // leased for an hour
    show("QUEUE.ADD", "q", "r", "ID", "r1");
    show("QUEUE.ADD", "q", "r", "ID", "r2");
    show("QUEUE.ADD", "q", "d", "ID", "d1", "DELAY", "1h");
    show("QUEUE.FLOW", "q", "p", "ID", "p", "CHILD", "c", "ID", "c");

    assertThat(ids()).containsExactlyInAnyOrder("x1", "l1", "r1", "r2", "d1", "p", "c");
    assertThat(ids("STATE", "ready")).containsExactlyInAnyOrder("r1", "r2", "c");
    assertThat(ids("STATE", "READY")).containsExactlyInAnyOrder("r1", "r2", "c");
    assertThat(ids("STATE", "delayed")).containsExactly("d1");
    assertThat(ids("STATE", "leased")).containsExactly("l1");
    assertThat(ids("STATE", "dead")).containsExactly("x1");
    assertThat(ids("STATE", "waiting-children")).containsExactly("p");

    // A job's map is QUEUE.JOB's, its id first.
    Reply one = ((Reply.Array) h.call("QUEUE.JOBS", "q", "MATCH", "x1")).items().get(1);
    assertThat(Replies.show(one))
        .isEqualTo("[{\"id\"=\"x1\", " + show("QUEUE.JOB", "q", "x1").substring(1) + "]");
    Map<String, Reply> x1 = page("QUEUE.JOBS", "q", "MATCH", "x1").jobs().getFirst();
    assertThat(text(x1.get("state"))).isEqualTo("dead");
    assertThat(text(x1.get("payload"))).isEqualTo("x");
    assertThat(x1.get("attempts")).isEqualTo(Reply.integer(1));
    assertThat(x1.get("group")).isEqualTo(Reply.NULL);

    // An hour on, with no reserve since: the delayed job is due, the lease's end made l1 dead.
    clock.addAndGet(3_600_000);
    assertThat(ids("STATE", "ready")).containsExactlyInAnyOrder("r1", "r2", "c", "d1");
    assertThat(ids("STATE", "dead")).containsExactlyInAnyOrder("x1", "l1");
    assertThat(ids("STATE", "leased")).isEmpty();
    assertThat(ids("STATE", "delayed")).isEmpty();
  }

  @Test
  void jobs_filteredByGroupAndMatch_listOnlyTheirJobs() {
    h.call(
        "QUEUE.MADD", "q", "GROUP", "acme", "JOB", "a", "ID", "order-1", "JOB", "a", "ID", "x-2");
    h.call("QUEUE.MADD", "q", "GROUP", "zeta", "JOB", "z", "ID", "order-12");
    h.call("QUEUE.MADD", "q", "JOB", "n", "ID", "order-13", "JOB", "n", "ID", "Order-2");

    assertThat(ids("GROUP", "acme")).containsExactlyInAnyOrder("order-1", "x-2");
    assertThat(ids("GROUP", "zeta")).containsExactly("order-12");
    assertThat(show("QUEUE.JOBS", "q", "GROUP", "nobody")).isEqualTo("[\"0\", []]");
    assertThat(text(page("QUEUE.JOBS", "q", "GROUP", "zeta").jobs().getFirst().get("group")))
        .isEqualTo("zeta");

    assertThat(ids("MATCH", "order-*"))
        .containsExactlyInAnyOrder("order-1", "order-12", "order-13");
    assertThat(ids("MATCH", "order-1?")).containsExactlyInAnyOrder("order-12", "order-13");
    assertThat(ids("MATCH", "[ox]*"))
        .containsExactlyInAnyOrder("order-1", "order-12", "order-13", "x-2");
    assertThat(ids("MATCH", "*")).hasSize(5);
    assertThat(ids("MATCH", "nothing*")).isEmpty();
    assertThat(ids("GROUP", "acme", "MATCH", "order-*")).containsExactly("order-1");
    assertThat(ids("GROUP", "zeta", "STATE", "delayed")).isEmpty();
  }

  @Test
  void paging_withASmallCount_listsEveryJobOnce() {
    List<String> words = new ArrayList<>(List.of("QUEUE.MADD", "q"));
    Set<String> all = new HashSet<>();
    Set<String> delayed = new HashSet<>();
    for (int i = 0; i < 500; i++) {
      String id = String.format("job-%04d", i);
      words.addAll(List.of("JOB", "p" + i, "ID", id));
      all.add(id);
      if (i % 3 == 0) {
        words.addAll(List.of("DELAY", "1h"));
        delayed.add(id);
      }
    }
    h.call(words.toArray(String[]::new));

    List<String> listed = walk(7, () -> {});
    assertThat(listed).doesNotHaveDuplicates();
    assertThat(new HashSet<>(listed)).isEqualTo(all);
    List<String> listedDelayed = walk(3, () -> {}, "STATE", "delayed");
    assertThat(listedDelayed).doesNotHaveDuplicates();
    assertThat(new HashSet<>(listedDelayed)).isEqualTo(delayed);
    assertThat(walk(1, () -> {})).containsExactlyElementsOf(walk(1000, () -> {}));

    // A filter that keeps nothing still answers at once: an empty page, and the cursor goes on.
    Page first = page("QUEUE.JOBS", "q", "MATCH", "none", "COUNT", "1");
    assertThat(first.jobs()).isEmpty();
    assertThat(first.cursor()).isNotEqualTo("0");
    assertThat(walk(1, () -> {}, "MATCH", "none")).isEmpty();
  }

  /**
   * While jobs come and go between pages, so that the index shrinks and grows under the cursor, a
   * job there throughout is listed once, and no id twice.
   */
  @Test
  void paging_whileTheQueueChanges_listsTheJobsThereThroughoutOnce() {
    List<String> words = new ArrayList<>(List.of("QUEUE.MADD", "q"));
    Set<String> kept = new HashSet<>();
    List<String> temporary = new ArrayList<>();
    for (int i = 0; i < 900; i++) {
      String id = String.format(i < 200 ? "keep-%04d" : "temp-%04d", i);
      words.addAll(List.of("JOB", "p", "ID", id));
      if (i < 200) {
        kept.add(id);
      } else {
        temporary.add(id);
      }
    }
    h.call(words.toArray(String[]::new));
    int[] added = {0};
    Runnable churn =
        () -> {
          if (!temporary.isEmpty()) {
            List<String> cancel = new ArrayList<>(List.of("QUEUE.CANCEL", "q"));
            for (int i = 0; i < 40 && !temporary.isEmpty(); i++) {
              cancel.add(temporary.removeLast());
            }
            h.call(cancel.toArray(String[]::new));
          } else {
            List<String> more = new ArrayList<>(List.of("QUEUE.MADD", "q"));
            for (int i = 0; i < 40; i++) {
              more.addAll(List.of("JOB", "p", "ID", String.format("new-%05d", added[0]++)));
            }
            h.call(more.toArray(String[]::new));
          }
        };
    List<String> listed = walk(10, churn);
    assertThat(listed).doesNotHaveDuplicates();
    assertThat(listed).containsAll(kept);
    assertThat(added[0]).as("jobs added after the drain").isGreaterThan(600);
  }

  @Test
  void badArguments_freeKeyAndWrongType() {
    h.call("QUEUE.ADD", "q", "p");
    for (String count : List.of("0", "1001", "x", "-1")) {
      assertThat(show("QUEUE.JOBS", "q", "COUNT", count))
          .isEqualTo("(error) ERR COUNT is an integer from 1 to 1000");
    }
    assertThat(show("QUEUE.JOBS", "q", "STATE", "waiting"))
        .isEqualTo("(error) ERR STATE is ready, delayed, leased, dead or waiting-children");
    for (String cursor : List.of("-1", "x", "4294967296", "18446744073709551615")) {
      assertThat(show("QUEUE.JOBS", "q", "CURSOR", cursor)).isEqualTo("(error) ERR invalid cursor");
    }
    assertThat(show("QUEUE.JOBS", "q", "CURSOR", "4294967295")).startsWith("[\"0\", [");
    assertThat(show("QUEUE.JOBS", "q", "COUNT")).isEqualTo("(error) ERR syntax error");
    assertThat(show("QUEUE.JOBS", "q", "LIMIT", "5")).isEqualTo("(error) ERR syntax error");
    assertThat(show("QUEUE.JOBS", "q", "GROUP", "")).contains("a group name is 1 to");

    assertThat(show("QUEUE.JOBS", "free")).isEqualTo("[\"0\", []]");
    assertThat(show("QUEUE.JOBS", "free", "STATE", "dead", "CURSOR", "77"))
        .isEqualTo("[\"0\", []]");
    assertThat(show("TYPE", "free")).isEqualTo("none");
    h.call("BF.ADD", "bf", "x");
    assertThat(show("QUEUE.JOBS", "bf")).startsWith("(error) WRONGTYPE");
    assertThat(h.commands.get("queue.jobs").has(CommandSpec.Flag.READONLY)).isTrue();
    assertThat(h.commands.get("queue.jobs").has(CommandSpec.Flag.WRITE)).isFalse();
  }
}
