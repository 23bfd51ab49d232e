package io.idem.server.commands.queue;

import io.idem.server.commands.queue.JobQueue.Backoff;
import io.idem.server.commands.queue.JobQueue.BackoffKind;
import io.idem.server.commands.queue.JobQueue.Job;
import io.idem.server.commands.queue.JobQueue.State;
import io.idem.server.engine.ValueCodec;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How the engine keeps QUEUE.* values durable. Recipe: u8 1. Every change is an operation that
 * carries the time it happened at and what the command drew (a retry's due time with its jitter),
 * so replaying them in order gives back the same queue. A reserve that leased nothing is logged too
 * when it ended a lease (its settling is a change). Op numbers are append-only:
 *
 * <pre>
 * op  name     payload (big-endian; an id or a payload is u32 length + bytes, an absent id length
 *              0xFFFFFFFF)
 * 1   ADD      u64 now | id | payload | i32 priority | u64 due | u32 max attempts | backoff:
 *              u8 kind (0 fixed, 1 exponential) | u64 base ms | u64 max ms | u64 unique ms
 * 2   RESERVE  u64 now | u32 count | u64 lease until
 * 3-6          ACK, FAIL, EXTEND, RELEASE as 9-12 with a u32 attempt for the token: written
 *              before tokens were the queue's own, replayed as the lease of that attempt
 * 7   REPLAY   u64 now | id (absent: every dead job)
 * 8   PURGE    nothing
 * 9   ACK      u64 now | id | u64 token
 * 10  FAIL     u64 now | id | u64 token | error (u32 length + UTF-8) | u64 retry due
 * 11  EXTEND   id | u64 token | u64 lease until
 * 12  RELEASE  id | u64 token | u64 due
 * </pre>
 *
 * <p>Snapshot, version 2: u8 2 | u64 next sequence number | u64 next token | u32 jobs | per job, in
 * the order added: u64 seq | id | payload | i32 priority | u64 due | u32 max attempts | backoff |
 * u64 unique ms | u32 attempts | u64 token | u64 lease until | u8 state (0 waiting, 1 leased, 2
 * dead) | u32 errors | each error | u32 dead | the dead jobs' ids in the order they died | u32 done
 * ids | each id | u64 until (by until, then id). Version 1 has neither token: a leased job's token
 * is then its attempt number, as it was.
 */
public final class QueueCodec implements ValueCodec<JobQueue> {

  public static final QueueCodec INSTANCE = new QueueCodec();

  static final byte TYPE_ID = 19;
  static final byte OP_ADD = 1;
  static final byte OP_RESERVE = 2;
  static final byte OP_ACK_ATTEMPT = 3;
  static final byte OP_FAIL_ATTEMPT = 4;
  static final byte OP_EXTEND_ATTEMPT = 5;
  static final byte OP_RELEASE_ATTEMPT = 6;
  static final byte OP_REPLAY = 7;
  static final byte OP_PURGE = 8;
  static final byte OP_ACK = 9;
  static final byte OP_FAIL = 10;
  static final byte OP_EXTEND = 11;
  static final byte OP_RELEASE = 12;
  static final byte[] RECIPE = {1};
  private static final int SNAPSHOT_VERSION = 2;
  private static final int ABSENT = -1;

  private QueueCodec() {}

  @Override
  public byte typeId() {
    return TYPE_ID;
  }

  @Override
  public String typeName() {
    return "queue";
  }

  @Override
  public Class<JobQueue> valueClass() {
    return JobQueue.class;
  }

  /** Queues are listed one by one in INFO and the metrics: the engine keeps their keys apart. */
  @Override
  public boolean listed() {
    return true;
  }

  @Override
  public JobQueue create(byte[] recipe) throws IOException {
    if (recipe.length != 1 || recipe[0] != 1) {
      throw new IOException("queue recipe of " + recipe.length + " bytes is not version 1");
    }
    return new JobQueue();
  }

  // ---- operations: written by the handlers, replayed here

  /** A growing operation record. */
  static final class Op {
    private final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(64);
    private final DataOutputStream out = new DataOutputStream(bytes);

    Op u8(int v) {
      return io(() -> out.writeByte(v));
    }

    Op i32(int v) {
      return io(() -> out.writeInt(v));
    }

    Op u64(long v) {
      return io(() -> out.writeLong(v));
    }

    Op bytes(byte[] b) {
      return io(
          () -> {
            if (b == null) {
              out.writeInt(ABSENT);
            } else {
              out.writeInt(b.length);
              out.write(b);
            }
          });
    }

    Op text(String s) {
      return bytes(s.getBytes(StandardCharsets.UTF_8));
    }

    Op backoff(Backoff b) {
      return u8(b.kind() == BackoffKind.FIXED ? 0 : 1).u64(b.base()).u64(b.max());
    }

    byte[] done() {
      return bytes.toByteArray();
    }

    private interface Write {
      void run() throws IOException;
    }

    private Op io(Write w) {
      try {
        w.run();
      } catch (IOException e) {
        throw new IllegalStateException("a byte array stream does not fail", e);
      }
      return this;
    }
  }

  @Override
  public void apply(JobQueue q, byte op, byte[] payload) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(payload);
    try {
      switch (op) {
        case OP_ADD -> {
          long now = b.getLong();
          byte[] id = jobId(bytes(b, payload.length));
          byte[] body = bytes(b, payload.length);
          q.add(now, id, body, b.getInt(), b.getLong(), b.getInt(), backoff(b), b.getLong());
        }
        case OP_RESERVE -> q.reserve(b.getLong(), b.getInt(), b.getLong());
        case OP_ACK, OP_ACK_ATTEMPT -> {
          long now = b.getLong();
          byte[] id = bytes(b, payload.length);
          q.ack(now, id, token(q, op == OP_ACK, id, b));
        }
        case OP_FAIL, OP_FAIL_ATTEMPT -> {
          long now = b.getLong();
          byte[] id = bytes(b, payload.length);
          long token = token(q, op == OP_FAIL, id, b);
          String error = new String(bytes(b, payload.length), StandardCharsets.UTF_8);
          q.fail(now, id, token, error, b.getLong());
        }
        case OP_EXTEND, OP_EXTEND_ATTEMPT -> {
          byte[] id = bytes(b, payload.length);
          q.extend(id, token(q, op == OP_EXTEND, id, b), b.getLong());
        }
        case OP_RELEASE, OP_RELEASE_ATTEMPT -> {
          byte[] id = bytes(b, payload.length);
          q.release(id, token(q, op == OP_RELEASE, id, b), b.getLong());
        }
        case OP_REPLAY -> q.replay(b.getLong(), bytes(b, payload.length));
        case OP_PURGE -> q.purge();
        default -> throw new IOException("unknown queue operation " + op);
      }
    } catch (java.nio.BufferUnderflowException | IllegalArgumentException e) {
      throw new IOException("queue operation " + op + " cut short or out of range");
    }
    if (b.hasRemaining()) {
      throw new IOException("queue operation " + op + " has " + b.remaining() + " bytes too many");
    }
  }

  /**
   * The token an operation names: read as a u64, or for an op logged before tokens were the queue's
   * own, the token of the lease whose attempt it read as a u32 (none: a token no lease has).
   */
  private static long token(JobQueue q, boolean isToken, byte[] id, ByteBuffer b) {
    if (isToken) {
      return b.getLong();
    }
    int attempt = b.getInt();
    Job j = id == null ? null : q.job(id);
    return j != null && j.state() == State.LEASED && j.attempts == attempt ? j.token : -1;
  }

  /** An id read from a record or a snapshot, held to what QUEUE.ADD accepts (or absent). */
  private static byte[] jobId(byte[] id) throws IOException {
    if (id != null && (id.length == 0 || id.length > QueueHandlers.MAX_ID_BYTES)) {
      throw new IOException(
          "a job id of " + id.length + " bytes (1 to " + QueueHandlers.MAX_ID_BYTES + ")");
    }
    return id;
  }

  private static byte[] bytes(ByteBuffer b, int limit) throws IOException {
    int n = b.getInt();
    if (n == ABSENT) {
      return null;
    }
    if (n < 0 || n > b.remaining() || n > limit) {
      throw new IOException("a length of " + Integer.toUnsignedString(n) + " passes the record");
    }
    byte[] out = new byte[n];
    b.get(out);
    return out;
  }

  private static Backoff backoff(ByteBuffer b) throws IOException {
    int kind = b.get();
    if (kind != 0 && kind != 1) {
      throw new IOException("backoff kind " + kind + " is not known");
    }
    return new Backoff(
        kind == 0 ? BackoffKind.FIXED : BackoffKind.EXPONENTIAL, b.getLong(), b.getLong());
  }

  // ---- snapshots

  @Override
  public void write(JobQueue q, OutputStream os) throws IOException {
    DataOutputStream out = new DataOutputStream(os);
    out.writeByte(SNAPSHOT_VERSION);
    out.writeLong(q.nextSeq());
    out.writeLong(q.nextToken());
    List<Job> jobs = q.jobs();
    out.writeInt(jobs.size());
    for (Job j : jobs) {
      out.writeLong(j.seq);
      writeBytes(out, j.id());
      writeBytes(out, j.payload());
      out.writeInt(j.priority);
      out.writeLong(j.due);
      out.writeInt(j.maxAttempts());
      out.writeByte(j.backoff().kind() == BackoffKind.FIXED ? 0 : 1);
      out.writeLong(j.backoff().base());
      out.writeLong(j.backoff().max());
      out.writeLong(j.uniqueMillis());
      out.writeInt(j.attempts);
      out.writeLong(j.token);
      out.writeLong(j.leaseUntil);
      out.writeByte(j.state().ordinal());
      out.writeInt(j.errors.size());
      for (String e : j.errors) {
        writeBytes(out, e.getBytes(StandardCharsets.UTF_8));
      }
    }
    List<byte[]> deadOrder = q.deadOrder();
    out.writeInt(deadOrder.size());
    for (byte[] id : deadOrder) {
      writeBytes(out, id);
    }
    List<Map.Entry<JobQueue.Id, Long>> done = q.doneIds();
    out.writeInt(done.size());
    for (Map.Entry<JobQueue.Id, Long> e : done) {
      byte[] id = e.getKey().bytes();
      writeBytes(out, id);
      out.writeLong(e.getValue());
    }
    out.flush();
  }

  private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
    out.writeInt(b.length);
    out.write(b);
  }

  @Override
  public JobQueue read(InputStream is, long maxBytes) throws IOException {
    DataInputStream in = new DataInputStream(is);
    int version = in.readUnsignedByte();
    if (version != 1 && version != SNAPSHOT_VERSION) {
      throw new IOException("queue snapshot version " + version + ", this Idem reads 1 and 2");
    }
    boolean tokens = version >= 2;
    long[] budget = {maxBytes};
    JobQueue q = new JobQueue();
    q.restoreNextSeq(in.readLong());
    if (tokens) {
      long next = in.readLong();
      if (next < 0) {
        throw new IOException("a queue's next token of " + next + " is negative");
      }
      q.restoreNextToken(next);
    }
    int n = count(in, budget, tokens ? 68 : 60);
    for (int i = 0; i < n; i++) {
      long seq = in.readLong();
      byte[] id = jobId(readBytes(in, budget));
      byte[] payload = readBytes(in, budget);
      int priority = in.readInt();
      long due = in.readLong();
      int maxAttempts = in.readInt();
      int kind = in.readUnsignedByte();
      if (kind > 1) {
        throw new IOException("backoff kind " + kind + " is not known");
      }
      Backoff backoff =
          new Backoff(
              kind == 0 ? BackoffKind.FIXED : BackoffKind.EXPONENTIAL,
              in.readLong(),
              in.readLong());
      long unique = in.readLong();
      if (q.job(id) != null) {
        throw new IOException(
            "a queue snapshot holds job id " + new String(id, StandardCharsets.UTF_8) + " twice");
      }
      Job j = new Job(seq, id, payload, priority, due, q.spec(maxAttempts, backoff, unique));
      j.attempts = in.readInt();
      j.token = tokens ? in.readLong() : j.attempts;
      j.leaseUntil = in.readLong();
      int state = in.readUnsignedByte();
      if (state >= State.values().length) {
        throw new IOException("job state " + state + " is not known");
      }
      j.state(State.values()[state]);
      if (j.state() == State.LEASED && (j.token <= 0 || tokens && j.token >= q.nextToken())) {
        throw new IOException("a leased job's token " + j.token + " was never handed out");
      }
      int errors = count(in, budget, 4);
      for (int e = 0; e < errors; e++) {
        j.addError(new String(readBytes(in, budget), StandardCharsets.UTF_8));
      }
      q.restore(j);
    }
    int dead = count(in, budget, 4);
    List<byte[]> order = new ArrayList<>(dead);
    for (int i = 0; i < dead; i++) {
      order.add(readBytes(in, budget));
    }
    q.restoreDeadOrder(order);
    int done = count(in, budget, 12);
    for (int i = 0; i < done; i++) {
      byte[] id = readBytes(in, budget);
      q.restoreDone(id, in.readLong());
    }
    return q;
  }

  /** A count of things each at least {@code minBytes} long, checked against what may be read. */
  private static int count(DataInputStream in, long[] budget, int minBytes) throws IOException {
    int n = in.readInt();
    if (n < 0 || (long) n * minBytes > budget[0]) {
      throw new IOException(
          "a queue snapshot count of " + Integer.toUnsignedString(n) + " is too large");
    }
    return n;
  }

  private static byte[] readBytes(DataInputStream in, long[] budget) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > budget[0]) {
      throw new IOException(
          "a queue snapshot length of " + Integer.toUnsignedString(n) + " is too large");
    }
    budget[0] -= n;
    byte[] b = new byte[n];
    in.readFully(b);
    return b;
  }

  @Override
  public long memoryUsage(JobQueue q) {
    return q.memoryUsage();
  }
}
