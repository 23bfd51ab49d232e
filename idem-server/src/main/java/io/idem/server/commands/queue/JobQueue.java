package io.idem.server.commands.queue;

import io.idem.core.rate.Gcra;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.jspecify.annotations.Nullable;

/**
 * A durable job queue's state: jobs waiting (due now or later), leased to a worker until a time, or
 * dead after their last attempt, and the ids a unique job keeps for its window. Every operation
 * takes the time it happens at and is deterministic, so replaying the logged operations in order
 * gives back the same queue; the caller draws any randomness (a backoff's jitter) and passes its
 * result in.
 *
 * <p>Order: among the jobs due when a worker reserves, the highest priority first, then the
 * earliest due time, then the order they were added (FIFO). A job is leased to one worker at a
 * time, under a token no other lease of this queue ever had: acking, failing, extending or
 * releasing with another token does nothing, whatever became of the job since (released, replayed,
 * its id reused). A lease that expires makes the job due again (at-least-once delivery), or dead if
 * that was its last attempt.
 *
 * <p>Tokens count up from the first reserve's time shifted left by 16 bits, so a queue deleted and
 * made again at a later millisecond hands out none of its earlier life's tokens unless that life
 * leased more than 65,536 jobs a millisecond.
 *
 * <p>Not thread-safe: the caller holds the key's lock.
 */
public final class JobQueue {

  /** Where a job is. */
  enum State {
    WAITING,
    LEASED,
    DEAD,
    /** A flow's parent whose children are not all done: in no order, only in the index. */
    WAITING_CHILDREN;

    /** As replies name it: lower case, words joined by a hyphen. */
    String text() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
  }

  /** How a failed job waits before its next attempt. */
  enum BackoffKind {
    FIXED,
    EXPONENTIAL
  }

  /**
   * A backoff: {@code base} milliseconds, doubled for each attempt after the first when
   * exponential, at most {@code max}.
   */
  record Backoff(BackoffKind kind, long base, long max) {
    static final Backoff NONE = new Backoff(BackoffKind.FIXED, 0, 0);

    /** The delay before attempt {@code attempts + 1}, after {@code attempts} failed. */
    long delay(int attempts) {
      if (kind == BackoffKind.FIXED) {
        return Math.min(base, max);
      }
      int shift = Math.min(Math.max(attempts - 1, 0), 62);
      long d = base > (Long.MAX_VALUE >> shift) ? Long.MAX_VALUE : base << shift;
      return Math.min(d, max);
    }
  }

  /**
   * A job's id as a map key: one small object beside the id's array, a fraction of a ByteBuffer
   * around it (the maps hold a key a job; docs/benchmarks/percore.md has the bytes). Ordered as a
   * ByteBuffer of the bytes was (signed, then length), so snapshots list done ids as before.
   */
  record Id(byte[] bytes) implements Comparable<Id> {
    @Override
    public boolean equals(Object o) {
      return o instanceof Id other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes);
    }

    @Override
    public int compareTo(Id o) {
      return Arrays.compare(bytes, o.bytes);
    }

