package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.commands.CuckooCodecTest.Op;
import io.idem.server.commands.CuckooCodecTest.Recording;
import io.idem.server.commands.queue.JobQueue;
import io.idem.server.commands.queue.QueueCodec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The queue's durable formats, pinned by golden files: the operations a scripted life of a queue
 * logs (every op a plain queue writes) and the snapshot they replay into. A later Idem must replay
 * these bytes into the same queue, so a change to the layouts shows here as a failure, not as a
 * queue that loads differently. Version 1 snapshots and the legacy ops 3-6 (no longer written) are
 * built here from their byte tables in QueueCodec's comment.
 *
 * <p>To write the golden files again after a deliberate change of format (never for a plain queue:
 * old logs must keep loading): {@code -Didem.golden.write=idem-server/src/test/resources/queue}.
 */
class QueueFormatGoldenTest {

  private final AtomicLong clock = new AtomicLong(1_700_000_000_000L);
  private final Harness h = new Harness(clock::get);

  /** A queue's life touching every op a plain queue logs, at fixed times. Its ops, in order. */
  private List<Op> script() {
    Recording journal = new Recording();
    h.engine.attach(journal);
    h.call("QUEUE.ADD", "q", "first");
    h.call("QUEUE.ADD", "q", "urgent", "PRIORITY", "5", "ID", "u-1", "UNIQUE", "1h");
    h.call("QUEUE.ADD", "q", "later", "DELAY", "10s", "ATTEMPTS", "3", "BACKOFF", "EXPONENTIAL");
    h.call("QUEUE.ADD", "q", "retry", "ID", "r", "ATTEMPTS", "2", "BACKOFF", "FIXED", "2s");
    h.call(
        "QUEUE.ADD", "q", "at", "AT", "1700000100000", "BACKOFF", "EXPONENTIAL", "1s", "MAX", "9s");
    clock.addAndGet(5);
    List<String[]> leases = leases(h.call("QUEUE.RESERVE", "q", "COUNT", "3", "LEASE", "5s"));
    clock.addAndGet(5);
    h.call("QUEUE.ACK", "q", leases.get(0)[0], leases.get(0)[1]); // u-1: done, unique for 1 h
    h.call("QUEUE.FAIL", "q", leases.get(1)[0], leases.get(1)[1], "boom \u00e9"); // first: dead
    h.call("QUEUE.EXTEND", "q", leases.get(2)[0], leases.get(2)[1], "1m");
    h.call("QUEUE.RELEASE", "q", leases.get(2)[0], leases.get(2)[1], "DELAY", "1s");
    clock.addAndGet(1_000);
    List<String[]> again = leases(h.call("QUEUE.RESERVE", "q", "LEASE", "1s"));
    h.call("QUEUE.FAIL", "q", again.get(0)[0], again.get(0)[1], "once"); // r: retry in 2 s
    clock.addAndGet(5_000); // r due again
    leases(h.call("QUEUE.RESERVE", "q", "LEASE", "1s")); // r, its last attempt
    clock.addAndGet(2_000);
    h.call("QUEUE.RESERVE", "q"); // ends r's lease: r is dead (a logged empty reserve)
    h.call("QUEUE.REPLAY", "q", "r");
    h.call("QUEUE.ADD", "q", "doomed", "ID", "d");
    leases(h.call("QUEUE.RESERVE", "q", "COUNT", "5", "LEASE", "30s"));
    clock.addAndGet(40_000); // every lease ended
    h.call("QUEUE.RESERVE", "q", "COUNT", "1");
    h.call("QUEUE.PURGE", "q");
    h.call("QUEUE.REPLAY", "q", "ALL");
    h.call("QUEUE.ADD", "q", "after", "ID", "u-1"); // a duplicate: its unique window holds
    h.call("QUEUE.ADD", "q", "last words", "ID", "z", "PRIORITY", "9");
    List<String[]> z = leases(h.call("QUEUE.RESERVE", "q"));
    h.call("QUEUE.FAIL", "q", z.get(0)[0], z.get(0)[1], "left dead"); // in the snapshot's dead
    return journal.of(h, "q").ops();
  }

  private static List<String[]> leases(io.idem.server.reply.Reply r) {
    List<String[]> out = new ArrayList<>();
    for (var job : ((io.idem.server.reply.Reply.Array) r).items()) {
      var f = ((io.idem.server.reply.Reply.Array) job).items();
      out.add(
          new String[] {
            new String(
                ((io.idem.server.reply.Reply.Bulk) f.get(0)).bytes(), StandardCharsets.UTF_8),
            Long.toString(((io.idem.server.reply.Reply.Int) f.get(2)).value())
          });
    }
    return out;
  }

