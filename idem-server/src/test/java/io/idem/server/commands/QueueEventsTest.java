package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.reply.Replies;
import io.idem.server.reply.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** QUEUE.EVENTS: the ring of what happened to jobs, read by a cursor, at a clock the test moves. */
class QueueEventsTest {

  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final Harness h = new Harness(clock::get);

  private String token(String id) {
    Reply r = h.call("QUEUE.RESERVE", "q", "LEASE", "10s");
    List<Reply> f = ((Reply.Array) ((Reply.Array) r).items().get(0)).items();
    assertThat(new String(((Reply.Bulk) f.get(0)).bytes(), StandardCharsets.UTF_8)).isEqualTo(id);
    return Long.toString(((Reply.Int) f.get(2)).value());
  }

  /** The events after {@code from}, each as "id time type job detail". */
  private List<String> events(String... options) {
    List<String> words = new ArrayList<>(List.of("QUEUE.EVENTS", "q"));
    words.addAll(List.of(options));
    List<String> out = new ArrayList<>();
    for (Reply e : ((Reply.Array) h.call(words.toArray(String[]::new))).items()) {
      List<Reply> f = ((Reply.Array) e).items();
      out.add(
          ((Reply.Int) f.get(0)).value()
              + " "
              + ((Reply.Int) f.get(1)).value()
              + " "
              + Replies.show(f.get(2)).replace("\"", "")
              + " "
              + Replies.show(f.get(3)).replace("\"", "")
              + " "
              + Replies.show(f.get(4)).replace("\"", ""));
    }
    return out;
  }

  @Test
  void everyChange_isAnEvent_withItsTime_andTheRingKeepsTheLast() {
    assertThat(h.show("QUEUE.CONFIG", "q", "EVENTS", "5")).contains("\"events\"=(integer) 5");
    h.call("QUEUE.ADD", "q", "p", "ID", "a", "ATTEMPTS", "2");
    clock.addAndGet(10);
    String t1 = token("a");
    clock.addAndGet(10);
    h.call("QUEUE.PROGRESS", "q", "a", t1, "half");
    h.call("QUEUE.FAIL", "q", "a", t1, "boom");
    String t2 = token("a");
    clock.addAndGet(10);
    h.call("QUEUE.ACK", "q", "a", t2);
    assertThat(events())
        .containsExactly(
            "2 1000010 leased a 1",
            "3 1000020 progress a half",
            "4 1000020 failed a boom",
            "5 1000020 leased a 2",
            "6 1000030 done a ");
    assertThat(events("FROM", "4", "COUNT", "1")).containsExactly("5 1000020 leased a 2");
    assertThat(events("FROM", "$")).isEmpty();
    assertThat(h.show("QUEUE.EVENTS", "q", "FROM", "0")).contains("events before 2 are gone");
    h.call("QUEUE.ADD", "q", "p", "ID", "b");
    h.call("QUEUE.CANCEL", "q", "b");
    assertThat(events("FROM", "6")).containsExactly("7 1000030 added b ", "8 1000030 cancelled b ");
    h.call("QUEUE.CONFIG", "q", "EVENTS", "OFF");
    h.call("QUEUE.ADD", "q", "p", "ID", "c");
    assertThat(events()).isEmpty();
    assertThat(h.show("QUEUE.EVENTS", "free")).isEqualTo("(error) ERR no such queue");
    assertThat(h.show("QUEUE.CONFIG", "q", "EVENTS", "0")).contains("EVENTS is how many to keep");
  }

  @Test
  void aBlockedReader_wakesOnTheNextEvent() throws Exception {
    Harness real = new Harness();
    real.call("QUEUE.CONFIG", "q", "EVENTS", "100");
    var waiting =
        ((Reply.Deferred) real.call("QUEUE.EVENTS", "q", "FROM", "$", "BLOCK", "10s")).future();
    Thread.sleep(200);
    assertThat(waiting).isNotDone();
    real.call("QUEUE.ADD", "q", "p", "ID", "x");
    assertThat(Replies.show(waiting.get(5, TimeUnit.SECONDS))).contains("\"added\", \"x\"");
    var timeout =
        ((Reply.Deferred) real.call("QUEUE.EVENTS", "q", "FROM", "$", "BLOCK", "200ms")).future();
    assertThat(timeout.get(5, TimeUnit.SECONDS)).isEqualTo(Reply.NULL_ARRAY);
  }
}
