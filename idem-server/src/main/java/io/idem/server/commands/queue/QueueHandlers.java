package io.idem.server.commands.queue;

import io.idem.server.commands.queue.JobQueue.Backoff;
import io.idem.server.commands.queue.JobQueue.BackoffKind;
import io.idem.server.commands.queue.JobQueue.Job;
import io.idem.server.commands.queue.QueueCodec.Op;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Parse;
import io.idem.server.engine.Entry;
import io.idem.server.engine.Waits;
import io.idem.server.reply.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The QUEUE.* commands: a durable job queue at a key (docs/commands/queue.md). Times are the
 * engine's clock; every change is logged with the time it happened at and what it drew, so a replay
 * gives back the same queue.
 */
final class QueueHandlers {

  static final String NOT_FOUND = "ERR no such queue";
  static final String INVALID_CURSOR = "ERR invalid cursor"; // SCAN's text, for QUEUE.JOBS
  static final long DEFAULT_LEASE_MILLIS = 30_000;
  static final int MAX_COUNT = 1000;
  static final int MAX_ID_BYTES = 1024;
  static final int MAX_ATTEMPTS = 1000;
  static final int MAX_ERROR_BYTES = 4096;
  static final int MAX_CONCURRENCY = 1_000_000;

  private QueueHandlers() {}

  /** The entry's queue; "no such queue" for a free key (WRONGTYPE for another type). */
  static JobQueue queue(@Nullable Entry e) {
    JobQueue q = Entry.valueOrNull(e, QueueCodec.INSTANCE);
    if (q == null) {
      throw new CommandException(NOT_FOUND);
    }
    return q;
  }

  static long duration(Call call, int i) {
    Long ms = Parse.durationMillisOrNull(call.arg(i));
    if (ms == null) {
      throw CommandException.err(
          "a duration is a whole number of seconds, or one with ms, s, m, h or d, up to 3650d");
    }
    return ms;
  }

  static long token(Call call, int i) {
    Long t = Parse.longOrNull(call.arg(i));
    if (t == null || t < 1) {
      throw CommandException.err("a lease token is a positive integer, as QUEUE.RESERVE gave it");
    }
    return t;
  }

  static byte[] groupName(Call call, int i) {
    byte[] name = call.arg(i);
    if (name.length == 0 || name.length > JobGroup.MAX_NAME_BYTES) {
      throw CommandException.err("a group name is 1 to " + JobGroup.MAX_NAME_BYTES + " bytes");
    }
    return name;
  }

  static byte[] id(Call call, int i) {
    byte[] id = call.arg(i);
    if (id.length == 0 || id.length > MAX_ID_BYTES) {
      throw CommandException.err("a job id is 1 to " + MAX_ID_BYTES + " bytes");
    }
    return id;
  }

  /** At most this many jobs in one QUEUE.MADD. */
  static final int MAX_BULK = 10_000;

  /**
   * What QUEUE.ADD takes after the payload, and each job of QUEUE.MADD: [DELAY duration | AT
   * unix-ms] [PRIORITY n] [ID id [UNIQUE duration]] [ATTEMPTS n] [BACKOFF FIXED|EXPONENTIAL
   * duration [MAX duration]].
   */
  static final class JobOptions {
    long delay;
    @Nullable Long at;
    int priority;
    byte @Nullable [] id;
    long unique;
    int attempts = 1;
    Backoff backoff = Backoff.NONE;
    byte @Nullable [] group;

    JobOptions copy() {
      JobOptions o = new JobOptions();
      o.delay = delay;
      o.at = at;
      o.priority = priority;
      o.id = id;
      o.unique = unique;
      o.attempts = attempts;
      o.backoff = backoff;
      o.group = group;
      return o;
    }

    /**
     * Reads options from word {@code i} on, over these (a job's DELAY or AT replaces a default's
     * time), up to the end or, when {@code bulk}, the next JOB; the index it stopped at.
     */
    int parse(Call call, int i, boolean bulk) {
      boolean gaveDelay = false;
      boolean gaveAt = false;
      while (i < call.argc() && !(bulk && call.is(i, "JOB"))) {
        gaveDelay |= call.is(i, "DELAY");
        gaveAt |= call.is(i, "AT");
        i = parseOneOrRefuse(call, i);
      }
      if (gaveDelay && gaveAt) {
        throw CommandException.err("DELAY and AT cannot be given together");
      }
      return i;
    }

