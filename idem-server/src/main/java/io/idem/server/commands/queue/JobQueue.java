package io.idem.server.commands.queue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeSet;
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
    DEAD
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

  /** One job. Its fields change only through the queue. */
  static final class Job {
    final long seq;
    final byte[] id;
    final byte[] payload;
    final int priority;
    final int maxAttempts;
    final Backoff backoff;
    final long uniqueMillis;
    long due;
    int attempts;
    long token;
    long leaseUntil;
    State state = State.WAITING;

    /**
     * The errors of its failed attempts; the shared empty list until the first (most have none).
     */
    List<String> errors = List.of();

    Job(
        long seq,
        byte[] id,
        byte[] payload,
        int priority,
        long due,
        int maxAttempts,
        Backoff backoff,
        long uniqueMillis) {
      this.seq = seq;
      this.id = id;
      this.payload = payload;
      this.priority = priority;
      this.due = due;
      this.maxAttempts = maxAttempts;
      this.backoff = backoff;
      this.uniqueMillis = uniqueMillis;
    }

    void addError(String error) {
      if (errors.isEmpty()) {
        errors = new ArrayList<>(2);
      }
      errors.add(error);
    }

    /**
     * Bytes this job holds in memory, about: itself, its two arrays and the ordered set's entry
     * that holds it (the id map's share is counted by the queue); checked against a class
     * histogram.
     */
    long memory() {
      long m = 168 + id.length + payload.length;
      for (String e : errors) {
        m += 40 + 2L * e.length();
      }
      return m;
    }
  }

  /** Delayed jobs, by due time then order added: promoted to {@link #ready} once due. */
  private final TreeSet<Job> delayed = new TreeSet<>(JobQueue::byDue);

  /** Due jobs: the highest priority first, then the earliest due, then the order added. */
  private final TreeSet<Job> ready = new TreeSet<>(JobQueue::byPriority);

  /** Leased jobs, by lease end then order added. */
  private final TreeSet<Job> leased = new TreeSet<>(JobQueue::byLeaseEnd);

  // The sets' orders, written out: a chain of Comparator.comparing lambdas cost a call a link on
  // every comparison of every insert and removal (docs/benchmarks/percore.md).

  private static int byDue(Job a, Job b) {
    int c = Long.compare(a.due, b.due);
    return c != 0 ? c : Long.compare(a.seq, b.seq);
  }

  private static int byPriority(Job a, Job b) {
    int c = Integer.compare(b.priority, a.priority);
    return c != 0 ? c : byDue(a, b);
  }

  private static int byLeaseEnd(Job a, Job b) {
    int c = Long.compare(a.leaseUntil, b.leaseUntil);
    return c != 0 ? c : Long.compare(a.seq, b.seq);
  }

  /** Dead jobs, in the order they died. */
  private final LinkedHashMap<Id, Job> dead = new LinkedHashMap<>();

  /** Every job not acked, by id. */
  private final Map<Id, Job> byId = new HashMap<>();

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
    dropDoneIds(now);
    if (id != null) {
      Id k = new Id(id);
      Job holder = byId.get(k);
      if (holder != null) {
        return new Added(false, holder.id, holder.state);
      }
      if (doneUntil.containsKey(k)) {
        return new Added(false, id, null);
      }
    }
    long seq = nextSeq++;
    byte[] jobId =
        id != null ? id : Long.toString(seq).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    Job j = new Job(seq, jobId, payload, priority, due, maxAttempts, backoff, uniqueMillis);
    byId.put(new Id(jobId), j);
    delayed.add(j);
    memory += j.memory();
    return new Added(true, jobId, State.WAITING);
  }

  /**
   * Leases up to {@code count} due jobs until {@code leaseUntil}, in order; first makes due the
   * delayed jobs whose time has come, and the jobs whose lease expired.
   */
  List<Job> reserve(long now, int count, long leaseUntil) {
    settle(now);
    List<Job> out = new ArrayList<>(Math.min(count, ready.size()));
    if (nextToken == 0 && !ready.isEmpty()) {
      nextToken = Math.max(now, 1) << 16;
    }
    while (out.size() < count && !ready.isEmpty()) {
      Job j = ready.pollFirst();
      j.attempts++;
      j.token = nextToken++;
      j.state = State.LEASED;
      j.leaseUntil = leaseUntil;
      leased.add(j);
      out.add(j);
    }
    return out;
  }

  /**
   * Moves due delayed jobs to ready, and expired leases back to waiting (or to the dead). True if a
   * lease ended: that changes what the queue answers, so a caller that settles must log it, while
   * making a delayed job ready changes nothing a later settle would not.
   */
  boolean settle(long now) {
    boolean ended = !leased.isEmpty() && leased.first().leaseUntil <= now;
    while (!leased.isEmpty() && leased.first().leaseUntil <= now) {
      Job j = leased.pollFirst();
      String error = "lease expired at " + j.leaseUntil;
      j.addError(error);
      memory += 40 + 2L * error.length();
      if (j.attempts >= j.maxAttempts) {
        toDead(j);
      } else {
        j.state = State.WAITING;
        j.due = j.leaseUntil;
        delayed.add(j);
      }
    }
    while (!delayed.isEmpty() && delayed.first().due <= now) {
      ready.add(delayed.pollFirst());
    }
    dropDoneIds(now);
    return ended;
  }

  private void toDead(Job j) {
    j.state = State.DEAD;
    dead.put(new Id(j.id), j);
  }

  /** The job leased under this token, or null. */
  private @Nullable Job leasedAs(byte[] id, long token) {
    Job j = byId.get(new Id(id));
    return j != null && j.state == State.LEASED && j.token == token ? j : null;
  }

  /** Acks a leased job: it is done and gone. False if this lease does not hold it. */
  boolean ack(long now, byte[] id, long token) {
    Job j = leasedAs(id, token);
    if (j == null) {
      return false;
    }
    leased.remove(j);
    byId.remove(new Id(j.id));
    memory -= j.memory();
    if (j.uniqueMillis > 0) {
      restoreDone(j.id, now + j.uniqueMillis);
    }
    return true;
  }

  /** What {@link #fail} did. */
  enum Failed {
    NOT_LEASED,
    RETRY,
    DEAD
  }

  /**
   * A leased job failed with {@code error}: due again at {@code retryDue} (the caller adds the
   * backoff and its jitter), or dead if that was its last attempt.
   */
  Failed fail(long now, byte[] id, long token, String error, long retryDue) {
    Job j = leasedAs(id, token);
    if (j == null) {
      return Failed.NOT_LEASED;
    }
    leased.remove(j);
    j.addError(error);
    memory += 40 + 2L * error.length();
    if (j.attempts >= j.maxAttempts) {
      toDead(j);
      return Failed.DEAD;
    }
    j.state = State.WAITING;
    j.due = retryDue;
    delayed.add(j);
    return Failed.RETRY;
  }

  /** Moves a leased job's lease end. False if this lease does not hold it. */
  boolean extend(byte[] id, long token, long leaseUntil) {
    Job j = leasedAs(id, token);
    if (j == null) {
      return false;
    }
    leased.remove(j);
    j.leaseUntil = leaseUntil;
    leased.add(j);
    return true;
  }

  /**
   * Gives a leased job back before its lease ends, due at {@code due}: the attempt does not count.
   * False if this lease does not hold it.
   */
  boolean release(byte[] id, long token, long due) {
    Job j = leasedAs(id, token);
    if (j == null) {
      return false;
    }
    leased.remove(j);
    j.attempts--;
    j.state = State.WAITING;
    j.due = due;
    delayed.add(j);
    return true;
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
      dead.remove(new Id(j.id));
      for (String e : j.errors) {
        memory -= 40 + 2L * e.length();
      }
      j.errors = List.of();
      j.attempts = 0;
      j.state = State.WAITING;
      j.due = now;
      delayed.add(j);
    }
    return jobs.size();
  }

  /** Deletes every dead job; how many. */
  int purge() {
    int n = dead.size();
    for (Job j : dead.values()) {
      byId.remove(new Id(j.id));
      memory -= j.memory();
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
    return byId.get(new Id(id));
  }

  /**
   * Counts as of {@code now}: due, delayed (due later), leased, dead. The sets' sizes, corrected by
   * a walk of only the delayed jobs whose time came and the leases that ended since the last
   * reserve settled them.
   */
  long[] counts(long now) {
    long due = ready.size();
    long later = delayed.size();
    for (Job j : delayed) {
      if (j.due > now) {
        break;
      }
      due++;
      later--;
    }
    long leasedNow = leased.size();
    long deadNow = dead.size();
    for (Job j : leased) {
      if (j.leaseUntil > now) {
        break;
      }
      leasedNow--;
      if (j.attempts >= j.maxAttempts) {
        deadNow++; // its lease expired on its last attempt
      } else {
        due++; // its lease expired: due again
      }
    }
    return new long[] {due, later, leasedNow, deadNow};
  }

  /** The earliest time a job becomes due or a lease ends, or Long.MAX_VALUE: when to wake. */
  long nextWake() {
    long t = Long.MAX_VALUE;
    if (!ready.isEmpty()) {
      return Long.MIN_VALUE;
    }
    if (!delayed.isEmpty()) {
      t = delayed.first().due;
    }
    if (!leased.isEmpty()) {
      t = Math.min(t, leased.first().leaseUntil);
    }
    return t;
  }

  /** Bytes the queue holds in memory, about. */
  long memoryUsage() {
    // A job's entry in the id map is its node, its key and a slot: 56 bytes.
    return 256 + memory + 56L * byId.size() + 48L * doneUntil.size();
  }

  /** Every job not acked, in the order added: for snapshots. */
  List<Job> jobs() {
    List<Job> all = new ArrayList<>(byId.values());
    all.sort(Comparator.comparingLong(j -> j.seq));
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
    byId.put(new Id(j.id), j);
    memory += j.memory();
    switch (j.state) {
      case WAITING -> delayed.add(j);
      case LEASED -> leased.add(j);
      case DEAD -> {} // in restoreDeadOrder's order
    }
    nextSeq = Math.max(nextSeq, j.seq + 1);
  }

  /** The dead jobs' ids, in the order they died. */
  List<byte[]> deadOrder() {
    List<byte[]> out = new ArrayList<>(dead.size());
    for (Job j : dead.values()) {
      out.add(j.id);
    }
    return out;
  }

  /** Puts restored dead jobs back in the order they died. */
  void restoreDeadOrder(List<byte[]> ids) {
    for (byte[] id : ids) {
      Job j = byId.get(new Id(id));
      if (j != null && j.state == State.DEAD) {
        dead.put(new Id(j.id), j);
      }
    }
  }

  void restoreDone(byte[] id, long until) {
    Id k = new Id(id);
    if (doneUntil.put(k, until) == null) {
      doneOrder.add(new DoneId(until, k));
      memory += 64 + id.length;
    }
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
