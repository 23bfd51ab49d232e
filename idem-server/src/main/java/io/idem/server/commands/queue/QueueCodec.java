package io.idem.server.commands.queue;

import io.idem.core.rate.Gcra;
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
import org.jspecify.annotations.Nullable;

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
 * 13  PAUSE    u64 now | u8 paused (0 resumed, 1 paused) | group (absent: the queue)
 * 14  CANCEL   u64 now | id
 * 15  PROGRESS u64 now | id | u64 token | value (absent: cleared)
 * 16  ADD2     ADD's payload | group (1 to 256 bytes): a job added into a group
 * 17  GROUP    u64 now | group | u32 weight | rate | i32 concurrency (-1 the queue's default for
 *              groups, 0 none, n): a group's settings, all of them
 * 18  CONFIG   u64 now | rate | i32 concurrency | rate for groups | i32 concurrency for groups:
 *              the queue's limits, all of them (0: none)
 *              a rate: u8 mode (0 none, or for a group the default; 1 set; 2 none for a group)
 *              then, when set, u64 max burst | u64 count | u64 period s
 * 19  SCHEDULE u64 now | a schedule's definition (u32 length + bytes, below)
 * 20  UNSCHEDULE u64 now | name
 * 21  FIRE     u64 now | name | u64 version | u64 expected due | u64 next due | u32 n | n x u64
 *              run time: the runs' jobs and the next due time, as the firing node computed them
 * 22  COMPLETE u64 now | id | u64 token | result (absent: none): ACK's change; its result row is
 *              the op's row change when results are kept
 * 23  RESULTS  u64 now | u64 retention ms (0: off)
 * 24  RESULTS_DROP u64 now | u64 floor: the slices below are deleted (the op's range delete)
 * 25  EVENTS   u64 now | u32 capacity (0: none kept)
 * 26  FLOW     u64 now | u32 jobs (2 to 10,000) | per job: ADD's payload without its time | group
 *              (absent: none) | i32 parent (the index of an earlier job; -1 for the first alone) |
 *              u8 on child fail (0 fail, 1 hold, 2 ignore): every job added, or none
 * </pre>
 *
 * <p>A flow child's ack (or complete) writes its result for its parent as a row: key 'C' | u64
 * parent seq | child id, valued as a result row. A parent's ack, cancel or purge deletes its range.
 *
 * <p>Results are rows: key 'R' | u64 slice (the time stored over the slice width) | id, value u8 1
 * | u8 state (1 done) | u64 completed ms | u32 attempts | result (u32 length + bytes, absent:
 * none). ACK writes one too, without a result, when results are kept. The rows are in the store
 * already when a log is replayed: ops only carry them to it.
 *
 * <p>A schedule's definition: u8 1 | name | u8 kind (1 every, 2 cron) | u64 every ms | u8 align |
 * cron text | zone id (both absent for every) | payload | i32 priority | u32 attempts | backoff |
 * u64 unique ms | group (absent: none) | u8 missed (0 one, 1 all, 2 none) | u32 missed max | u64
 * start | u64 end | u64 limit (0: none).
 *
 * <p>A lease holder's ack, fail, extend, release or progress on a job cancelled while leased takes
 * the job out and is logged as that op: the replay takes it out the same way.
 *
 * <p>Snapshot, version 2: u8 2 | u64 next sequence number | u64 next token | u32 jobs | per job, in
 * the order added: u64 seq | id | payload | i32 priority | u64 due | u32 max attempts | backoff |
 * u64 unique ms | u32 attempts | u64 token | u64 lease until | u8 state (0 waiting, 1 leased, 2
 * dead, 3 waiting for children) | u32 errors | each error | u32 dead | the dead jobs' ids in the
 * order they died | u32 done ids | each id | u64 until (by until, then id). Version 1 has neither
 * token: a leased job's token is then its attempt number, as it was.
 *
 * <p>Version 3 is version 2 followed by what a plain queue does not have, as sections: u32 sections
 * | each: u8 tag | u32 length | body, in tag order, each written only when it holds something. Tag
 * 1, the queue is paused: no body. Tag 2, jobs' extras: u32 jobs | each, by seq: u64 seq | u8 flags
 * (bit 0 cancelled while leased, bit 1 progress) | progress (u32 length + bytes). Tag 3, the
 * queue's limits: CONFIG's payload without its time | i64 the queue rate's TAT ns (-1 none). Tag 4,
 * groups: u64 virtual time | u64 the default group's pass | u64 next group seq | u32 groups | each,
 * by seq: name | u64 seq | u32 weight | u8 paused | rate | i32 concurrency | i64 TAT ns | u64 pass.
 * Tag 5, jobs in a group: u32 jobs | each, by seq: u64 job seq | u64 group seq. Tag 6, schedules:
 * u64 definitions made | u32 schedules | each, by name: definition (u32 length + bytes) | u64
 * version | u64 next due | u64 runs | u64 last run. Tag 7, results: u64 retention ms | u64 slice
 * width ms | u64 floor. Tag 8, events: u32 capacity | u64 next event id | u32 events | each, oldest
 * first: u64 id | u64 time | u8 type | job id | detail. Tag 9, flows: u32 parents | each, by seq:
 * u64 seq | u8 on child fail | u32 pending | u32 failed | u32 children | each child's id; u32 links
 * | each, by the child's seq: u64 child seq | u64 parent seq. The writer writes version 2 when
 * there is no section, so a queue that uses none of these keeps its bytes (and an older Idem reads
 * it); a reader refuses a tag it does not know.
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
  static final byte OP_PAUSE = 13;
  static final byte OP_CANCEL = 14;
  static final byte OP_PROGRESS = 15;
  static final byte OP_ADD_GROUPED = 16;
  static final byte OP_GROUP = 17;
  static final byte OP_CONFIG = 18;
  static final byte OP_SCHEDULE = 19;
  static final byte OP_UNSCHEDULE = 20;
  static final byte OP_FIRE = 21;
  static final byte OP_COMPLETE = 22;
  static final byte OP_RESULTS = 23;
  static final byte OP_RESULTS_DROP = 24;
  static final byte OP_EVENTS = 25;
  static final byte OP_FLOW = 26;

  /** The most events a queue keeps. */
  static final int MAX_EVENTS = 100_000;

  static final byte[] RECIPE = {1};
  private static final int SNAPSHOT_VERSION = 2;
  private static final int SECTIONS_VERSION = 3;
  private static final int SECTION_PAUSED = 1;
  private static final int SECTION_EXTRAS = 2;
  private static final int SECTION_LIMITS = 3;
  private static final int SECTION_GROUPS = 4;
  private static final int SECTION_JOB_GROUPS = 5;
  private static final int SECTION_SCHEDULES = 6;
  private static final int SECTION_RESULTS = 7;
  private static final int SECTION_EVENTS = 8;
  private static final int SECTION_FLOWS = 9;

  /** The most a stored result holds (as IDEMKEY's). */
  static final int MAX_RESULT_BYTES = 512 * 1024;

  /** The most a progress value holds: it is the holder's note, not a result. */
  static final int MAX_PROGRESS_BYTES = 4096;

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

  /** Schedules fire from the background: every queue is visited once, then as its schedules ask. */
  @Override
  public boolean hasBackgroundWork() {
    return true;
  }

  /** Stored results are rows (empty for a queue that keeps none). */
  @Override
  public boolean hasRows() {
    return true;
  }

  /** The snapshot, then the result rows in key order: the same on every node. */
  @Override
  public void writeDigest(
      JobQueue q, long valueId, io.idem.server.engine.Rows rows, OutputStream os)
      throws IOException {
    write(q, os);
    rows.writeAll(valueId, new DataOutputStream(os));
  }

  /** WINDOWDUE (and the background alone): deletes the result slices past the retention. */
  @Override
  public boolean moveWindow(io.idem.server.engine.KeyTx tx, JobQueue q, long now) {
    long floor = q.resultsDropDue(now);
    if (floor < 0) {
      return false;
    }
    q.dropResults(floor);
    tx.log(
        OP_RESULTS_DROP,
        new Op().u64(now).u64(floor).done(),
        List.of(
            new io.idem.core.store.RowChange.DeleteRange(
                JobQueue.resultRowKey(0, new byte[0]), JobQueue.resultRowKey(floor, new byte[0]))));
    return true;
  }

  /**
   * Fires the schedules that are due: alone, under the key's lock, logged as FIRE; on a node with a
   * log, asks it for a QUEUE.FIRE record carrying the times this node computed, so every node adds
   * the same runs at the record's time. The next visit is the earliest next due time.
   */
  @Override
  public long background(io.idem.server.engine.Engine engine, io.idem.server.engine.Entry entry) {
    JobQueue q = (JobQueue) entry.value();
    boolean byLog = engine.expiresByLog();
    List<byte[][]> asks = new ArrayList<>();
    boolean[] dropByLog = {false};
    Long next =
        engine.writeEntry(
            entry,
            tx -> {
              long now = engine.now();
              long earliest = NEVER;
              boolean added = false;
              for (Schedule sc : List.copyOf(q.schedules())) {
                SchedulePlan.Fire f;
                try {
                  f = SchedulePlan.plan(sc, now);
                } catch (RuntimeException e) {
                  continue; // its cron text or zone no longer parses here: it waits
                }
                if (f == null) {
                  earliest = Math.min(earliest, sc.nextDue);
                } else if (byLog) {
                  asks.add(QueueSchedules.fireWords(entry.key().bytes(), sc, f));
                } else {
                  if (q.fire(now, sc.def.name(), sc.version, f.expected(), f.next(), f.runs())
                      >= 0) {
                    tx.log(OP_FIRE, fireOp(now, sc.def.name(), sc.version, f));
                    added |= f.runs().length > 0;
                  }
                  earliest = Math.min(earliest, sc.nextDue);
                }
              }
              if (added) {
                engine.waits().wake(entry.key().bytes(), null);
              }
              if (q.resultsDropDue(now) >= 0) {
                if (byLog) {
                  dropByLog[0] = true;
                } else {
                  moveWindow(tx, q, now);
                }
              }
              return Math.min(earliest, q.nextResultsDrop());
            });
    if (next == null) {
      return NEVER;
    }
    for (byte[][] words : asks) {
      engine.askByLog(entry, words);
    }
    if (dropByLog[0]) {
      engine.windowByLog(entry);
    }
    return asks.isEmpty() && !dropByLog[0] ? next : NEXT_ROUND;
  }

  /** FIRE's payload. */
  static byte[] fireOp(long now, byte[] name, long version, SchedulePlan.Fire f) {
    Op o = new Op().u64(now).bytes(name).u64(version).u64(f.expected()).u64(f.next());
    o.i32(f.runs().length);
    for (long t : f.runs()) {
      o.u64(t);
    }
    return o.done();
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

    /** A rate: mode 0 (none, or a group's default), 1 (set: its quota), 2 (none for a group). */
    Op rate(int mode, Gcra.@Nullable Quota q) {
      u8(mode);
      if (mode == 1) {
        u64(q.maxBurst()).u64(q.count()).u64(q.periodSeconds());
      }
      return this;
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
        case OP_ADD, OP_ADD_GROUPED -> {
          long now = b.getLong();
          byte[] id = jobId(bytes(b, payload.length));
          byte[] body = bytes(b, payload.length);
          int priority = b.getInt();
          long due = b.getLong();
          int attempts = b.getInt();
          Backoff backoff = backoff(b);
          long unique = b.getLong();
          byte[] group = op == OP_ADD_GROUPED ? groupName(bytes(b, payload.length)) : null;
          q.add(now, id, body, priority, due, attempts, backoff, unique, group);
        }
        case OP_GROUP -> {
          long now = b.getLong();
          byte[] group = groupName(bytes(b, payload.length));
          int weight = b.getInt();
          if (weight < 1 || weight > JobGroup.MAX_WEIGHT) {
            throw new IOException("a group weight of " + weight);
          }
          int mode = b.get();
          Gcra.Quota rate = rate(b, mode, true);
          q.configureGroup(now, group, weight, (byte) mode, rate, concurrency(b.getInt(), true));
        }
        case OP_SCHEDULE -> {
          long now = b.getLong();
          q.schedule(now, definition(bytes(b, payload.length)));
        }
        case OP_UNSCHEDULE -> {
          b.getLong();
          q.unschedule(scheduleName(bytes(b, payload.length)));
        }
        case OP_FIRE -> {
          long now = b.getLong();
          byte[] name = scheduleName(bytes(b, payload.length));
          long version = b.getLong();
          long expected = b.getLong();
          long next = b.getLong();
          int n = b.getInt();
          if (n < 0 || n > b.remaining() / 8) {
            throw new IOException("a FIRE of " + n + " runs passes the record");
          }
          long[] runs = new long[n];
          for (int i = 0; i < n; i++) {
            runs[i] = b.getLong();
          }
          q.fire(now, name, version, expected, next, runs);
        }
        case OP_CONFIG -> {
          b.getLong();
          Gcra.Quota rate = rate(b, b.get(), false);
          int concurrency = concurrency(b.getInt(), false);
          Gcra.Quota groupRate = rate(b, b.get(), false);
          q.configure(rate, concurrency, groupRate, concurrency(b.getInt(), false));
        }
        case OP_RESERVE -> q.reserve(b.getLong(), b.getInt(), b.getLong());
        case OP_COMPLETE -> {
          long now = b.getLong();
          byte[] id = bytes(b, payload.length);
          long token = b.getLong();
          byte[] result = bytes(b, payload.length);
          if (result != null && result.length > MAX_RESULT_BYTES) {
            throw new IOException("a result of " + result.length + " bytes");
          }
          q.ack(now, id, token);
        }
        case OP_RESULTS -> {
          long now = b.getLong();
          long millis = b.getLong();
          if (millis < 0 || millis > io.idem.server.dispatch.Parse.MAX_DURATION_MILLIS) {
            throw new IOException("a result retention of " + millis + " ms");
          }
          q.configureResults(now, millis);
        }
        case OP_EVENTS -> {
          b.getLong();
          int capacity = b.getInt();
          if (capacity < 0 || capacity > MAX_EVENTS) {
            throw new IOException("an event capacity of " + capacity);
          }
          q.configureEvents(capacity);
        }
        case OP_RESULTS_DROP -> {
          b.getLong();
          q.dropResults(b.getLong());
        }
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
        case OP_PAUSE -> {
          long now = b.getLong();
          int paused = b.get();
          if (paused != 0 && paused != 1) {
            throw new IOException("a queue pause of " + paused);
          }
          byte[] group = bytes(b, payload.length);
          if (group == null) {
            q.pause(paused == 1);
          } else {
            q.pauseGroup(now, groupName(group), paused == 1);
          }
        }
        case OP_CANCEL -> {
          long now = b.getLong();
          q.cancel(now, jobId(bytes(b, payload.length)));
        }
        case OP_FLOW -> {
          long now = b.getLong();
          int n = b.getInt();
          if (n < 2 || n > JobQueue.MAX_FLOW_JOBS) {
            throw new IOException("a flow of " + n + " jobs");
          }
          List<JobQueue.FlowJob> jobs = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            jobs.add(flowJob(b, payload.length, i));
          }
          if (q.flow(now, jobs).taken() != null) {
            throw new IOException("a logged flow names a job id that is taken");
          }
        }
        case OP_PROGRESS -> {
          long now = b.getLong();
          byte[] id = bytes(b, payload.length);
          long token = b.getLong();
          q.progress(now, id, token, progressValue(bytes(b, payload.length)));
        }
        default -> throw new IOException("unknown queue operation " + op);
      }
    } catch (java.nio.BufferUnderflowException | IllegalArgumentException e) {
      throw new IOException("queue operation " + op + " cut short or out of range");
    }
    if (b.hasRemaining()) {
      throw new IOException("queue operation " + op + " has " + b.remaining() + " bytes too many");
    }
  }

  /** One job of an OP_FLOW: ADD's fields, then its group, its parent's index and its policy. */
  private static JobQueue.FlowJob flowJob(ByteBuffer b, int limit, int index) throws IOException {
    byte[] id = bytes(b, limit);
    if (id != null) {
      jobId(id);
    }
    byte[] body = bytes(b, limit);
    if (body == null) {
      throw new IOException("a flow job without a payload");
    }
    int priority = b.getInt();
    long due = b.getLong();
    int attempts = b.getInt();
    Backoff backoff = backoff(b);
    long unique = b.getLong();
    byte[] group = bytes(b, limit);
    if (group != null) {
      groupName(group);
    }
    int parent = b.getInt();
    int policy = b.get();
    if (parent >= index || parent < (index == 0 ? -1 : 0) || policy < 0 || policy > 2) {
      throw new IOException("a flow job's parent " + parent + " or policy " + policy);
    }
    return new JobQueue.FlowJob(
        id,
        body,
        priority,
        due,
        attempts,
        backoff,
        unique,
        group,
        parent,
        JobQueue.OnChildFail.values()[policy]);
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

  static byte[] scheduleName(byte[] name) throws IOException {
    if (name == null || name.length == 0 || name.length > Schedule.MAX_NAME_BYTES) {
      throw new IOException("a schedule name of 1 to " + Schedule.MAX_NAME_BYTES + " bytes");
    }
    return name;
  }

  /** A schedule's definition as the op and the snapshot hold it. */
  static byte[] definition(Schedule.Definition d) {
    Op o =
        new Op()
            .u8(1)
            .bytes(d.name())
            .u8(d.kind())
            .u64(d.everyMillis())
            .u8(d.align() ? 1 : 0)
            .bytes(d.cron() == null ? null : d.cron().getBytes(StandardCharsets.UTF_8))
            .bytes(d.zone() == null ? null : d.zone().getBytes(StandardCharsets.UTF_8))
            .bytes(d.payload())
            .i32(d.priority())
            .i32(d.attempts())
            .backoff(d.backoff())
            .u64(d.uniqueMillis())
            .bytes(d.group())
            .u8(d.missed())
            .i32(d.missedMax())
            .u64(d.start())
            .u64(d.end())
            .u64(d.limit());
    return o.done();
  }

  /** A definition read back, held to what QUEUE.SCHEDULE accepts (its cron text is not parsed). */
  static Schedule.Definition definition(byte[] bytes) throws IOException {
    if (bytes == null) {
      throw new IOException("a schedule without its definition");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    try {
      if (b.get() != 1) {
        throw new IOException("a schedule definition of an unknown version");
      }
      byte[] name = scheduleName(bytes(b, bytes.length));
      byte kind = b.get();
      long every = b.getLong();
      int align = b.get();
      byte[] cron = bytes(b, bytes.length);
      byte[] zone = bytes(b, bytes.length);
      boolean everyOk = kind == Schedule.EVERY && every > 0 && cron == null && zone == null;
      boolean cronOk = kind == Schedule.CRON && cron != null && zone != null && every == 0;
      if (!everyOk && !cronOk || align != 0 && align != 1) {
        throw new IOException("a schedule of kind " + kind + " with what it does not take");
      }
      byte[] payload = bytes(b, bytes.length);
      int priority = b.getInt();
      int attempts = b.getInt();
      JobQueue.Backoff backoff = backoff(b);
      long unique = b.getLong();
      byte[] group = bytes(b, bytes.length);
      byte missed = b.get();
      int missedMax = b.getInt();
      if (payload == null
          || attempts < 1
          || attempts > QueueHandlers.MAX_ATTEMPTS
          || missed < 0
          || missed > 2
          || missedMax < 1
          || missedMax > Schedule.MAX_MISSED
          || (group != null && (group.length == 0 || group.length > JobGroup.MAX_NAME_BYTES))) {
        throw new IOException("a schedule's template or missed policy out of range");
      }
      Schedule.Definition d =
          new Schedule.Definition(
              name,
              kind,
              every,
              align == 1,
              cron == null ? null : new String(cron, StandardCharsets.UTF_8),
              zone == null ? null : new String(zone, StandardCharsets.UTF_8),
              payload,
              priority,
              attempts,
              backoff,
              unique,
              group,
              missed,
              missedMax,
              b.getLong(),
              b.getLong(),
              b.getLong());
      if (b.hasRemaining() || d.start() < 0 || d.end() < 0 || d.limit() < 0) {
        throw new IOException("a schedule definition with bytes too many, or bounds below 0");
      }
      return d;
    } catch (java.nio.BufferUnderflowException e) {
      throw new IOException("a schedule definition cut short");
    }
  }

  /** A group's name from a record or a snapshot, held to what the commands accept. */
  static byte[] groupName(byte[] name) throws IOException {
    if (name == null || name.length == 0 || name.length > JobGroup.MAX_NAME_BYTES) {
      throw new IOException("a group name of 1 to " + JobGroup.MAX_NAME_BYTES + " bytes");
    }
    return name;
  }

  /** A rate read in the mode read before it; a group's may be 0 (its default) or 2 (none). */
  private static Gcra.@Nullable Quota rate(ByteBuffer b, int mode, boolean group)
      throws IOException {
    if (mode == 1) {
      return quota(b.getLong(), b.getLong(), b.getLong());
    }
    if (mode == 0 || mode == 2 && group) {
      return null;
    }
    throw new IOException("a rate mode of " + mode);
  }

  private static Gcra.Quota quota(long burst, long count, long period) throws IOException {
    try {
      return new Gcra.Quota(burst, count, period);
    } catch (IllegalArgumentException e) {
      throw new IOException("a queue rate out of range: " + e.getMessage());
    }
  }

  private static int concurrency(int n, boolean group) throws IOException {
    if (n < (group ? -1 : 0) || n > QueueHandlers.MAX_CONCURRENCY) {
      throw new IOException("a concurrency of " + n);
    }
    return n;
  }

  private static byte[] progressValue(byte[] value) throws IOException {
    if (value != null && value.length > MAX_PROGRESS_BYTES) {
      throw new IOException("a progress of " + value.length + " bytes");
    }
    return value;
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
    List<Job> jobs = q.jobs();
    List<byte[]> sections = sections(q, jobs);
    out.writeByte(sections.isEmpty() ? SNAPSHOT_VERSION : SECTIONS_VERSION);
    out.writeLong(q.nextSeq());
    out.writeLong(q.nextToken());
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
      out.writeInt(j.errors().size());
      for (String e : j.errors()) {
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
    if (!sections.isEmpty()) {
      out.writeInt(sections.size());
      for (byte[] section : sections) {
        out.write(section);
      }
    }
    out.flush();
  }

  /** Version 3's sections that hold something, in tag order, each with its tag and length. */
  private static List<byte[]> sections(JobQueue q, List<Job> jobs) throws IOException {
    List<byte[]> out = new ArrayList<>(2);
    if (q.paused()) {
      out.add(section(SECTION_PAUSED, d -> {}));
    }
    List<Job> extras = new ArrayList<>();
    for (Job j : jobs) {
      if (j.cancelled() || j.progress() != null) {
        extras.add(j);
      }
    }
    if (!extras.isEmpty()) {
      out.add(
          section(
              SECTION_EXTRAS,
              d -> {
                d.writeInt(extras.size());
                for (Job j : extras) {
                  d.writeLong(j.seq);
                  d.writeByte((j.cancelled() ? 1 : 0) | (j.progress() != null ? 2 : 0));
                  if (j.progress() != null) {
                    writeBytes(d, j.progress());
                  }
                }
              }));
    }
    if (q.rate() != null
        || q.concurrency() != 0
        || q.groupRate() != null
        || q.groupConcurrency() != 0) {
      out.add(
          section(
              SECTION_LIMITS,
              d -> {
                writeRate(d, q.rate() == null ? 0 : 1, q.rate());
                d.writeInt(q.concurrency());
                writeRate(d, q.groupRate() == null ? 0 : 1, q.groupRate());
                d.writeInt(q.groupConcurrency());
                d.writeLong(q.rateTat());
              }));
    }
    if (!q.groups().isEmpty() || q.virtualTime() != 0 || q.defaultPass() != 0) {
      out.add(
          section(
              SECTION_GROUPS,
              d -> {
                d.writeLong(q.virtualTime());
                d.writeLong(q.defaultPass());
                d.writeLong(q.nextGroupSeq());
                d.writeInt(q.groups().size());
                for (JobGroup g : q.groups()) {
                  writeBytes(d, g.name);
                  d.writeLong(g.seq);
                  d.writeInt(g.weight);
                  d.writeByte(g.paused ? 1 : 0);
                  writeRate(d, g.rateMode, g.rate);
                  d.writeInt(g.concurrency);
                  d.writeLong(g.tat);
                  d.writeLong(g.pass);
                }
              }));
    }
    List<Job> grouped = new ArrayList<>();
    for (Job j : jobs) {
      if (j.group.seq != 0) {
        grouped.add(j);
      }
    }
    if (!grouped.isEmpty()) {
      out.add(
          section(
              SECTION_JOB_GROUPS,
              d -> {
                d.writeInt(grouped.size());
                for (Job j : grouped) {
                  d.writeLong(j.seq);
                  d.writeLong(j.group.seq);
                }
              }));
    }
    if (!q.schedules().isEmpty() || q.scheduleSeq() != 0) {
      out.add(
          section(
              SECTION_SCHEDULES,
              d -> {
                d.writeLong(q.scheduleSeq());
                d.writeInt(q.schedules().size());
                for (Schedule sc : q.schedules()) {
                  writeBytes(d, definition(sc.def));
                  d.writeLong(sc.version);
                  d.writeLong(sc.nextDue);
                  d.writeLong(sc.runs);
                  d.writeLong(sc.lastRun);
                }
              }));
    }
    if (q.resultSliceMillis() != 0) {
      out.add(
          section(
              SECTION_RESULTS,
              d -> {
                d.writeLong(q.resultMillis());
                d.writeLong(q.resultSliceMillis());
                d.writeLong(q.resultsFloor());
              }));
    }
    List<Job> parents = new ArrayList<>();
    List<Job> linked = new ArrayList<>();
    for (Job j : jobs) {
      if (j.flow() != null) {
        parents.add(j);
      }
      if (j.parent() != null) {
        linked.add(j);
      }
    }
    if (!parents.isEmpty()) {
      out.add(
          section(
              SECTION_FLOWS,
              d -> {
                d.writeInt(parents.size());
                for (Job p : parents) {
                  JobQueue.Flow f = p.flow();
                  d.writeLong(p.seq);
                  d.writeByte(f.onChildFail.ordinal());
                  d.writeInt(f.pending);
                  d.writeInt(f.failed);
                  d.writeInt(f.children.size());
                  for (byte[] id : f.children) {
                    writeBytes(d, id);
                  }
                }
                d.writeInt(linked.size());
                for (Job c : linked) {
                  d.writeLong(c.seq);
                  d.writeLong(c.parent().seq);
                }
              }));
    }
    if (q.eventCapacity() != 0 || q.nextEventId() != 1) {
      out.add(
          section(
              SECTION_EVENTS,
              d -> {
                d.writeInt(q.eventCapacity());
                d.writeLong(q.nextEventId());
                d.writeInt(q.events().size());
                for (JobQueue.Event e : q.events()) {
                  d.writeLong(e.id());
                  d.writeLong(e.time());
                  d.writeByte(e.type().ordinal());
                  writeBytes(d, e.jobId());
                  writeBytes(d, e.detail());
                }
              }));
    }
    return out;
  }

  private static void writeRate(DataOutputStream d, int mode, Gcra.@Nullable Quota q)
      throws IOException {
    d.writeByte(mode);
    if (mode == 1) {
      d.writeLong(q.maxBurst());
      d.writeLong(q.count());
      d.writeLong(q.periodSeconds());
    }
  }

  private static Gcra.@Nullable Quota readRate(DataInputStream d, int mode, boolean group)
      throws IOException {
    if (mode == 1) {
      return quota(d.readLong(), d.readLong(), d.readLong());
    }
    if (mode == 0 || mode == 2 && group) {
      return null;
    }
    throw new IOException("a rate mode of " + mode);
  }

  private interface Body {
    void write(DataOutputStream d) throws IOException;
  }

  private static byte[] section(int tag, Body body) throws IOException {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(bytes);
    body.write(d);
    d.flush();
    java.io.ByteArrayOutputStream framed = new java.io.ByteArrayOutputStream(bytes.size() + 5);
    DataOutputStream f = new DataOutputStream(framed);
    f.writeByte(tag);
    f.writeInt(bytes.size());
    bytes.writeTo(f);
    f.flush();
    return framed.toByteArray();
  }

  private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
    out.writeInt(b.length);
    out.write(b);
  }

  @Override
  public JobQueue read(InputStream is, long maxBytes) throws IOException {
    DataInputStream in = new DataInputStream(is);
    int version = in.readUnsignedByte();
    if (version < 1 || version > SECTIONS_VERSION) {
      throw new IOException("queue snapshot version " + version + ", this Idem reads 1 to 3");
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
    java.util.Map<Long, Job> bySeq = version >= SECTIONS_VERSION ? new java.util.HashMap<>() : null;
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
      if (bySeq != null) {
        bySeq.put(seq, j);
      }
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
    if (bySeq != null) {
      readSections(in, budget, q, bySeq);
    }
    if (!q.flowsWhole()) {
      throw new IOException("a queue snapshot holds a job waiting for children it has no flow of");
    }
    return q;
  }

  private static void readSections(
      DataInputStream in, long[] budget, JobQueue q, java.util.Map<Long, Job> bySeq)
      throws IOException {
    int sections = count(in, budget, 5);
    int lastTag = 0;
    java.util.Map<Long, JobGroup> groups = new java.util.HashMap<>();
    long[] scheduler = null;
    for (int i = 0; i < sections; i++) {
      int tag = in.readUnsignedByte();
      int length = in.readInt();
      if (tag <= lastTag || length < 0 || length > budget[0]) {
        throw new IOException("a queue snapshot section " + tag + " out of order or too long");
      }
      lastTag = tag;
      byte[] body = new byte[length];
      in.readFully(body);
      DataInputStream d = new DataInputStream(new java.io.ByteArrayInputStream(body));
      long[] bodyBudget = {length};
      switch (tag) {
        case SECTION_PAUSED -> q.pause(true);
        case SECTION_EXTRAS -> {
          int n = count(d, bodyBudget, 9);
          for (int e = 0; e < n; e++) {
            Job j = bySeq.get(d.readLong());
            int flags = d.readUnsignedByte();
            if (j == null || (flags & ~3) != 0 || (flags & 1) != 0 && j.state() != State.LEASED) {
              throw new IOException(
                  "a queue snapshot's extras name no such job, or flags " + flags);
            }
            byte[] progress = (flags & 2) != 0 ? progressValue(readBytes(d, bodyBudget)) : null;
            q.restoreExtra(j, (flags & 1) != 0, progress);
          }
        }
        case SECTION_LIMITS -> {
          Gcra.Quota rate = readRate(d, d.readUnsignedByte(), false);
          int concurrency = concurrency(d.readInt(), false);
          Gcra.Quota groupRate = readRate(d, d.readUnsignedByte(), false);
          int groupConcurrency = concurrency(d.readInt(), false);
          q.restoreLimits(rate, d.readLong(), concurrency, groupRate, groupConcurrency);
        }
        case SECTION_GROUPS -> {
          scheduler = new long[] {d.readLong(), d.readLong(), d.readLong()};
          int n = count(d, bodyBudget, 30);
          long lastSeq = 0;
          for (int g = 0; g < n; g++) {
            byte[] name = groupName(readBytes(d, bodyBudget));
            long seq = d.readLong();
            if (seq <= lastSeq || q.group(name) != null) {
              throw new IOException("a queue snapshot's groups out of order or twice");
            }
            lastSeq = seq;
            JobGroup group = new JobGroup(name, seq);
            group.weight = d.readInt();
            int paused = d.readUnsignedByte();
            int mode = d.readUnsignedByte();
            if (group.weight < 1 || group.weight > JobGroup.MAX_WEIGHT || paused > 1 || mode > 2) {
              throw new IOException("a queue snapshot's group settings out of range");
            }
            group.paused = paused == 1;
            group.rateMode = (byte) mode;
            group.rate = readRate(d, mode, true);
            group.concurrency = concurrency(d.readInt(), true);
            group.tat = d.readLong();
            group.pass = d.readLong();
            q.restoreGroup(group);
            groups.put(seq, group);
          }
        }
        case SECTION_JOB_GROUPS -> {
          int n = count(d, bodyBudget, 16);
          for (int e = 0; e < n; e++) {
            Job j = bySeq.get(d.readLong());
            JobGroup g = groups.get(d.readLong());
            if (j == null || g == null || j.group.seq != 0) {
              throw new IOException("a queue snapshot puts no such job, or into no such group");
            }
            q.regroup(j, g);
          }
        }
        case SECTION_SCHEDULES -> {
          q.restoreScheduleSeq(d.readLong());
          int n = count(d, bodyBudget, 36);
          for (int e = 0; e < n; e++) {
            Schedule.Definition def = definition(readBytes(d, bodyBudget));
            long version = d.readLong();
            if (q.scheduleNamed(def.name()) != null || version < 1 || version > q.scheduleSeq()) {
              throw new IOException("a queue snapshot's schedule twice, or of a version not made");
            }
            Schedule sc = new Schedule(def, version, d.readLong());
            sc.runs = d.readLong();
            sc.lastRun = d.readLong();
            q.restoreSchedule(sc);
          }
        }
        case SECTION_RESULTS -> {
          long millis = d.readLong();
          long slice = d.readLong();
          long floor = d.readLong();
          if (millis < 0 || slice < 1000 || floor < 0) {
            throw new IOException("a queue snapshot's results out of range");
          }
          q.restoreResults(millis, slice, floor);
        }
        case SECTION_EVENTS -> {
          int capacity = d.readInt();
          long nextId = d.readLong();
          int n = count(d, bodyBudget, 25);
          if (capacity < 0 || capacity > MAX_EVENTS || n > capacity || nextId < 1) {
            throw new IOException("a queue snapshot's events out of range");
          }
          List<JobQueue.Event> kept = new ArrayList<>(n);
          long last = 0;
          for (int e = 0; e < n; e++) {
            long id = d.readLong();
            long time = d.readLong();
            int type = d.readUnsignedByte();
            if (id <= last || id >= nextId || type >= JobQueue.EventType.values().length) {
              throw new IOException("a queue snapshot's event out of order or of no known type");
            }
            last = id;
            kept.add(
                new JobQueue.Event(
                    id,
                    time,
                    JobQueue.EventType.values()[type],
                    readBytes(d, bodyBudget),
                    readBytes(d, bodyBudget)));
          }
          q.restoreEvents(capacity, nextId, kept);
        }
        case SECTION_FLOWS -> {
          int n = count(d, bodyBudget, 21);
          for (int e = 0; e < n; e++) {
            Job p = bySeq.get(d.readLong());
            int policy = d.readUnsignedByte();
            int pending = d.readInt();
            int failed = d.readInt();
            int children = count(d, bodyBudget, 4);
            if (p == null
                || p.flow() != null
                || policy > 2
                || pending < 0
                || failed < 0
                || children > JobQueue.MAX_FLOW_JOBS) {
              throw new IOException(
                  "a queue snapshot's flow names no such job, or is out of range");
            }
            List<byte[]> ids = new ArrayList<>(children);
            for (int c = 0; c < children; c++) {
              ids.add(jobId(readBytes(d, bodyBudget)));
            }
            q.restoreFlow(p, JobQueue.OnChildFail.values()[policy], pending, failed, ids);
          }
          int links = count(d, bodyBudget, 16);
          for (int e = 0; e < links; e++) {
            Job c = bySeq.get(d.readLong());
            Job p = bySeq.get(d.readLong());
            if (c == null || p == null || p.flow() == null || c.parent() != null) {
              throw new IOException("a queue snapshot links a job to no such parent");
            }
            q.restoreLink(c, p);
          }
        }
        default -> throw new IOException("a queue snapshot section " + tag + " is not known");
      }
      if (d.available() > 0) {
        throw new IOException("a queue snapshot section " + tag + " has bytes too many");
      }
    }
    if (scheduler != null) {
      q.restoreScheduler(scheduler[0], scheduler[1], scheduler[2]);
    }
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