    /** Reads the option at word {@code i}; the index after it. A syntax error if it is not one. */
    int parseOneOrRefuse(Call call, int i) {
      int after = parseOne(call, i);
      if (after < 0) {
        throw new CommandException(Errors.SYNTAX);
      }
      return after;
    }

    /** Reads the option at word {@code i}; the index after it, or -1 if it is not one. */
    int parseOne(Call call, int i) {
      if (call.is(i, "DELAY") && i + 1 < call.argc()) {
        delay = duration(call, ++i);
        at = null;
      } else if (call.is(i, "AT") && i + 1 < call.argc()) {
        Long t = Parse.longOrNull(call.arg(++i));
        if (t == null || t < 0) {
          throw CommandException.err("AT is a Unix time in milliseconds");
        }
        at = t;
        delay = 0;
      } else if (call.is(i, "PRIORITY") && i + 1 < call.argc()) {
        Long p = Parse.longOrNull(call.arg(++i));
        if (p == null || p < -1_000_000 || p > 1_000_000) {
          throw CommandException.err("PRIORITY is an integer from -1000000 to 1000000");
        }
        priority = p.intValue();
      } else if (call.is(i, "ID") && i + 1 < call.argc()) {
        id = id(call, ++i);
      } else if (call.is(i, "GROUP") && i + 1 < call.argc()) {
        group = groupName(call, ++i);
      } else if (call.is(i, "UNIQUE") && i + 1 < call.argc()) {
        unique = duration(call, ++i);
      } else if (call.is(i, "ATTEMPTS") && i + 1 < call.argc()) {
        Long a = Parse.longOrNull(call.arg(++i));
        if (a == null || a < 1 || a > MAX_ATTEMPTS) {
          throw CommandException.err("ATTEMPTS is an integer from 1 to " + MAX_ATTEMPTS);
        }
        attempts = a.intValue();
      } else if (call.is(i, "BACKOFF") && i + 2 < call.argc()) {
        BackoffKind kind;
        if (call.is(i + 1, "FIXED")) {
          kind = BackoffKind.FIXED;
        } else if (call.is(i + 1, "EXPONENTIAL")) {
          kind = BackoffKind.EXPONENTIAL;
        } else {
          throw new CommandException(Errors.SYNTAX);
        }
        long base = duration(call, i + 2);
        long max = kind == BackoffKind.FIXED ? base : Parse.MAX_DURATION_MILLIS;
        i += 2;
        if (i + 2 < call.argc() && call.is(i + 1, "MAX")) {
          max = duration(call, i + 2);
          i += 2;
        }
        backoff = new Backoff(kind, base, max);
      } else {
        return -1;
      }
      return i + 1;
    }

    /** The checks that need every option a job has. */
    JobOptions check() {
      if (unique > 0 && id == null) {
        throw CommandException.err("UNIQUE needs an ID");
      }
      return this;
    }
  }