  private static byte[] encode(List<Op> ops) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    for (Op op : ops) {
      out.writeByte(op.op());
      out.writeInt(op.payload().length);
      out.write(op.payload());
    }
    return bytes.toByteArray();
  }

  private static List<Op> decode(byte[] b) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(b));
    List<Op> ops = new ArrayList<>();
    while (in.available() > 0) {
      byte op = in.readByte();
      byte[] payload = new byte[in.readInt()];
      in.readFully(payload);
      ops.add(new Op(op, payload));
    }
    return ops;
  }

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = QueueFormatGoldenTest.class.getResourceAsStream(name)) {
      assertThat(in).as("golden file %s", name).isNotNull();
      return in.readAllBytes();
    }
  }

  private static JobQueue replay(List<Op> ops) throws IOException {
    JobQueue q = QueueCodec.INSTANCE.create(new byte[] {1});
    for (Op op : ops) {
      QueueCodec.INSTANCE.apply(q, op.op(), op.payload());
    }
    return q;
  }

  private static byte[] snapshot(JobQueue q) throws IOException {
    return CuckooCodecTest.written(QueueCodec.INSTANCE, q);
  }

  @Test
  void aPlainQueuesOps_andTheirSnapshot_areTheGoldenBytes() throws IOException {
    List<Op> ops = script();
    assertThat(ops.stream().map(Op::op).distinct().sorted())
        .as("the script logs every op a plain queue writes")
        .containsExactly(
            (byte) 1, (byte) 2, (byte) 7, (byte) 8, (byte) 9, (byte) 10, (byte) 11, (byte) 12);
    checkGolden(ops, "plain-ops-v1.bin", "plain-snapshot-v2.bin", 2);
  }

  /** Pause, cancel and progress: ops 13 to 15, and the version 3 snapshot's sections. */
  @Test
  void theControlOps_andAVersion3Snapshot_areTheGoldenBytes() throws IOException {
    Recording journal = new Recording();
    h.engine.attach(journal);
    h.call("QUEUE.MADD", "q", "ATTEMPTS", "3", "JOB", "a", "ID", "a", "JOB", "b", "ID", "b");
    h.call("QUEUE.MADD", "q", "JOB", "c", "ID", "c", "DELAY", "1m", "JOB", "d", "ID", "d");
    h.call("QUEUE.PAUSE", "q");
    clock.addAndGet(10);
    h.call("QUEUE.RESUME", "q");
    List<String[]> leased = leases(h.call("QUEUE.RESERVE", "q", "COUNT", "2", "LEASE", "1h"));
    h.call("QUEUE.PROGRESS", "q", leased.get(0)[0], leased.get(0)[1], "{\"step\":2}");
    h.call("QUEUE.CANCEL", "q", leased.get(1)[0], "c");
    h.call("QUEUE.PAUSE", "q");
    List<Op> ops = journal.of(h, "q").ops();
    assertThat(ops.stream().map(Op::op).distinct().sorted())
        .containsExactly((byte) 1, (byte) 2, (byte) 13, (byte) 14, (byte) 15);
    checkGolden(ops, "control-ops-v1.bin", "control-snapshot-v3.bin", 3);
  }

  /**
   * Groups, limits, schedules, results and events: ops 16 to 25, and the version 3 snapshot's
   * sections 3 to 8. The background round fires the schedule and drops the old results, as a server
   * alone does.
   */
  @Test
  void theGroupScheduleAndResultOps_andTheirSnapshot_areTheGoldenBytes() throws IOException {
    Recording journal = new Recording(true);
    h.engine.attach(journal);
    h.call("QUEUE.CONFIG", "q", "RATE", "100", "1s", "BURST", "5", "GROUP-CONCURRENCY", "2");
    h.call("QUEUE.CONFIG", "q", "RESULTS", "16s", "EVENTS", "8");
    h.call("QUEUE.GROUP", "q", "acme", "WEIGHT", "3", "RATE", "10", "1m");
    h.call("QUEUE.MADD", "q", "GROUP", "acme", "JOB", "a1", "ID", "a1", "JOB", "a2", "ID", "a2");
    h.call("QUEUE.ADD", "q", "b1", "ID", "b1", "GROUP", "beta");
    h.call("QUEUE.SCHEDULE", "q", "tick", "EVERY", "10s", "ALIGN", "t", "GROUP", "beta");
    h.call("QUEUE.SCHEDULE", "q", "gone", "EVERY", "1h", "g");
    h.call("QUEUE.UNSCHEDULE", "q", "gone");
    h.engine.runBackground();
    clock.addAndGet(10_000);
    h.engine.runBackground();
    List<String[]> leased = leases(h.call("QUEUE.RESERVE", "q", "COUNT", "10", "LEASE", "1h"));
    h.call("QUEUE.COMPLETE", "q", leased.get(0)[0], leased.get(0)[1], "RESULT", "r0");
    h.call("QUEUE.ACK", "q", leased.get(1)[0], leased.get(1)[1]);
    clock.addAndGet(20_000);
    h.engine.runBackground();
    h.call("QUEUE.PAUSE", "q", "GROUP", "acme");
    List<Op> ops = journal.of(h, "q").ops();
    assertThat(ops.stream().map(Op::op).filter(o -> o >= 16).distinct().sorted())
        .containsExactly(
            (byte) 16, (byte) 17, (byte) 18, (byte) 19, (byte) 20, (byte) 21, (byte) 22, (byte) 23,
            (byte) 24, (byte) 25);
    checkGolden(ops, "features-ops-v1.bin", "features-snapshot-v3.bin", 3);
  }

  /** Flows: op 26, a job waiting for children (state 3), and the snapshot's section 9. */
  @Test
  void theFlowOp_andItsSnapshot_areTheGoldenBytes() throws IOException {
    Recording journal = new Recording(true);
    h.engine.attach(journal);
    h.call(
        "QUEUE.FLOW",
        "q",
        "root",
        "ID",
        "root",
        "ONCHILDFAIL",
        "HOLD",
        "CHILD",
        "a",
        "ID",
        "a",
        "GROUP",
        "g",
        "ATTEMPTS",
        "1",
        "CHILD",
        "b",
        "ID",
        "b",
        "ONCHILDFAIL",
        "IGNORE",
        "CHILD",
        "b1",
        "ID",
        "b1",
        "PARENT",
        "b",
        "DELAY",
        "1m",
        "CHILD",
        "c",
        "PRIORITY",
        "5");
    List<String[]> leased = leases(h.call("QUEUE.RESERVE", "q", "COUNT", "10", "LEASE", "1h"));
    h.call("QUEUE.FAIL", "q", leased.get(0)[0], leased.get(0)[1], "broken");
    h.call("QUEUE.COMPLETE", "q", leased.get(1)[0], leased.get(1)[1], "RESULT", "r");
    List<Op> ops = journal.of(h, "q").ops();
    assertThat(ops.stream().map(Op::op).distinct().sorted())
        .containsExactly((byte) 2, (byte) 10, (byte) 22, (byte) 26);
    checkGolden(ops, "flow-ops-v1.bin", "flow-snapshot-v3.bin", 3);
  }

  /**
   * The ops logged today are the golden ones, and the golden ops replay into the golden snapshot,
   * which reads and writes back to the same bytes.
   */
  private void checkGolden(List<Op> ops, String opsFile, String snapshotFile, int version)
      throws IOException {
    String write = System.getProperty("idem.golden.write");
    if (write != null) {
      Files.write(Path.of(write, opsFile), encode(ops));
      Files.write(Path.of(write, snapshotFile), snapshot(replay(ops)));
    }
    assertThat(encode(ops)).as("the ops logged today").isEqualTo(resource("/queue/" + opsFile));
    byte[] golden = resource("/queue/" + snapshotFile);
    assertThat(golden[0]).as("the snapshot's version").isEqualTo((byte) version);
    assertThat(snapshot(replay(decode(resource("/queue/" + opsFile)))))
        .as("the golden ops replayed")
        .isEqualTo(golden);
    assertThat(snapshot(h.engine.read(Harness.bytes("q"), e -> e.valueAs(QueueCodec.INSTANCE))))
        .as("the live queue")
        .isEqualTo(golden);
    JobQueue read = QueueCodec.INSTANCE.read(new ByteArrayInputStream(golden), golden.length);
    assertThat(snapshot(read)).as("the golden snapshot read and written").isEqualTo(golden);
  }

  /**
   * A version 1 snapshot, from its byte table: no tokens, a leased job's token is its attempt. It
   * reads, leases on, and acks by the token of that attempt.
   */
  @Test
  void aVersion1Snapshot_readsWithTheAttemptAsTheToken() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeByte(1);
    out.writeLong(3); // next seq
    out.writeInt(2); // jobs
    job(out, 1, "a", "leased one", 2, 1, 1_700_000_060_000L, 1);
    job(out, 2, "b", "waiting", 0, 0, 0, 0);
    out.writeInt(0); // dead
    out.writeInt(1); // done ids
    writeBytes(out, "gone");
    out.writeLong(1_700_003_600_000L);
    byte[] v1 = bytes.toByteArray();
    JobQueue q = QueueCodec.INSTANCE.read(new ByteArrayInputStream(v1), v1.length);
    Harness n = new Harness(clock::get);
    n.engine.write(
        Harness.bytes("q"),
        tx -> {
          tx.create(QueueCodec.INSTANCE, q, new byte[] {1});
          return null;
        });
    assertThat(n.show("QUEUE.INFO", "q")).contains("\"leased\"=(integer) 1");
    assertThat(n.show("QUEUE.ACK", "q", "a", "1")).isEqualTo("(integer) 1");
    assertThat(n.show("QUEUE.ADD", "q", "x", "ID", "gone")).startsWith("[\"duplicate\"");
    assertThat(n.show("QUEUE.RESERVE", "q")).startsWith("[[\"b\", \"waiting\"");
  }

  private static void job(
      DataOutputStream out,
      long seq,
      String id,
      String payload,
      int maxAttempts,
      int attempts,
      long leaseUntil,
      int state)
      throws IOException {
    out.writeLong(seq);
    writeBytes(out, id);
    writeBytes(out, payload);
    out.writeInt(0); // priority
    out.writeLong(1_700_000_000_000L); // due
    out.writeInt(maxAttempts);
    out.writeByte(0); // fixed backoff
    out.writeLong(0);
    out.writeLong(0);
    out.writeLong(0); // unique ms
    out.writeInt(attempts);
    out.writeLong(leaseUntil);
    out.writeByte(state);
    out.writeInt(0); // errors
  }

  private static void writeBytes(DataOutputStream out, String s) throws IOException {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    out.writeInt(b.length);
    out.write(b);
  }

  /**
   * The legacy ops 3-6 (ACK, FAIL, EXTEND, RELEASE naming an attempt), from their byte tables: each
   * acts on the lease of that attempt, and on no other.
   */
  @Test
  void theLegacyAttemptOps_actOnTheLeaseOfThatAttempt() throws IOException {
    JobQueue q = QueueCodec.INSTANCE.create(new byte[] {1});
    long now = 1_700_000_000_000L;
    apply(q, 1, d -> add(d, now, "a"));
    apply(q, 1, d -> add(d, now, "b"));
    apply(
        q,
        2,
        d -> {
          d.writeLong(now);
          d.writeInt(2);
          d.writeLong(now + 30_000);
        });
    apply(q, 5, d -> idAttempt(d, "a", 1).writeLong(now + 60_000)); // EXTEND a's lease
    apply(q, 6, d -> idAttempt(d, "b", 1).writeLong(now)); // RELEASE b
    apply(
        q,
        3,
        d -> {
          d.writeLong(now);
          idAttempt(d, "a", 2); // ACK by an attempt a never had: nothing
        });
    long[] counts = counts(q, now + 1);
    assertThat(counts).containsExactly(1, 0, 1, 0);
    apply(
        q,
        4,
        d -> {
          d.writeLong(now);
          idAttempt(d, "a", 1);
          writeBytes(d, "legacy failure");
          d.writeLong(now + 5);
        });
    assertThat(counts(q, now + 1)).as("a failed on its last attempt").containsExactly(1, 0, 0, 1);
  }

  private static long[] counts(JobQueue q, long now) {
    Harness n = new Harness(() -> now);
    n.engine.write(
        Harness.bytes("q"),
        tx -> {
          tx.create(QueueCodec.INSTANCE, q, new byte[] {1});
          return null;
        });
    List<io.idem.server.reply.Reply> kv =
        ((io.idem.server.reply.Reply.Map) n.call("QUEUE.INFO", "q")).keysAndValues();
    long[] c = new long[4];
    for (int i = 0; i < 4; i++) {
      c[i] = ((io.idem.server.reply.Reply.Int) kv.get(2 * i + 1)).value();
    }
    return c;
  }

  private interface Body {
    void write(DataOutputStream d) throws IOException;
  }

  private static void apply(JobQueue q, int op, Body body) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    body.write(new DataOutputStream(b));
    QueueCodec.INSTANCE.apply(q, (byte) op, b.toByteArray());
  }

  private static void add(DataOutputStream d, long now, String id) throws IOException {
    d.writeLong(now);
    writeBytes(d, id);
    writeBytes(d, "payload of " + id);
    d.writeInt(0);
    d.writeLong(now);
    d.writeInt(1);
    d.writeByte(0);
    d.writeLong(0);
    d.writeLong(0);
    d.writeLong(0);
  }

  private static DataOutputStream idAttempt(DataOutputStream d, String id, int attempt)
      throws IOException {
    writeBytes(d, id);
    d.writeInt(attempt);
    return d;
  }
}
