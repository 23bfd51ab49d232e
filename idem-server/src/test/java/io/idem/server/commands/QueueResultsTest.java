package io.idem.server.commands;

import static io.idem.server.commands.Harness.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.commands.CuckooCodecTest.Logged;
import io.idem.server.commands.CuckooCodecTest.Recording;
import io.idem.server.commands.queue.QueueCodec;
import io.idem.server.reply.Reply;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** QUEUE.COMPLETE and QUEUE.RESULT: results kept as rows for a retention, at a moved clock. */
class QueueResultsTest {

  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final Harness h = new Harness(clock::get);

  private String lease(String id) {
    h.call("QUEUE.ADD", "q", "payload of " + id, "ID", id, "ATTEMPTS", "3");
    Reply r = h.call("QUEUE.RESERVE", "q");
    List<Reply> f = ((Reply.Array) ((Reply.Array) r).items().get(0)).items();
    assertThat(new String(((Reply.Bulk) f.get(0)).bytes(), StandardCharsets.UTF_8)).isEqualTo(id);
    return Long.toString(((Reply.Int) f.get(2)).value());
  }

  @Test
  void aResult_isReadableForTheRetention_andGoneAfter() {
    assertThat(h.show("QUEUE.CONFIG", "q", "RESULTS", "1h"))
        .contains("\"results\"=(integer) 3600000");
    String t = lease("a");
    assertThat(h.show("QUEUE.COMPLETE", "q", "a", t, "RESULT", "{\"sent\":true}"))
        .isEqualTo("\"done\"");
    assertThat(h.show("QUEUE.COMPLETE", "q", "a", t, "RESULT", "again")).isEqualTo("(nil)");
    assertThat(h.show("QUEUE.RESULT", "q", "a"))
        .isEqualTo(
            "{\"state\"=\"done\", \"completed\"=(integer) 1000000, \"attempts\"=(integer) 1,"
                + " \"result\"=\"{\"sent\":true}\"}");
    String b = lease("b");
    assertThat(h.show("QUEUE.ACK", "q", "b", b)).isEqualTo("(integer) 1");
    assertThat(h.show("QUEUE.RESULT", "q", "b")).contains("\"result\"=(nil)");
    assertThat(h.show("QUEUE.RESULT", "q", "never")).isEqualTo("(nil)");
    clock.addAndGet(3_600_000); // an hour: still there (a slice's width more at most)
    assertThat(h.show("QUEUE.RESULT", "q", "a")).startsWith("{\"state\"=\"done\"");
    clock.addAndGet(225_000); // the retention plus a slice (1h / 16): gone, background or not
    assertThat(h.show("QUEUE.RESULT", "q", "a")).isEqualTo("(nil)");
    assertThat(h.show("QUEUE.RESULT", "free", "a")).isEqualTo("(error) ERR no such queue");
  }

  @Test
  void aCancelledJobs_completeSaysSo_andKeepsNoResult() {
    h.call("QUEUE.CONFIG", "q", "RESULTS", "1d");
    String t = lease("c");
    h.call("QUEUE.CANCEL", "q", "c");
    assertThat(h.show("QUEUE.COMPLETE", "q", "c", t, "RESULT", "x")).isEqualTo("\"cancelled\"");
    assertThat(h.show("QUEUE.RESULT", "q", "c")).isEqualTo("(nil)");
    assertThat(h.show("QUEUE.COMPLETE", "q", "c", t, "RESULT")).contains("syntax error");
    assertThat(h.show("QUEUE.COMPLETE", "q", "c", t, "RESULT", "x".repeat(512 * 1024 + 1)))
        .contains("at most 524288 bytes");
  }

  @Test
  void withoutRetention_noRowIsWritten_andCompleteIsAnAck() {
    Recording journal = new Recording(true);
    h.engine.attach(journal);
    String t = lease("d");
    assertThat(h.show("QUEUE.COMPLETE", "q", "d", t, "RESULT", "kept nowhere"))
        .isEqualTo("\"done\"");
    assertThat(h.show("QUEUE.RESULT", "q", "d")).isEqualTo("(nil)");
    assertThat(h.show("QUEUE.ADD", "q", "x", "ID", "d")).startsWith("[\"new\"");
  }

  /**
   * Old slices leave by one range delete an op carries (the background alone; WINDOWDUE on a node
   * with a log), and a replay of the log gives the same queue while the rows are the store's.
   */
  @Test
  void oldSlices_leaveByOneRangeDelete() throws Exception {
    Recording journal = new Recording(true);
    h.engine.attach(journal);
    h.call("QUEUE.CONFIG", "q", "RESULTS", "16s"); // slices of a second
    for (int i = 0; i < 40; i++) {
      String t = lease("j" + i);
      h.call("QUEUE.COMPLETE", "q", "j" + i, t, "RESULT", "r" + i);
      clock.addAndGet(1_000);
      h.engine.runBackground();
    }
    Logged logged = journal.of(h, "q");
    long drops = logged.ops().stream().filter(o -> o.op() == 24).count();
    assertThat(drops).as("one drop a slice that left").isBetween(23L, 25L);
    assertThat(h.show("QUEUE.RESULT", "q", "j39")).contains("\"result\"=\"r39\"");
    assertThat(h.show("QUEUE.RESULT", "q", "j10")).isEqualTo("(nil)");
    assertThat(CuckooCodecTest.written(QueueCodec.INSTANCE, logged.replay(QueueCodec.INSTANCE)))
        .isEqualTo(
            CuckooCodecTest.written(
                QueueCodec.INSTANCE,
                h.engine.read(bytes("q"), e -> e.valueAs(QueueCodec.INSTANCE))));
  }
}