    @Override
    public String toString() {
      return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  /**
   * What a job was added with that most jobs share: its attempts, its backoff and its unique
   * window. Jobs added alike share one (see {@link #spec}).
   */
  record Spec(int maxAttempts, Backoff backoff, long uniqueMillis) {
    static final Spec DEFAULT = new Spec(1, Backoff.NONE, 0);
  }

  /**
   * One job. Its fields change only through the queue. Held compactly, since a queue holds millions
   * (docs/benchmarks/percore.md has the bytes): the id and the payload in one array, no id at all
   * when it is the job's number in decimal, the options shared, the state a byte.
   */
  static final class Job {
    final long seq;

    /** The id's bytes then the payload's; the payload alone when the id is {@link #seq}'s. */
    private final byte[] data;

    /** The id's length in {@link #data}, or -1: the id is {@link #seq} in decimal. */
    private final short idLength;

    final int priority;
    private final Spec spec;
    long due;
    int attempts;
    long token;
    long leaseUntil;
    private byte state;

    /** The job's place in the one order that holds it ({@link JobHeap}), or -1. */
    int heapIndex = -1;

    /** Its group: the queue's default group unless it was added with one. */
    JobGroup group;

    /** What few jobs have (errors, progress, a cancel): null until the first (most have none). */
    @Nullable Extra extra;

    /**
     * @param id the job's id; the decimal of {@code seq} is not kept, but made when asked
     */
    Job(long seq, byte[] id, byte[] payload, int priority, long due, Spec spec) {
      if (id.length > Short.MAX_VALUE) {
        throw new IllegalArgumentException("a job id of " + id.length + " bytes");
      }
      this.seq = seq;
      this.priority = priority;
      this.due = due;
      this.spec = spec;
      if (isDecimal(id, seq)) {
        this.idLength = -1;
        this.data = payload;
      } else {
        this.idLength = (short) id.length;
        this.data = Arrays.copyOf(id, id.length + payload.length);
        System.arraycopy(payload, 0, data, id.length, payload.length);
      }
      this.state = (byte) State.WAITING.ordinal();
    }

    byte[] id() {
      return idLength < 0
          ? Long.toString(seq).getBytes(java.nio.charset.StandardCharsets.US_ASCII)
          : Arrays.copyOf(data, idLength);
    }

    byte[] payload() {
      return idLength < 0 ? data : Arrays.copyOfRange(data, idLength, data.length);
    }

    State state() {
      return STATES[state];
    }

    void state(State s) {
      state = (byte) s.ordinal();
    }

    int maxAttempts() {
      return spec.maxAttempts();
    }

    Backoff backoff() {
      return spec.backoff();
    }

    long uniqueMillis() {
      return spec.uniqueMillis();
    }

    Spec spec() {
      return spec;
    }

    /** Its id as a job number, or 0 if it reads as none ({@link JobQueue#numeric}). */
    long numericId() {
      return idLength < 0 ? seq : numeric(data, 0, idLength);
    }

    /** Whether {@code id} is this job's id, made of no new array. */
    boolean idEquals(byte[] id) {
      return idLength < 0 ? isDecimal(id, seq) : Arrays.equals(data, 0, idLength, id, 0, id.length);
    }

    /** {@link #hash} of this job's id. */
    int idHash() {
      int h = 1;
      if (idLength < 0) {
        // The decimal digits, most significant first, made of no string (an ack hashes it).
        long pow = 1;
        while (seq / pow >= 10) {
          pow *= 10;
        }
        for (; pow > 0; pow /= 10) {
          h = 31 * h + ('0' + (int) (seq / pow % 10));
        }
      } else {
        for (int i = 0; i < idLength; i++) {
          h = 31 * h + data[i];
        }
      }
      return mix(h);
    }

    /** An id's hash, as the index files it: Arrays.hashCode of its bytes, mixed. */
    static int hash(byte[] id) {
      return mix(Arrays.hashCode(id));
    }

    private static int mix(int h) {
      h ^= h >>> 16;
      h *= 0x45d9f3b;
      return h ^ (h >>> 16);
    }

    /** Whether {@code id} is {@code seq} in decimal (seq is positive: no sign, no leading 0). */
    private static boolean isDecimal(byte[] id, long seq) {
      if (seq <= 0 || id.length == 0 || id.length > 19 || id[0] == '0') {
        return false;
      }
      long v = seq;
      for (int i = id.length - 1; i >= 0; i--) {
        if (id[i] != '0' + (int) (v % 10)) {
          return false;
        }
        v /= 10;
      }
      return v == 0;
    }

    /** The errors of its failed attempts, oldest first. */
    List<String> errors() {
      return extra == null ? List.of() : extra.errors;
    }

    /** The last progress its holder reported, or null. */
    byte @Nullable [] progress() {
      return extra == null ? null : extra.progress;
    }

    /** Whether it was cancelled while leased: its holder's next call is told, and it leaves. */
    boolean cancelled() {
      return extra != null && extra.cancelled;
    }

    private Extra extra() {
      if (extra == null) {
        extra = new Extra();
      }
      return extra;
    }

    void addError(String error) {
      Extra x = extra();
      if (x.errors.isEmpty()) {
        x.errors = new ArrayList<>(2);
      }
      x.errors.add(error);
    }

    void progress(byte @Nullable [] value) {
      extra().progress = value;
    }

    void cancel() {
      extra().cancelled = true;
    }

    /** A flow's child: its parent while both are in the queue, else null. */
    @Nullable Job parent() {
      return extra == null ? null : extra.parent;
    }

    /** A flow's parent: its children's count, else null. */
    @Nullable Flow flow() {
      return extra == null ? null : extra.flow;
    }

    /** A replayed dead job starts again: no errors, no progress (its flow links stay). */
    void clearExtra() {
      if (extra != null && (extra.parent != null || extra.flow != null)) {
        extra.errors = List.of();
        extra.progress = null;
        extra.cancelled = false;
      } else {
        extra = null;
      }
    }

    /**
     * Bytes this job holds in memory, about: itself (72), its array, its options unless shared by
     * default, its extra; checked against a class histogram. Its slots in the index and an order
     * are counted with their arrays.
     */
    long memory() {
      long m = 72 + ((16 + data.length + 7) & ~7L) + (spec == Spec.DEFAULT ? 0 : 40);
      if (extra != null) {
        m += 32;
        for (String e : extra.errors) {
          m += 40 + 2L * e.length();
        }
        if (extra.progress != null) {
          m += (16 + extra.progress.length + 7) & ~7L;
        }
        if (extra.flow != null) {
          m += extra.flow.memory;
        }
      }
      return m;
    }
  }

  /** What few jobs have, made at the first need and dropped with the job. */
  static final class Extra {
    List<String> errors = List.of();
    byte @Nullable [] progress;
    boolean cancelled;
    @Nullable Job parent;
    @Nullable Flow flow;
  }

  /** What a flow's parent does when a child dies or is cancelled. */
  enum OnChildFail {
    /** The parent goes to the dead letters, with the child's error. */
    FAIL,
    /** The parent waits until the child is replayed and done (or the parent is cancelled). */
    HOLD,
    /** The child counts as done, with no result. */
    IGNORE
  }

  /**
   * A flow's parent's children: how many are still to finish, how many failed (dead or cancelled,
   * under FAIL or HOLD), and their ids in the order added. The parent is due once both counts are
   * 0.
   */
  static final class Flow {
    final OnChildFail onChildFail;
    int pending;
    int failed;
    final List<byte[]> children = new ArrayList<>();

    /** Bytes it holds, about: itself, its list, the ids. */
    long memory = 64;

    Flow(OnChildFail onChildFail) {
      this.onChildFail = onChildFail;
    }

    void addChild(byte[] id) {
      children.add(id);
      memory += 8 + ((16 + id.length + 7) & ~7L);
    }
  }

  /**
   * One job of a flow (QUEUE.FLOW): the first is the root; {@code parent} indexes an earlier one.
   */
  record FlowJob(
      byte @Nullable [] id,
      byte[] payload,
      int priority,
      long due,
      int maxAttempts,
      Backoff backoff,
      long uniqueMillis,
      byte @Nullable [] group,
      int parent,
      OnChildFail onChildFail) {}

  /** At most this many children a parent, and jobs a flow. */
  static final int MAX_FLOW_JOBS = 10_000;

  /** Flow parents in the queue: while there are none, an ack looks at no links. */
  private int flowParents;

  /** Parents waiting for their children. */
  private long waitingChildren;

  private static final State[] STATES = State.values();

  /** Delayed jobs, by due time then order added: promoted to their group's ready once due. */
  private final JobHeap delayed = new JobHeap(JobHeap.Order.DUE);

  /**
   * Jobs added without a group. Each group holds its due jobs: the highest priority first, then the
   * earliest due, then the order added.
   */
  private final JobGroup defaultGroup = new JobGroup(new byte[0], 0);

  /** Named groups, in the order made (which is their seq's). */
  private final LinkedHashMap<Id, JobGroup> groups = new LinkedHashMap<>();

  private long nextGroupSeq = 1;

  /** Groups that may lease now (due jobs, not paused, under their concurrency), by pass. */
  private final JobGroup.Heap eligible = new JobGroup.Heap(true);

  /** Groups with due jobs that wait for their rate, by the time it lets them. */
  private final JobGroup.Heap rateBlocked = new JobGroup.Heap(false);

  /**
   * Groups with no jobs and no settings, by when they may be dropped (their rate is full again).
   */
  private final PriorityQueue<JobGroup> idleGroups =
      new PriorityQueue<>(
          Comparator.comparingLong((JobGroup g) -> g.blockedUntil).thenComparingLong(g -> g.seq));

  /** Stride scheduling's clock: the pass of the group served last. */
  private long virtualTime;

  private long readyCount;
  private long leasedCount;

  /** The queue's own rate (every lease counts) and its TAT in ns; null: none. */
  private Gcra.@Nullable Quota rate;

  private long rateTat = -1;

  /** At most this many leased at once in the queue; 0: no limit. */
  private int concurrency;

  /** What every named group gets unless it sets its own. */
  private Gcra.@Nullable Quota groupRate;

  private int groupConcurrency;

  /** Repeatable jobs, by name (the order they are listed and written in). */
  private final java.util.TreeMap<Id, Schedule> schedules = new java.util.TreeMap<>();

  /** Definitions made so far: each schedule's version, which a FIRE must name. */
  private long scheduleSeq;

  /** How long a finished job's result stays readable (0: results are not kept). */
  private long resultMillis;

  /** Results are rows by the slice of time they were stored in: its width, fixed at first use. */
  private long resultSliceMillis;

  /** The lowest slice whose rows may still be live: those below are deleted. */
  private long resultsFloor;

  /** What happened to jobs, newest last, at most {@link #eventCapacity} (0: none kept). */
  private final java.util.ArrayDeque<Event> events = new java.util.ArrayDeque<>();

  private int eventCapacity;
  private long nextEventId = 1;

  /** What a job went through, as QUEUE.EVENTS lists it. */
  enum EventType {
    ADDED,
    LEASED,
    PROGRESS,
    DONE,
    FAILED,
    DEAD,
    CANCELLED,
    RELEASED;

    String text() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** One event: its id (counting up), time, type, job id, and detail (an error, a progress). */
  record Event(long id, long time, EventType type, byte[] jobId, byte[] detail) {}

  private void emit(long now, EventType type, byte[] jobId, byte[] detail) {
    if (eventCapacity == 0) {
      return;
    }
    events.addLast(new Event(nextEventId++, now, type, jobId, detail));
    memory += 64 + jobId.length + detail.length;
    while (events.size() > eventCapacity) {
      Event e = events.pollFirst();
      memory -= 64 + e.jobId().length + e.detail().length;
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  private static final byte[] NONE = new byte[0];

  /** Keeps the last {@code capacity} events (0: none, and those kept go). */
  void configureEvents(int capacity) {
    eventCapacity = capacity;
    while (events.size() > capacity) {
      Event e = events.pollFirst();
      memory -= 64 + e.jobId().length + e.detail().length;
    }
  }

  int eventCapacity() {
    return eventCapacity;
  }

  long nextEventId() {
    return nextEventId;
  }

  java.util.Collection<Event> events() {
    return events;
  }

  void restoreEvents(int capacity, long nextId, List<Event> kept) {
    eventCapacity = capacity;
    nextEventId = nextId;
    for (Event e : kept) {
      events.addLast(e);
      memory += 64 + e.jobId().length + e.detail().length;
    }
  }

  /** Leased jobs, by lease end then order added. */
  private final JobHeap leased = new JobHeap(JobHeap.Order.LEASE_END);

  /** Dead jobs, in the order they died. */
  private final LinkedHashMap<Id, Job> dead = new LinkedHashMap<>();

  /** Every job not acked, by id. */
  private final JobIndex byId = new JobIndex();

  /** Ids of acked unique jobs, until their window ends: a second add of one is a duplicate. */
  private final Map<Id, Long> doneUntil = new HashMap<>();

  /** The same ids by the end of their window, so that dropping them looks at no other. */
  private final PriorityQueue<DoneId> doneOrder =
      new PriorityQueue<>(Comparator.comparingLong(DoneId::until));

  private record DoneId(long until, Id id) {}

  private long nextSeq = 1;

  /** The next lease's token; 0 until the first reserve. */
  private long nextToken;

  private long memory;

  /** A paused queue leases nothing; adds and lease ends go on. */
  private boolean paused;

  /** The options of the last job added with options of its own: the next like it shares them. */
  private Spec lastSpec = Spec.DEFAULT;

  /**
   * The largest id given explicitly that reads as a job's number (0: none): a job added without an
   * id takes the next number whose decimal no job, unique window or flow in making holds, so an
   * explicit "7" and the seventh job never share an id. Derived again on a restore.
   */
  private long maxNumericId;

  /** The next job number free as an id (checked only below the largest explicit numeric id). */
  private long nextAutoSeq(java.util.@Nullable Set<Id> reserved) {
    long seq = nextSeq++;
    while (seq <= maxNumericId) {
      byte[] dec = Long.toString(seq).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      Id k = new Id(dec);
      if (byId.get(dec) == null
          && !doneUntil.containsKey(k)
          && (reserved == null || !reserved.contains(k))) {
        break;
      }
      seq = nextSeq++;
    }
    return seq;
  }

  /** The bytes as a job number (a positive decimal, no leading 0, at most 18 digits), or 0. */
  static long numeric(byte[] b, int from, int to) {
    if (to - from < 1 || to - from > 18 || b[from] == '0') {
      return 0;
    }
    long v = 0;
    for (int i = from; i < to; i++) {
      if (b[i] < '0' || b[i] > '9') {
        return 0;
      }
      v = v * 10 + (b[i] - '0');
    }
    return v;
  }

  /** Options to add a job with: one shared instance for jobs added alike in a row. */
  Spec spec(int maxAttempts, Backoff backoff, long uniqueMillis) {
    Spec s = new Spec(maxAttempts, backoff, uniqueMillis);
    if (s.equals(Spec.DEFAULT)) {
      return Spec.DEFAULT;
    }
    if (!s.equals(lastSpec)) {
      lastSpec = s;
    }
    return lastSpec;
  }

  /** The outcome of {@link #add}: the job, and whether it was new or held the id already. */
  record Added(boolean isNew, byte[] id, @Nullable State state) {}

  /**
   * Adds a job due at {@code due}. With no {@code id}, the job's id is its sequence number in
   * decimal.
   *
   * @param uniqueMillis with an id: how long after the job is acked the id stays taken (0: until it
   *     is acked)
   */
  Added add(
      long now,
      byte @Nullable [] id,
      byte[] payload,
      int priority,
      long due,
      int maxAttempts,
      Backoff backoff,
      long uniqueMillis) {
    return add(now, id, payload, priority, due, maxAttempts, backoff, uniqueMillis, null);
  }

  /** As {@link #add}, into the group named {@code group} (made if new; null: the default one). */
  Added add(
      long now,
      byte @Nullable [] id,
      byte[] payload,
      int priority,
      long due,
      int maxAttempts,
      Backoff backoff,
      long uniqueMillis,
      byte @Nullable [] group) {
    return add(now, id, payload, priority, due, maxAttempts, backoff, uniqueMillis, group, null);
  }

  private Added add(
      long now,
      byte @Nullable [] id,
      byte[] payload,
      int priority,
      long due,
      int maxAttempts,
      Backoff backoff,
      long uniqueMillis,
      byte @Nullable [] group,
      java.util.@Nullable Set<Id> reserved) {
    dropDoneIds(now);
    if (id != null) {
      Job holder = byId.get(id);
      if (holder != null) {
        return new Added(false, holder.id(), holder.state());
      }
      if (doneUntil.containsKey(new Id(id))) {
        return new Added(false, id, null);
      }
      maxNumericId = Math.max(maxNumericId, numeric(id, 0, id.length));
    }
    long seq = id != null ? nextSeq++ : nextAutoSeq(reserved);
    byte[] jobId =
        id != null ? id : Long.toString(seq).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    Job j = new Job(seq, jobId, payload, priority, due, spec(maxAttempts, backoff, uniqueMillis));
    j.group = group(now, group, true);
    j.group.jobs++;
    byId.add(j);
    delayed.add(j);
    memory += j.memory();
    emit(now, EventType.ADDED, jobId, NONE);
    return new Added(true, jobId, State.WAITING);
  }

  /**
   * The outcome of {@link #flow}: each job's id, or the first id that was taken (nothing added).
   */
  record FlowAdded(List<byte[]> ids, byte @Nullable [] taken) {}

  /**
   * Adds a flow: every job, or none if an id is taken (by a job here, a unique job's window, or an
   * earlier job of the flow). A job with children waits for them ({@link State#WAITING_CHILDREN});
   * the others are due as added.
   */
  FlowAdded flow(long now, List<FlowJob> jobs) {
    dropDoneIds(now);
    java.util.Set<Id> seen = new java.util.HashSet<>();
    int[] children = new int[jobs.size()];
    for (int i = 0; i < jobs.size(); i++) {
      FlowJob f = jobs.get(i);
      if (f.parent() >= i || f.parent() < (i == 0 ? -1 : 0)) {
        throw new IllegalArgumentException("a flow job's parent must come before it");
      }
      if (f.parent() >= 0) {
        children[f.parent()]++;
      }
      if (f.id() != null
          && (byId.get(f.id()) != null
              || doneUntil.containsKey(new Id(f.id()))
              || !seen.add(new Id(f.id())))) {
        return new FlowAdded(List.of(), f.id());
      }
    }
    for (Id k : seen) {
      // The flow's own ids are taken before any of its jobs numbers itself.
      maxNumericId = Math.max(maxNumericId, numeric(k.bytes(), 0, k.bytes().length));
    }
    List<Job> added = new ArrayList<>(jobs.size());
    List<byte[]> ids = new ArrayList<>(jobs.size());
    for (int i = 0; i < jobs.size(); i++) {
      FlowJob f = jobs.get(i);
      byte[] id =
          add(
                  now,
                  f.id(),
                  f.payload(),
                  f.priority(),
                  f.due(),
                  f.maxAttempts(),
                  f.backoff(),
                  f.uniqueMillis(),
                  f.group(),
                  seen)
              .id();
      Job j = byId.get(id);
      memory -= j.memory();
      if (children[i] > 0) {
        delayed.remove(j);
        j.state(State.WAITING_CHILDREN);
        j.extra().flow = new Flow(f.onChildFail());
        flowParents++;
        waitingChildren++;
      }
      if (f.parent() >= 0) {
        Job p = added.get(f.parent());
        memory -= p.memory();
        j.extra().parent = p;
        p.flow().pending++;
        p.flow().addChild(id);
        memory += p.memory();
      }
      memory += j.memory();
      added.add(j);
      ids.add(id);
    }
    return new FlowAdded(ids, null);
  }

  /** Whether any job here is a flow's parent (a child's ack then writes its result for it). */
  boolean hasFlows() {
    return flowParents > 0;
  }

  long waitingChildren() {
    return waitingChildren;
  }

  /** A child is done: its parent has one fewer to wait for. */
  private void childDone(Job child, long now) {
    Job p = child.parent();
    if (p != null) {
      p.flow().pending--;
      releaseIfDone(p, now);
    }
  }

  /** A child died or was cancelled: counted by its parent's policy (the FAIL of it, at once). */
  private void childFailed(Job child, long now) {
    Job p = child.parent();
    if (p == null) {
      return;
    }
    Flow f = p.flow();
    f.pending--;
    if (f.onChildFail == OnChildFail.IGNORE) {
      releaseIfDone(p, now);
      return;
    }
    f.failed++;
    if (f.onChildFail == OnChildFail.FAIL && p.state() == State.WAITING_CHILDREN) {
      waitingChildren--;
      List<String> errors = child.errors();
      String why = errors.isEmpty() ? "cancelled" : errors.get(errors.size() - 1);
      String error =
          "child "
              + new String(child.id(), java.nio.charset.StandardCharsets.UTF_8)
              + " failed: "
              + why;
      addError(p, error);
      toDead(p, now);
      emit(now, EventType.DEAD, p.id(), utf8(error));
    }
  }

  /** A dead child replayed: its parent waits for it again. */
  private void childRevived(Job child) {
    Job p = child.parent();
    if (p != null) {
      p.flow().pending++;
      if (p.flow().onChildFail != OnChildFail.IGNORE) {
        p.flow().failed--;
      }
    }
  }

  private void releaseIfDone(Job p, long now) {
    Flow f = p.flow();
    if (f.pending == 0 && f.failed == 0 && p.state() == State.WAITING_CHILDREN) {
      waitingChildren--;
      p.state(State.WAITING);
      p.due = now;
      delayed.add(p);
    }
  }

  /** Undoes a leaving job's links: from its parent, and its live children's to it. */
  private void unlink(Job j) {
    if (j.extra == null) {
      return;
    }
    j.extra.parent = null;
    Flow f = j.extra.flow;
    if (f != null) {
      flowParents--;
      for (byte[] id : f.children) {
        Job c = byId.get(id);
        if (c != null && c.parent() == j) {
          c.extra.parent = null;
        }
      }
      memory -= f.memory;
      j.extra.flow = null;
    }
  }

  /** The seqs of the flow parents among the dead: their children's results go with a purge. */
  List<Long> deadFlowSeqs() {
    List<Long> out = new ArrayList<>();
    for (Job j : dead.values()) {
      if (j.flow() != null) {
        out.add(j.seq);
      }
    }
    return out;
  }

  /**
   * Leases up to {@code count} due jobs until {@code leaseUntil}, in order; first makes due the
   * delayed jobs whose time has come, and the jobs whose lease expired.
   */
  List<Job> reserve(long now, int count, long leaseUntil) {
    settle(now);
    if (paused) {
      return List.of();
    }
    List<Job> out = new ArrayList<>((int) Math.min(count, readyCount));
    if (nextToken == 0 && readyCount > 0) {
      nextToken = Math.max(now, 1) << 16;
    }
    if (groups.isEmpty() && rate == null && concurrency == 0) {
      // One group and no limits: the jobs in priority order, as a queue without groups.
      JobGroup g = defaultGroup;
      while (out.size() < count && !g.ready.isEmpty()) {
        out.add(lease(now, g, leaseUntil));
      }
      recheck(g);
      return out;
    }
    long nowNanos = now > Long.MAX_VALUE / 1_000_000L ? Long.MAX_VALUE : now * 1_000_000L;
    while (out.size() < count) {
      if (concurrency > 0 && leasedCount >= concurrency) {
        break;
      }
      Gcra.Decision queueRate =
          rate == null ? null : Gcra.decide(JobGroup.perMillisecond(rate), rateTat, nowNanos, 1);
      if (queueRate != null && queueRate.limited()) {
        break;
      }
      JobGroup g = eligible.peek();
      if (g == null) {
        break;
      }
      Gcra.Quota own = rateOf(g);
      Gcra.Decision groupRate =
          own == null ? null : Gcra.decide(JobGroup.perMillisecond(own), g.tat, nowNanos, 1);
      if (groupRate != null && groupRate.limited()) {
        eligible.remove(g);
        g.where = JobGroup.RATE_BLOCKED;
        g.blockedUntil = JobGroup.allowedAt(own, g.tat);
        rateBlocked.add(g);
        continue;
      }
      if (queueRate != null) {
        rateTat = queueRate.newTatNanos();
      }
      if (groupRate != null) {
        g.tat = groupRate.newTatNanos();
      }
      out.add(lease(now, g, leaseUntil));
      eligible.remove(g);
      g.where = JobGroup.NOWHERE;
      if (!groups.isEmpty()) {
        virtualTime = g.pass;
        g.pass += JobGroup.STRIDE / g.weight;
      }
      recheck(g);
    }
    return out;
  }

  /** Leases the group's first due job under the next token. */
  private Job lease(long now, JobGroup g, long leaseUntil) {
    Job j = g.ready.poll();
    readyCount--;
    j.attempts++;
    j.token = nextToken++;
    j.state(State.LEASED);
    j.leaseUntil = leaseUntil;
    leased.add(j);
    g.leased++;
    leasedCount++;
    if (eventCapacity > 0) {
      emit(now, EventType.LEASED, j.id(), utf8(Integer.toString(j.attempts)));
    }
    return j;
  }

  /** A leased job's lease is over (acked, failed, released, ended, cancelled). */
  private void unlease(Job j) {
    leased.remove(j);
    JobGroup g = j.group;
    g.leased--;
    leasedCount--;
    recheck(g);
  }

  private void toReady(Job j) {
    j.group.ready.add(j);
    readyCount++;
    recheck(j.group);
  }

  private Gcra.@Nullable Quota rateOf(JobGroup g) {
    return g == defaultGroup ? null : g.rate(groupRate);
  }

  private boolean atConcurrency(JobGroup g) {
    int c = g == defaultGroup ? 0 : g.concurrency(groupConcurrency);
    return c > 0 && g.leased >= c;
  }

  /**
   * Puts the group where it belongs after a change: among the eligible if it has due jobs, is not
   * paused and is under its concurrency (joining at the scheduler's clock, so an idle group banks
   * no credit); a rate-blocked group stays so until its time; otherwise in neither.
   */
  private void recheck(JobGroup g) {
    boolean can = !g.ready.isEmpty() && !g.paused && !atConcurrency(g);
    if (!can) {
      unschedule(g);
    } else if (g.where == JobGroup.NOWHERE) {
      g.pass = Math.max(g.pass, virtualTime);
      g.where = JobGroup.ELIGIBLE;
      eligible.add(g);
    }
  }

  private void unschedule(JobGroup g) {
    if (g.where == JobGroup.ELIGIBLE) {
      eligible.remove(g);
    } else if (g.where == JobGroup.RATE_BLOCKED) {
      rateBlocked.remove(g);
    }
    g.where = JobGroup.NOWHERE;
  }

  /** The group named, or the default group for null; made if {@code create}, else maybe null. */
  private @Nullable JobGroup group(long now, byte @Nullable [] name, boolean create) {
    if (name == null) {
      return defaultGroup;
    }
    // Idle groups are dropped by settle alone, which is logged when it drops one: a lookup sees
    // the same groups on a replay as it saw live.
    Id k = new Id(name);
    JobGroup g = groups.get(k);
    if (g == null && create) {
      g = new JobGroup(name.clone(), nextGroupSeq++);
      groups.put(k, g);
      memory += 240 + name.length;
    }
    return g;
  }

  /** Queues the group to be dropped once its rate is full again, if it has no jobs or settings. */
  private void maybeIdle(JobGroup g) {
    if (g != defaultGroup && g.jobs == 0 && g.plain() && !g.idle) {
      g.idle = true;
      g.blockedUntil = dropAt(g);
      idleGroups.add(g);
    }
  }

  private static long dropAt(JobGroup g) {
    return g.tat < 0 ? Long.MIN_VALUE : Math.floorDiv(g.tat, 1_000_000L) + 1;
  }

  /** Drops the idle groups whose time came; whether it dropped one (a change to log). */
  private boolean dropIdle(long now) {
    boolean dropped = false;
    while (!idleGroups.isEmpty() && idleGroups.peek().blockedUntil <= now) {
      JobGroup g = idleGroups.poll();
      g.idle = false;
      if (g.jobs != 0 || !g.plain()) {
        continue;
      }
      long at = dropAt(g);
      if (at > now) {
        maybeIdle(g); // its rate was used since: later
        continue;
      }
      unschedule(g);
      groups.remove(new Id(g.name));
      memory -= 240 + g.name.length;
      dropped = true;
    }
    if (dropped && groups.isEmpty()) {
      virtualTime = 0; // one group again: passes no longer matter, and a plain queue is written
      defaultGroup.pass = 0;
    }
    return dropped;
  }

  /**
   * Moves due delayed jobs to ready, and expired leases back to waiting (or to the dead), lets
   * rate-blocked groups whose time came go again, and drops idle groups whose time came. True if a
   * lease ended or a group was dropped: that changes what the queue answers or holds, so a caller
   * that settles must log it, while making a delayed job ready changes nothing a later settle would
   * not.
   */
  boolean settle(long now) {
    Job first = leased.peek();
    boolean ended = first != null && first.leaseUntil <= now;
    for (Job j = first; j != null && j.leaseUntil <= now; j = leased.peek()) {
      unlease(j);
      if (j.cancelled()) {
        forget(j); // cancelled while leased: it leaves rather than running again
        continue;
      }
      String expired = "lease expired at " + j.leaseUntil;
      addError(j, expired);
      if (eventCapacity > 0) {
        emit(
            now,
            j.attempts >= j.maxAttempts() ? EventType.DEAD : EventType.FAILED,
            j.id(),
            utf8(expired));
      }
      if (j.attempts >= j.maxAttempts()) {
        toDead(j, now);
      } else {
        j.state(State.WAITING);
        j.due = j.leaseUntil;
        delayed.add(j);
      }
    }
    for (Job j = delayed.peek(); j != null && j.due <= now; j = delayed.peek()) {
      delayed.remove(j);
      toReady(j);
    }
    for (JobGroup g = rateBlocked.peek();
        g != null && g.blockedUntil <= now;
        g = rateBlocked.peek()) {
      unschedule(g);
      recheck(g);
    }
    dropDoneIds(now);
    return dropIdle(now) | ended;
  }

  private void addError(Job j, String error) {
    memory -= j.memory();
    j.addError(error);
    memory += j.memory();
  }

  /** Takes a job out of the index and the memory count; the caller took it out of its order. */
  private void forget(Job j) {
    unlink(j);
    byId.remove(j);
    memory -= j.memory();
    j.group.jobs--;
    maybeIdle(j.group);
  }

  private void toDead(Job j, long now) {
    j.state(State.DEAD);
    dead.put(new Id(j.id()), j);
    childFailed(j, now);
  }

  /** The job leased under this token, or null. */
  private @Nullable Job leasedAs(byte[] id, long token) {
    Job j = byId.get(id);
    return j != null && j.state() == State.LEASED && j.token == token ? j : null;
  }

  /** What a lease holder's call did to its job. */
  enum Held {
    /** It did what was asked. */
    DONE,
    /** The lease of this token does not hold the job: nothing changed. */
    NOT_LEASED,
    /** The job was cancelled while leased: it is gone now, and the holder should stop. */
    CANCELLED
  }

  /**
   * The job leased under this token and not cancelled; or, when it was cancelled, null after taking
   * it out (the holder is told by {@code cancelled[0]}).
   */
  private @Nullable Job heldAs(byte[] id, long token, boolean[] cancelled) {
    Job j = leasedAs(id, token);
    if (j != null && j.cancelled()) {
      unlease(j);
      forget(j);
      cancelled[0] = true;
      return null;
    }
    return j;
  }

  private static Held held(boolean[] cancelled) {
    return cancelled[0] ? Held.CANCELLED : Held.NOT_LEASED;
  }

  /** Acks a leased job: it is done and gone. */
  Held ack(long now, byte[] id, long token) {
    boolean[] cancelled = {false};
    Job j = heldAs(id, token, cancelled);
    if (j == null) {
      return held(cancelled);
    }
    unlease(j);
    emit(now, EventType.DONE, id, NONE);
    childDone(j, now);
    forget(j);
    if (j.uniqueMillis() > 0) {
      restoreDone(id, now + j.uniqueMillis());
    }
    return Held.DONE;
  }

  /** What {@link #fail} did. */
  enum Failed {
    NOT_LEASED,
    RETRY,
    DEAD,
    /** Cancelled while leased: gone now, not retried. */
    CANCELLED
  }

  /**
   * A leased job failed with {@code error}: due again at {@code retryDue} (the caller adds the
   * backoff and its jitter), or dead if that was its last attempt.
   */
  Failed fail(long now, byte[] id, long token, String error, long retryDue) {
    boolean[] cancelled = {false};
    Job j = heldAs(id, token, cancelled);
    if (j == null) {
      return cancelled[0] ? Failed.CANCELLED : Failed.NOT_LEASED;
    }
    unlease(j);
    addError(j, error);
    if (j.attempts >= j.maxAttempts()) {
      emit(now, EventType.DEAD, id, utf8(error));
      toDead(j, now);
      return Failed.DEAD;
    }
    emit(now, EventType.FAILED, id, utf8(error));
    j.state(State.WAITING);
    j.due = retryDue;
    delayed.add(j);
    return Failed.RETRY;
  }

  /** Moves a leased job's lease end. */
  Held extend(byte[] id, long token, long leaseUntil) {
    boolean[] cancelled = {false};
    Job j = heldAs(id, token, cancelled);
    if (j == null) {
      return held(cancelled);
    }
    leased.remove(j);
    j.leaseUntil = leaseUntil;
    leased.add(j);
    return Held.DONE;
  }

  /**
   * Gives a leased job back before its lease ends, due at {@code due}: the attempt does not count.
   */
  Held release(byte[] id, long token, long due) {
    boolean[] cancelled = {false};
    Job j = heldAs(id, token, cancelled);
    if (j == null) {
      return held(cancelled);
    }
    unlease(j);
    j.attempts--;
    j.state(State.WAITING);
    j.due = due;
    delayed.add(j);
    emit(due, EventType.RELEASED, id, NONE); // at the time it is due again: RELEASE logs no other
    return Held.DONE;
  }

  /** Keeps the progress its holder reports ({@code value}, or null to clear it). */
  Held progress(long now, byte[] id, long token, byte @Nullable [] value) {
    boolean[] cancelled = {false};
    Job j = heldAs(id, token, cancelled);
    if (j == null) {
      return held(cancelled);
    }
    memory -= j.memory();
    j.progress(value);
    memory += j.memory();
    emit(now, EventType.PROGRESS, id, value == null ? NONE : value);
    return Held.DONE;
  }

  /** What {@link #cancel} did. */
  enum Cancelled {
    /** The job was waiting, delayed or dead: it is gone. */
    GONE,
    /** The job is leased: its holder's next call is told, and then it is gone. */
    LEASED,
    /** No such job. */
    NONE
  }

  /**
   * Cancels a job: one not leased leaves at once (its id free again); a leased one stays leased
   * under its token, so that its holder's next extend, progress, ack, fail or release tells it and
   * takes it out, or its lease's end does.
   */
  Cancelled cancel(long now, byte[] id) {
    return cancel(now, id, null);
  }

  /**
   * As {@link #cancel(long, byte[])}; a flow's parent takes its live descendants with it (each
   * cancelled as one job would be), and the seqs of the parents among them go into {@code flows}
   * (their children's results are to be deleted).
   */
  Cancelled cancel(long now, byte[] id, @Nullable List<Long> flows) {
    Job j = byId.get(id);
    if (j == null) {
      return Cancelled.NONE;
    }
    List<Job> tree = new ArrayList<>();
    tree.add(j);
    for (int i = 0; i < tree.size(); i++) {
      Flow f = tree.get(i).flow();
      if (f != null) {
        if (flows != null) {
          flows.add(tree.get(i).seq);
        }
        for (byte[] c : f.children) {
          Job child = byId.get(c);
          if (child != null && child.parent() == tree.get(i)) {
            tree.add(child);
          }
        }
      }
    }
    Cancelled out = cancelOne(now, j);
    for (int i = 1; i < tree.size(); i++) {
      cancelOne(now, tree.get(i));
    }
    return out;
  }

  private Cancelled cancelOne(long now, Job j) {
    byte[] id = j.id();
    if (!j.cancelled()) {
      emit(now, EventType.CANCELLED, id, NONE);
    }
    switch (j.state()) {
      case LEASED -> {
        if (j.cancelled()) {
          return Cancelled.LEASED; // cancelled already: its holder is still to be told
        }
        childFailed(j, now);
        unlink(j);
        memory -= j.memory();
        j.cancel();
        memory += j.memory();
        return Cancelled.LEASED;
      }
      case WAITING -> {
        childFailed(j, now);
        if (j.group.ready.holds(j)) {
          j.group.ready.remove(j);
          readyCount--;
          recheck(j.group);
        } else {
          delayed.remove(j);
        }
      }
      case WAITING_CHILDREN -> {
        waitingChildren--;
        childFailed(j, now);
      }
      case DEAD -> dead.remove(new Id(id)); // its death was counted by its parent
    }
    forget(j);
    return Cancelled.GONE;
  }

  /** Pauses or resumes the queue; whether that changed it. */
  boolean pause(boolean paused) {
    boolean changed = this.paused != paused;
    this.paused = paused;
    return changed;
  }

  boolean paused() {
    return paused;
  }

  /** The dead jobs, oldest death first, at most {@code count}. */
  List<Job> dead(int count) {
    List<Job> out = new ArrayList<>(Math.min(count, dead.size()));
    for (Iterator<Job> it = dead.values().iterator(); it.hasNext() && out.size() < count; ) {
      out.add(it.next());
    }
    return out;
  }

  /**
   * Makes dead jobs due at {@code now} again with their attempts and errors cleared: the one with
   * {@code id}, or every one when it is null. How many.
   */
  int replay(long now, byte @Nullable [] id) {
    List<Job> jobs = new ArrayList<>();
    if (id == null) {
      jobs.addAll(dead.values());
    } else {
      Job j = dead.get(new Id(id));
      if (j != null) {
        jobs.add(j);
      }
    }
    for (Job j : jobs) {
      dead.remove(new Id(j.id()));
      childRevived(j);
      memory -= j.memory();
      j.clearExtra();
      memory += j.memory();
      j.attempts = 0;
      j.state(State.WAITING);
      j.due = now;
      delayed.add(j);
    }
    return jobs.size();
  }

  /** Deletes every dead job; how many. */
  int purge() {
    int n = dead.size();
    for (Job j : dead.values()) {
      forget(j);
    }
    dead.clear();
    return n;
  }

  private void dropDoneIds(long now) {
    while (!doneOrder.isEmpty() && doneOrder.peek().until() <= now) {
      DoneId d = doneOrder.poll();
      if (doneUntil.remove(d.id(), d.until())) {
        memory -= 64 + d.id().bytes().length;
      }
    }
  }

  /** The job with this id, not acked yet, or null. */
  @Nullable Job job(byte[] id) {
    return byId.get(id);
  }

  /** A page of {@link #scan}: the jobs kept, and the cursor to go on from (0: the walk is done). */
  record JobPage(long cursor, List<Job> jobs) {}

  /**
   * The jobs not acked that {@code keep} accepts, from {@code cursor} on in the index's scan order
   * ({@link JobIndex#scan}): about {@code count} of them, probing about {@code budget} slots at
   * most, so a filter that keeps few still answers in bounded time, with a page that may be empty.
   */
  JobPage scan(long cursor, int count, int budget, java.util.function.Predicate<Job> keep) {
    List<Job> out = new ArrayList<>(Math.min(count, byId.size()));
    long next = byId.scan(cursor, count, budget, keep, out);
    return new JobPage(next, out);
  }

  /**
   * Counts as of {@code now}: due, delayed (due later), leased, dead. The orders' sizes, corrected
   * by a walk of only the delayed jobs whose time came and the leases that ended since the last
   * reserve settled them.
   */
  long[] counts(long now) {
    long[] c = {readyCount, delayed.size(), leased.size(), dead.size()};
    delayed.forEachFirst(
        j -> j.due <= now,
        j -> {
          c[0]++;
          c[1]--;
        });
    leased.forEachFirst(
        j -> j.leaseUntil <= now,
        j -> {
          c[2]--;
          if (j.cancelled()) {
            return; // it leaves
          }
          if (j.attempts >= j.maxAttempts()) {
            c[3]++; // its lease expired on its last attempt
          } else {
            c[0]++; // its lease expired: due again
          }
        });
    return c;
  }

  /**
   * When a reserve could next lease something, for a reserve that waits: Long.MIN_VALUE if now,
   * else the earliest time a job becomes due, a lease ends, or a rate lets a group (or the queue)
   * go; Long.MAX_VALUE if only a write can change it (a resume, an ack that frees a slot).
   */
  long nextWake() {
    if (paused) {
      return Long.MAX_VALUE; // RESUME wakes the waiters
    }
    boolean slot = concurrency == 0 || leasedCount < concurrency;
    if (slot && !eligible.isEmpty()) {
      return rate == null ? Long.MIN_VALUE : Math.max(JobGroup.allowedAt(rate, rateTat), 0);
    }
    long t = Long.MAX_VALUE;
    JobGroup blocked = rateBlocked.peek();
    if (slot && blocked != null) {
      t = blocked.blockedUntil;
    }
    Job d = delayed.peek();
    if (d != null) {
      t = d.due;
    }
    Job l = leased.peek();
    if (l != null) {
      t = Math.min(t, l.leaseUntil);
    }
    return t;
  }

  /** Bytes the queue holds in memory, about: the jobs, the index's and the orders' arrays. */
  long memoryUsage() {
    return 256
        + memory
        + byId.bytes()
        + defaultGroup.ready.bytes()
        + delayed.bytes()
        + leased.bytes()
        + 56L * dead.size()
        + 48L * doneUntil.size();
  }

  /** Every job not acked, in the order added: for snapshots. */
  List<Job> jobs() {
    List<Job> all = new ArrayList<>(byId.size());
    byId.forEach(all::add);
    all.sort((a, b) -> Long.compare(a.seq, b.seq));
    return all;
  }

  /** The ids of acked unique jobs with the end of their window, by that end then id. */
  List<Map.Entry<Id, Long>> doneIds() {
    List<Map.Entry<Id, Long>> out = new ArrayList<>(doneUntil.entrySet());
    out.sort(Map.Entry.<Id, Long>comparingByValue().thenComparing(Map.Entry.comparingByKey()));
    return out;
  }

  long nextSeq() {
    return nextSeq;
  }

  /**
   * Restores a job from a snapshot, in the state it was in. A waiting job goes among the delayed:
   * the next reserve makes it due, as it would have been. Dead jobs come back with {@link
   * #restoreDeadOrder}.
   */
  void restore(Job j) {
    maxNumericId = Math.max(maxNumericId, j.numericId());
    j.group = defaultGroup;
    defaultGroup.jobs++;
    if (j.state() == State.LEASED) {
      defaultGroup.leased++;
      leasedCount++;
    }
    byId.add(j);
    memory += j.memory();
    switch (j.state()) {
      case WAITING -> delayed.add(j);
      case LEASED -> leased.add(j);
      case DEAD -> {} // in restoreDeadOrder's order
      case WAITING_CHILDREN -> waitingChildren++; // its flow comes with the snapshot's flows
    }
    nextSeq = Math.max(nextSeq, j.seq + 1);
  }

  /** Restores a flow parent's counts and children (a snapshot's flows section). */
  void restoreFlow(Job p, OnChildFail onChildFail, int pending, int failed, List<byte[]> ids) {
    memory -= p.memory();
    Flow f = new Flow(onChildFail);
    f.pending = pending;
    f.failed = failed;
    for (byte[] id : ids) {
      f.addChild(id);
    }
    p.extra().flow = f;
    flowParents++;
    memory += p.memory();
  }

  /** Restores a child's link to its parent (restored before it, with its flow). */
  void restoreLink(Job child, Job parent) {
    memory -= child.memory();
    child.extra().parent = parent;
    memory += child.memory();
  }

  /** Whether every job waiting for children has a flow (a snapshot that says otherwise is bad). */
  boolean flowsWhole() {
    if (waitingChildren == 0) {
      return true;
    }
    boolean[] whole = {true};
    byId.forEach(
        j -> {
          if (j.state() == State.WAITING_CHILDREN && j.flow() == null) {
            whole[0] = false;
          }
        });
    return whole[0];
  }

  /** The dead jobs' ids, in the order they died. */
  List<byte[]> deadOrder() {
    List<byte[]> out = new ArrayList<>(dead.size());
    for (Job j : dead.values()) {
      out.add(j.id());
    }
    return out;
  }

  /** Puts restored dead jobs back in the order they died. */
  void restoreDeadOrder(List<byte[]> ids) {
    for (byte[] id : ids) {
      Job j = byId.get(id);
      if (j != null && j.state() == State.DEAD) {
        dead.put(new Id(id), j);
      }
    }
  }

  void restoreDone(byte[] id, long until) {
    maxNumericId = Math.max(maxNumericId, numeric(id, 0, id.length));
    Id k = new Id(id);
    if (doneUntil.put(k, until) == null) {
      doneOrder.add(new DoneId(until, k));
      memory += 64 + id.length;
    }
  }

  /** Restores what a snapshot's extras section holds of a restored job. */
  void restoreExtra(Job j, boolean cancelled, byte @Nullable [] progress) {
    memory -= j.memory();
    if (cancelled) {
      j.cancel();
    }
    if (progress != null) {
      j.progress(progress);
    }
    memory += j.memory();
  }

  /** Moves a restored job from the default group to its own (the group restored before). */
  void regroup(Job j, JobGroup g) {
    defaultGroup.jobs--;
    g.jobs++;
    if (j.state() == State.LEASED) {
      defaultGroup.leased--;
      g.leased++;
    }
    j.group = g;
  }

  /** Restores a named group, with its settings, TAT and pass (in seq order). */
  void restoreGroup(JobGroup g) {
    groups.put(new Id(g.name), g);
    memory += 240 + g.name.length;
    nextGroupSeq = Math.max(nextGroupSeq, g.seq + 1);
  }

  /** After a snapshot's jobs and groups: the scheduler's clock, and the idle groups to drop. */
  void restoreScheduler(long virtualTime, long defaultPass, long nextGroupSeq) {
    this.virtualTime = virtualTime;
    defaultGroup.pass = defaultPass;
    this.nextGroupSeq = Math.max(this.nextGroupSeq, nextGroupSeq);
    for (JobGroup g : groups.values()) {
      maybeIdle(g);
    }
  }

  // ---- groups and limits

  /** Named groups, in the order made. */
  java.util.Collection<JobGroup> groups() {
    return groups.values();
  }

  @Nullable JobGroup group(byte[] name) {
    return groups.get(new Id(name));
  }

  long virtualTime() {
    return virtualTime;
  }

  long defaultPass() {
    return defaultGroup.pass;
  }

  long nextGroupSeq() {
    return nextGroupSeq;
  }

  /** Whether a group or the queue limits leases at once: then an ack frees a waiter's slot. */
  boolean limitsConcurrency() {
    if (concurrency > 0 || groupConcurrency > 0) {
      return true;
    }
    for (JobGroup g : groups.values()) {
      if (g.concurrency > 0) {
        return true;
      }
    }
    return false;
  }

  /** Pauses or resumes one group (made if new); whether that changed it. */
  boolean pauseGroup(long now, byte[] name, boolean paused) {
    JobGroup g = group(now, name, paused);
    if (g == null) {
      return false; // resuming a group that does not exist changes nothing
    }
    boolean changed = g.paused != paused;
    g.paused = paused;
    recheck(g);
    maybeIdle(g);
    return changed;
  }

  /**
   * Sets a group's settings (made if new): its weight, its rate ({@link JobGroup#INHERIT}, OWN with
   * {@code quota}, or NONE), its concurrency (-1 the default, 0 none, n). A changed quota starts
   * its TAT again.
   */
  void configureGroup(
      long now, byte[] name, int weight, byte rateMode, Gcra.@Nullable Quota quota, int conc) {
    JobGroup g = group(now, name, true);
    if (rateMode != g.rateMode || !java.util.Objects.equals(quota, g.rate)) {
      g.tat = -1;
    }
    g.weight = weight;
    g.rateMode = rateMode;
    g.rate = rateMode == JobGroup.OWN ? quota : null;
    g.concurrency = conc;
    unschedule(g); // its limits changed: placed again
    recheck(g);
    maybeIdle(g);
  }

  /** Sets the queue's limits; a changed quota starts its TAT again. Groups are placed again. */
  void configure(
      Gcra.@Nullable Quota rate,
      int concurrency,
      Gcra.@Nullable Quota groupRate,
      int groupConcurrency) {
    if (!java.util.Objects.equals(rate, this.rate)) {
      rateTat = -1;
    }
    this.rate = rate;
    this.concurrency = concurrency;
    this.groupRate = groupRate;
    this.groupConcurrency = groupConcurrency;
    unschedule(defaultGroup);
    recheck(defaultGroup);
    for (JobGroup g : groups.values()) {
      unschedule(g);
      recheck(g);
    }
  }

  /** Restores the queue's limits and its rate's TAT from a snapshot. */
  void restoreLimits(
      Gcra.@Nullable Quota rate,
      long rateTat,
      int concurrency,
      Gcra.@Nullable Quota groupRate,
      int groupConcurrency) {
    configure(rate, concurrency, groupRate, groupConcurrency);
    this.rateTat = rateTat;
  }

  Gcra.@Nullable Quota rate() {
    return rate;
  }

  long rateTat() {
    return rateTat;
  }

  int concurrency() {
    return concurrency;
  }

  Gcra.@Nullable Quota groupRate() {
    return groupRate;
  }

  int groupConcurrency() {
    return groupConcurrency;
  }

  long leasedCount() {
    return leasedCount;
  }

  // ---- results

  /**
   * Keeps results for {@code millis} from {@code now} (0: no more), the slice width fixed at the
   * first use; the slices before now hold nothing, so the floor starts at now's.
   */
  void configureResults(long now, long millis) {
    resultMillis = millis;
    if (millis > 0 && resultSliceMillis == 0) {
      resultSliceMillis = Math.max(1000, millis / 16);
      resultsFloor = Math.max(0, Math.floorDiv(now, resultSliceMillis));
    }
  }

  long resultMillis() {
    return resultMillis;
  }

  long resultSliceMillis() {
    return resultSliceMillis;
  }

  long resultsFloor() {
    return resultsFloor;
  }

  void restoreResults(long millis, long slice, long floor) {
    resultMillis = millis;
    resultSliceMillis = slice;
    resultsFloor = floor;
  }

  /** The row key of a result stored at {@code now}: 'R', the slice, the id. */
  byte[] resultKeyAt(long now, byte[] id) {
    return resultRowKey(Math.floorDiv(now, resultSliceMillis), id);
  }

  static byte[] resultRowKey(long slice, byte[] id) {
    return java.nio.ByteBuffer.allocate(9 + id.length)
        .put((byte) 'R')
        .putLong(slice)
        .put(id)
        .array();
  }

  /** The lowest slice whose rows are younger than the retention at {@code now}. */
  long liveResultSlice(long now) {
    long first = Math.floorDiv(now - resultMillis, resultSliceMillis);
    return Math.max(first, resultsFloor);
  }

  /** Where a result for {@code id} may be at {@code now}, newest slice first (none when off). */
  List<byte[]> resultKeys(long now, byte[] id) {
    if (resultSliceMillis == 0) {
      return List.of();
    }
    List<byte[]> keys = new ArrayList<>();
    for (long s = Math.floorDiv(now, resultSliceMillis); s >= liveResultSlice(now); s--) {
      keys.add(resultRowKey(s, id));
    }
    return keys;
  }

  /** The floor the results should have at {@code now}, or -1 if no slice left the retention. */
  long resultsDropDue(long now) {
    if (resultSliceMillis == 0) {
      return -1;
    }
    long floor = liveResultSlice(now);
    return floor > resultsFloor ? floor : -1;
  }

  /** When the next slice leaves the retention, or Long.MAX_VALUE. */
  long nextResultsDrop() {
    return resultSliceMillis == 0
        ? Long.MAX_VALUE
        : (resultsFloor + 1) * resultSliceMillis + resultMillis;
  }

  /** The rows below {@code floor} are deleted (by the op that carries the range delete). */
  void dropResults(long floor) {
    resultsFloor = Math.max(resultsFloor, floor);
  }

  // ---- schedules

  /**
   * Defines (or replaces) a schedule at {@code now}: an interval schedule is due at its first time,
   * a cron one waits for its first FIRE to arm it. True if the name was new.
   */
  boolean schedule(long now, Schedule.Definition d) {
    Id k = new Id(d.name());
    Schedule old = schedules.get(k);
    if (old != null) {
      memory -= scheduleMemory(old);
    }
    Schedule s = new Schedule(d, ++scheduleSeq, Schedule.firstDue(d, now));
    schedules.put(k, s);
    memory += scheduleMemory(s);
    return old == null;
  }

  private static long scheduleMemory(Schedule s) {
    return 200 + s.def.name().length + s.def.payload().length;
  }

  /** Removes a schedule (the jobs it added stay); whether there was one. */
  boolean unschedule(byte[] name) {
    Schedule s = schedules.remove(new Id(name));
    if (s != null) {
      memory -= scheduleMemory(s);
    }
    return s != null;
  }

  @Nullable Schedule scheduleNamed(byte[] name) {
    return schedules.get(new Id(name));
  }

  /**
   * Fires a schedule: adds a job for each run time (id name:time, due then) and moves it to {@code
   * next}, if it is the schedule named at that version, expecting that due time, and the runs are
   * in order, none later than now or before the expected time; else changes nothing (a FIRE
   * computed for an older state, or asked twice). How many runs it took, or -1 if it did not apply.
   */
  int fire(long now, byte[] name, long version, long expected, long next, long[] runs) {
    Schedule s = schedules.get(new Id(name));
    if (s == null || s.version != version || s.nextDue != expected || runs.length > 100_000) {
      return -1;
    }
    long last = expected == Schedule.PENDING ? Long.MIN_VALUE : expected - 1;
    for (long t : runs) {
      if (t <= last || t > now) {
        return -1;
      }
      last = t;
    }
    if (next != Schedule.DONE && next <= last) {
      return -1;
    }
    Schedule.Definition d = s.def;
    for (long t : runs) {
      add(
          now,
          s.runId(t),
          d.payload(),
          d.priority(),
          t,
          d.attempts(),
          d.backoff(),
          d.uniqueMillis(),
          d.group());
      s.runs++;
      s.lastRun = t;
    }
    s.nextDue = d.limit() > 0 && s.runs >= d.limit() ? Schedule.DONE : next;
    return runs.length;
  }

  /** The schedules, by name. */
  java.util.Collection<Schedule> schedules() {
    return schedules.values();
  }

  long scheduleSeq() {
    return scheduleSeq;
  }

  void restoreSchedule(Schedule s) {
    schedules.put(new Id(s.def.name()), s);
    memory += scheduleMemory(s);
  }

  void restoreScheduleSeq(long seq) {
    scheduleSeq = Math.max(scheduleSeq, seq);
  }

  void restoreNextSeq(long seq) {
    nextSeq = Math.max(nextSeq, seq);
  }

  long nextToken() {
    return nextToken;
  }

  void restoreNextToken(long token) {
    nextToken = Math.max(nextToken, token);
  }
}