  /**
   * QUEUE.ADD key payload [options]: ["new" or "duplicate", id, state] (a duplicate's state is its
   * holder's, or done).
   */
  static Reply add(Call call) {
    JobOptions options = new JobOptions();
    options.parse(call, 3, false);
    options.check();
    byte[] payload = call.arg(2);
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              long now = call.engine().now();
              JobQueue q = queueToAdd(tx);
              boolean[] any = {false};
              Reply r = add(tx, q, now, payload, options, any);
              if (any[0]) {
                call.engine().waits().wake(call.arg(1), null);
              }
              return r;
            });
  }

  /**
   * QUEUE.MADD key [defaults] JOB payload [options] [JOB payload [options] ...]: adds the jobs in
   * one write, in order; options before the first JOB are every job's unless it gives its own (an
   * ID is a job's alone). One QUEUE.ADD reply a job. Nothing is added if any job is malformed.
   */
  static Reply madd(Call call) {
    JobOptions defaults = new JobOptions();
    int i = defaults.parse(call, 2, true);
    if (defaults.id != null) {
      throw CommandException.err("an ID is a job's own: give it after its JOB");
    }
    List<byte[]> payloads = new ArrayList<>();
    List<JobOptions> options = new ArrayList<>();
    while (i < call.argc()) {
      if (i + 1 >= call.argc()) {
        throw CommandException.err("JOB needs a payload");
      }
      if (payloads.size() == MAX_BULK) {
        throw CommandException.err("at most " + MAX_BULK + " jobs a QUEUE.MADD");
      }
      payloads.add(call.arg(i + 1));
      JobOptions o = defaults.copy();
      i = o.parse(call, i + 2, true);
      options.add(o.check());
    }
    if (payloads.isEmpty()) {
      throw CommandException.err("QUEUE.MADD needs a JOB");
    }
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              long now = call.engine().now();
              JobQueue q = queueToAdd(tx);
              List<Reply> out = new ArrayList<>(payloads.size());
              boolean[] any = {false};
              for (int j = 0; j < payloads.size(); j++) {
                out.add(add(tx, q, now, payloads.get(j), options.get(j), any));
              }
              if (any[0]) {
                call.engine().waits().wake(call.arg(1), null);
              }
              return Reply.array(out);
            });
  }

  /** The key's queue, made if the key is free. */
  static JobQueue queueToAdd(io.idem.server.engine.KeyTx tx) {
    JobQueue q = tx.value(QueueCodec.INSTANCE);
    if (q == null) {
      q = new JobQueue();
      tx.create(QueueCodec.INSTANCE, q, QueueCodec.RECIPE);
    }
    return q;
  }

  /** Adds one job and logs it if it is new (then sets {@code any[0]}); QUEUE.ADD's reply. */
  private static Reply add(
      io.idem.server.engine.KeyTx tx,
      JobQueue q,
      long now,
      byte[] payload,
      JobOptions o,
      boolean[] any) {
    long due = o.at != null ? o.at : now + o.delay;
    JobQueue.Added added =
        q.add(now, o.id, payload, o.priority, due, o.attempts, o.backoff, o.unique, o.group);
    if (added.isNew()) {
      any[0] = true;
      Op op =
          new Op()
              .u64(now)
              .bytes(o.id)
              .bytes(payload)
              .i32(o.priority)
              .u64(due)
              .i32(o.attempts)
              .backoff(o.backoff)
              .u64(o.unique);
      if (o.group == null) {
        tx.log(QueueCodec.OP_ADD, op.done());
      } else {
        tx.log(QueueCodec.OP_ADD_GROUPED, op.bytes(o.group).done());
      }
    }
    return Reply.array(
        Reply.bulk(added.isNew() ? "new" : "duplicate"),
        Reply.bulk(added.id()),
        Reply.bulk(added.state() == null ? "done" : added.state().text()));
  }

  /**
   * QUEUE.RESERVE key [COUNT n] [LEASE duration] [BLOCK duration]: due jobs, leased to the caller.
   * With BLOCK and none due, the reply waits (off the event loop) until a job becomes due, is added
   * or given back, or the time is up (nil); BLOCK 0 waits as long as it takes.
   */
  static Reply reserve(Call call) {
    ReserveArgs a = ReserveArgs.parse(call);
    int count = a.count();
    long lease = a.lease();
    // On a node with a log a blocked reserve waits in its front (QueueBlockFront), which writes
    // only plain reserves: a BLOCK that reaches an applier came in a transaction, or from outside,
    // and does not wait, as inside MULTI.
    long block = call.session().isApplier() ? -1 : a.block();
    long seen = block < 0 ? 0 : call.engine().waits().seen(call.arg(1), null);
    Reserved r = tryReserve(call.engine(), call.arg(1), count, lease, () -> true);
    if (!r.jobs().isEmpty() || block < 0) {
      return r.reply();
    }
    io.idem.server.engine.Engine engine = call.engine();
    byte[] key = call.arg(1).clone();
    int n = count;
    long leaseMillis = lease;
    return engine
        .waits()
        .await(
            BLOCKED,
            key,
            null,
            seen,
            r.nextWake(),
            block,
            () -> Reply.NULL_ARRAY,
            wanted -> {
              // Asked again under the key's lock: a waiter answered meanwhile (its timeout, EXEC,
              // a closed connection) must lease nothing, or the jobs would wait for their lease
              // with no one to run them.
              Reserved again = tryReserve(engine, key, n, leaseMillis, wanted);
              if (again.jobs().isEmpty()) {
                return new Waits.Outcome.Later(again.nextWake());
              }
              return new Waits.Outcome.Deliver(
                  again.reply(), () -> giveBack(engine, key, again.jobs()));
            });
  }

  /** QUEUE.RESERVE's options: COUNT, LEASE in ms, BLOCK in ms (-1: none; 0: no limit). */
  record ReserveArgs(int count, long lease, long block) {
    static ReserveArgs parse(Call call) {
      int count = 1;
      long lease = DEFAULT_LEASE_MILLIS;
      long block = -1;
      for (int i = 2; i < call.argc(); i++) {
        if (call.is(i, "COUNT") && i + 1 < call.argc()) {
          Long c = Parse.longOrNull(call.arg(++i));
          if (c == null || c < 1 || c > MAX_COUNT) {
            throw CommandException.err("COUNT is an integer from 1 to " + MAX_COUNT);
          }
          count = c.intValue();
        } else if (call.is(i, "LEASE") && i + 1 < call.argc()) {
          lease = duration(call, ++i);
        } else if (call.is(i, "BLOCK") && i + 1 < call.argc()) {
          block = call.is(i + 1, "0") ? 0 : duration(call, i + 1);
          i++;
        } else {
          throw new CommandException(Errors.SYNTAX);
        }
      }
      return new ReserveArgs(count, lease, block);
    }
  }

  /** Blocked reserves at once, on one server. */
  static final Waits.Limit BLOCKED =
      new Waits.Limit(10_000, "too many blocked reserves (10000); retry without BLOCK");

  /** What a reserve leased (its reply), and when to try again if it leased nothing. */
  record Reserved(List<Lease> jobs, Reply reply, long nextWake) {}

  /** A job as it was leased: its id and the token of that lease. */
  record Lease(byte[] id, long token) {}

  /**
   * Leases up to {@code count} due jobs at the key's queue, and logs it if it leased any; leases
   * nothing unless {@code wanted}, asked under the key's lock.
   */
  static Reserved tryReserve(
      io.idem.server.engine.Engine engine,
      byte[] key,
      int count,
      long leaseMillis,
      java.util.function.BooleanSupplier wanted) {
    return engine.write(
        key,
        tx -> {
          JobQueue q = tx.value(QueueCodec.INSTANCE);
          if (q == null || !wanted.getAsBoolean()) {
            return new Reserved(List.of(), Reply.array(List.of()), Long.MAX_VALUE); // empty
          }
          long now = engine.now();
          long until = now + leaseMillis;
          // Settling ends expired leases (a job due again, or dead): a change like any other, so
          // a reserve that did it is logged even when it leased nothing, or a replay would see
          // the later operations meet the lease still running.
          boolean settled = q.settle(now);
          List<Job> jobs = q.reserve(now, count, until);
          if (settled || !jobs.isEmpty()) {
            tx.log(QueueCodec.OP_RESERVE, new Op().u64(now).i32(count).u64(until).done());
            if (q.eventCapacity() > 0) {
              engine.waits().wake(key, null); // QUEUE.EVENTS readers: leased
            }
          }
          List<Reply> out = new ArrayList<>(jobs.size());
          List<Lease> leases = new ArrayList<>(jobs.size());
          for (Job j : jobs) {
            byte[] jobId = j.id();
            leases.add(new Lease(jobId, j.token));
            out.add(
                Reply.array(
                    Reply.bulk(jobId),
                    Reply.bulk(j.payload()),
                    Reply.integer(j.token),
                    Reply.integer(j.attempts)));
          }
          return new Reserved(leases, Reply.array(out), q.nextWake());
        });
  }

  /**
   * Gives back jobs leased for a reply that was never sent (a blocked reserve whose client went
   * away), as QUEUE.RELEASE would: due now, the attempt not counted. A job whose lease is no longer
   * the one it was leased under stays as it is.
   */
  static void giveBack(io.idem.server.engine.Engine engine, byte[] key, List<Lease> jobs) {
    try {
      engine.write(
          key,
          tx -> {
            JobQueue q = tx.value(QueueCodec.INSTANCE);
            if (q == null) {
              return null;
            }
            long now = engine.now();
            for (Lease j : jobs) {
              if (q.release(j.id(), j.token(), now) != JobQueue.Held.NOT_LEASED) {
                tx.log(
                    QueueCodec.OP_RELEASE, new Op().bytes(j.id()).u64(j.token()).u64(now).done());
              }
            }
            engine.waits().wake(key, null);
            return null;
          });
    } catch (RuntimeException e) {
      // The key holds another type now, or the log failed: the leases end at their time.
    }
  }

  /**
   * QUEUE.ACK key id token [id token ...]: the jobs are done. How many were: a job counts 0 when
   * the lease of this token does not hold it.
   */
  static Reply ack(Call call) {
    int n = (call.argc() - 2) / 2;
    byte[][] ids = new byte[n][];
    long[] tokens = new long[n];
    for (int i = 0; i < n; i++) {
      ids[i] = id(call, 2 + 2 * i);
      tokens[i] = token(call, 3 + 2 * i);
    }
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              JobQueue q = queue(tx.entry());
              long now = call.engine().now();
              int done = 0;
              boolean child = false;
              for (int i = 0; i < n; i++) {
                QueueFlows.Before before = QueueFlows.Before.of(q, ids[i]);
                child |= before.parentSeq() >= 0;
                JobQueue.Held held = q.ack(now, ids[i], tokens[i]);
                if (held != JobQueue.Held.NOT_LEASED) {
                  tx.log(
                      QueueCodec.OP_ACK,
                      new Op().u64(now).bytes(ids[i]).u64(tokens[i]).done(),
                      held == JobQueue.Held.DONE ? before.rows(q, now, ids[i], null) : List.of());
                }
                if (held == JobQueue.Held.DONE) {
                  done++;
                }
              }
              if (q.limitsConcurrency() || q.eventCapacity() > 0 || child) {
                // a slot is free, an event, or a parent may be due
                call.engine().waits().wake(call.arg(1), null);
              }
              return Reply.integer(done);
            });
  }

  /**
   * QUEUE.FAIL key id token error: due again after its backoff (with up to a fifth of it taken off,
   * so retries spread), or a dead letter after its last attempt. Replies ["retry", due ms],
   * ["dead", nil], or nil if the lease of this token does not hold the job.
   */
  static Reply fail(Call call) {
    byte[] id = id(call, 2);
    long token = token(call, 3);
    byte[] raw = call.arg(4);
    String error =
        new String(raw, 0, Math.min(raw.length, MAX_ERROR_BYTES), StandardCharsets.UTF_8);
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              JobQueue q = queue(tx.entry());
              long now = call.engine().now();
              Job j = q.job(id);
              long delay = j == null ? 0 : j.backoff().delay(j.attempts);
              long due = now + delay - jitter(delay, token, now);
              JobQueue.Failed f = q.fail(now, id, token, error, due);
              if (f == JobQueue.Failed.NOT_LEASED) {
                return Reply.NULL;
              }
              tx.log(
                  QueueCodec.OP_FAIL,
                  new Op().u64(now).bytes(id).u64(token).text(error).u64(due).done());
              call.engine().waits().wake(call.arg(1), null);
              return switch (f) {
                case DEAD -> Reply.array(Reply.bulk("dead"), Reply.NULL);
                case CANCELLED -> Reply.array(Reply.bulk("cancelled"), Reply.NULL);
                default -> Reply.array(Reply.bulk("retry"), Reply.integer(due));
              };
            });
  }

  /**
   * Up to a fifth of {@code delay}, spread evenly over leases: drawn from the lease's token and the
   * time, not from a generator, so that every node applying the same record draws the same.
   */
  static long jitter(long delay, long token, long now) {
    if (delay <= 0) {
      return 0;
    }
    long z = token * 0x9E3779B97F4A7C15L + now;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    z ^= z >>> 31;
    return Math.floorMod(z, delay / 5 + 1);
  }

  /**
   * QUEUE.EXTEND key id token duration: the lease ends that long from now. 1, 0 (this lease does
   * not hold it) or -1 (it was cancelled: stop, it is gone).
   */
  static Reply extend(Call call) {
    return leaseChange(call, duration(call, 4), QueueCodec.OP_EXTEND, JobQueue::extend, false);
  }

  /** QUEUE.RELEASE key id token [DELAY duration]: gives the job back; 1, 0 or -1 (cancelled). */
  static Reply release(Call call) {
    long delay = 0;
    if (call.argc() == 6 && call.is(4, "DELAY")) {
      delay = duration(call, 5);
    } else if (call.argc() != 4) {
      throw new CommandException(Errors.SYNTAX);
    }
    return leaseChange(call, delay, QueueCodec.OP_RELEASE, JobQueue::release, true);
  }

  /** What EXTEND and RELEASE do to a leased job: move it to a time, if this lease holds it. */
  private interface LeaseChange {
    JobQueue.Held apply(JobQueue q, byte[] id, long token, long at);
  }

  /**
   * Applies {@code change} to the job named by arguments 2 and 3 at {@code afterMillis} from now,
   * logs it as {@code op} (id, token, the time), and wakes blocked reserves if {@code wake}.
   * Replies 1, 0 if the lease of this token does not hold the job, or -1 if the job was cancelled
   * (it is gone now: the change took it out, and is logged).
   */
  private static Reply leaseChange(
      Call call, long afterMillis, byte op, LeaseChange change, boolean wake) {
    byte[] id = id(call, 2);
    long token = token(call, 3);
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              JobQueue q = queue(tx.entry());
              long at = call.engine().now() + afterMillis;
              JobQueue.Held held = change.apply(q, id, token, at);
              if (held == JobQueue.Held.NOT_LEASED) {
                return Reply.ZERO;
              }
              tx.log(op, new Op().bytes(id).u64(token).u64(at).done());
              if (wake || held == JobQueue.Held.CANCELLED && q.limitsConcurrency()) {
                call.engine().waits().wake(call.arg(1), null);
              }
              return Reply.integer(held == JobQueue.Held.DONE ? 1 : -1);
            });
  }

  /** QUEUE.DEAD key [COUNT n]: dead letters, oldest first: id, payload, attempts, errors. */
  static Reply dead(Call call) {
    int count = MAX_COUNT;
    if (call.argc() == 4 && call.is(2, "COUNT")) {
      Long c = Parse.longOrNull(call.arg(3));
      if (c == null || c < 1 || c > MAX_COUNT) {
        throw CommandException.err("COUNT is an integer from 1 to " + MAX_COUNT);
      }
      count = c.intValue();
    } else if (call.argc() != 2) {
      throw new CommandException(Errors.SYNTAX);
    }
    int n = count;
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              JobQueue q = queue(e);
              List<Reply> out = new ArrayList<>();
              for (Job j : q.dead(n)) {
                List<Reply> errors = errors(j);
                out.add(
                    Reply.array(
                        Reply.bulk(j.id()),
                        Reply.bulk(j.payload()),
                        Reply.integer(j.attempts),
                        Reply.array(errors)));
              }
              return Reply.array(out);
            });
  }

  static List<Reply> errors(Job j) {
    List<Reply> errors = new ArrayList<>(j.errors().size());
    for (String s : j.errors()) {
      errors.add(Reply.bulk(s));
    }
    return errors;
  }

  /** QUEUE.REPLAY key (id | ALL): dead jobs due again now, attempts cleared; how many. */
  static Reply replay(Call call) {
    byte[] id = call.is(2, "ALL") ? null : id(call, 2);
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              JobQueue q = queue(tx.entry());
              long now = call.engine().now();
              int n = q.replay(now, id);
              if (n > 0) {
                tx.log(QueueCodec.OP_REPLAY, new Op().u64(now).bytes(id).done());
                call.engine().waits().wake(call.arg(1), null);
              }
              return Reply.integer(n);
            });
  }

  /** QUEUE.PURGE key: deletes the dead letters; how many. */
  static Reply purge(Call call) {
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              JobQueue q = queue(tx.entry());
              List<io.idem.core.store.RowChange> rows = new ArrayList<>();
              for (long seq : q.deadFlowSeqs()) {
                rows.add(QueueFlows.dropRows(seq)); // their children's results go with them
              }
              int n = q.purge();
              if (n > 0) {
                tx.log(QueueCodec.OP_PURGE, new byte[0], rows);
              }
              return Reply.integer(n);
            });
  }

  /**
   * QUEUE.INFO key: the counts of ready, delayed, leased and dead jobs, as of now, then whether it
   * is paused (new fields go at the end: clients read the first by position).
   */
  static Reply info(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              JobQueue q = queue(e);
              long[] c = q.counts(call.engine().now());
              return Reply.map(
                  List.of(
                      Reply.bulk("ready"), Reply.integer(c[0]),
                      Reply.bulk("delayed"), Reply.integer(c[1]),
                      Reply.bulk("leased"), Reply.integer(c[2]),
                      Reply.bulk("dead"), Reply.integer(c[3]),
                      Reply.bulk("paused"), Reply.integer(q.paused() ? 1 : 0),
                      Reply.bulk("groups"), Reply.integer(q.groups().size()),
                      Reply.bulk("waiting-children"), Reply.integer(q.waitingChildren())));
            });
  }
}
