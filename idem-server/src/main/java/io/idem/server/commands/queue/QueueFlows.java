package io.idem.server.commands.queue;

import io.idem.core.store.RowChange;
import io.idem.server.commands.queue.JobQueue.Job;
import io.idem.server.commands.queue.JobQueue.OnChildFail;
import io.idem.server.commands.queue.QueueCodec.Op;
import io.idem.server.commands.queue.QueueHandlers.JobOptions;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.reply.Reply;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Flows: a parent job due only once its children are done, which reads their results (QUEUE.FLOW,
 * QUEUE.CHILDREN). Parent and children are in one queue, so that a child's ack writes one key. A
 * child's result is a row under its parent ('C' | parent seq | child id) until the parent leaves.
 */
final class QueueFlows {

  private QueueFlows() {}

  /**
   * QUEUE.FLOW key payload [options] [ONCHILDFAIL FAIL|HOLD|IGNORE] CHILD payload [PARENT id]
   * [options] [ONCHILDFAIL ...] [CHILD ...]: adds the root job and its children in one write; a
   * child's parent is the root unless PARENT names an earlier job of the flow by its ID. A
   * QUEUE.ADD reply a job, in order. Every id must be new: a taken one refuses the whole flow.
   */
  static Reply flow(Call call) {
    List<JobOptions> options = new ArrayList<>();
    List<byte[]> payloads = new ArrayList<>();
    List<Integer> parents = new ArrayList<>();
    List<OnChildFail> policies = new ArrayList<>();
    int i = 2;
    while (i < call.argc()) {
      if (!payloads.isEmpty() && !call.is(i, "CHILD")) {
        throw new CommandException(Errors.SYNTAX);
      }
      if (!payloads.isEmpty()) {
        i++;
      }
      if (i >= call.argc()) {
        throw CommandException.err("CHILD needs a payload");
      }
      if (payloads.size() == JobQueue.MAX_FLOW_JOBS) {
        throw CommandException.err("at most " + JobQueue.MAX_FLOW_JOBS + " jobs a flow");
      }
      payloads.add(call.arg(i++));
      JobOptions o = new JobOptions();
      OnChildFail policy = OnChildFail.FAIL;
      int parent = payloads.size() == 1 ? -1 : 0;
      while (i < call.argc() && !call.is(i, "CHILD")) {
        if (call.is(i, "ONCHILDFAIL") && i + 1 < call.argc()) {
          policy = policy(call, i + 1);
          i += 2;
        } else if (call.is(i, "PARENT") && i + 1 < call.argc() && payloads.size() > 1) {
          parent = indexOf(options, QueueHandlers.id(call, i + 1));
          i += 2;
        } else {
          i = o.parseOneOrRefuse(call, i);
        }
      }
      options.add(o.check());
      parents.add(parent);
      policies.add(policy);
    }
    if (payloads.size() < 2) {
      throw CommandException.err("QUEUE.FLOW needs a CHILD");
    }
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              long now = call.engine().now();
              JobQueue q = QueueHandlers.queueToAdd(tx);
              List<JobQueue.FlowJob> jobs = new ArrayList<>(payloads.size());
              Op op = new Op().u64(now).i32(payloads.size());
              for (int j = 0; j < payloads.size(); j++) {
                JobOptions o = options.get(j);
                long due = o.at != null ? o.at : now + o.delay;
                jobs.add(
                    new JobQueue.FlowJob(
                        o.id,
                        payloads.get(j),
                        o.priority,
                        due,
                        o.attempts,
                        o.backoff,
                        o.unique,
                        o.group,
                        parents.get(j),
                        policies.get(j)));
                op.bytes(o.id)
                    .bytes(payloads.get(j))
                    .i32(o.priority)
                    .u64(due)
                    .i32(o.attempts)
                    .backoff(o.backoff)
                    .u64(o.unique)
                    .bytes(o.group)
                    .i32(parents.get(j))
                    .u8(policies.get(j).ordinal());
              }
              JobQueue.FlowAdded added = q.flow(now, jobs);
              if (added.taken() != null) {
                throw CommandException.err(
                    "job id "
                        + new String(added.taken(), java.nio.charset.StandardCharsets.UTF_8)
                        + " is taken: a flow's jobs must all be new");
              }
              tx.log(QueueCodec.OP_FLOW, op.done());
              call.engine().waits().wake(call.arg(1), null);
              List<Reply> out = new ArrayList<>(jobs.size());
              for (byte[] id : added.ids()) {
                Job j = q.job(id);
                out.add(
                    Reply.array(Reply.bulk("new"), Reply.bulk(id), Reply.bulk(j.state().text())));
              }
              return Reply.array(out);
            });
  }

  private static OnChildFail policy(Call call, int i) {
    for (OnChildFail p : OnChildFail.values()) {
      if (call.is(i, p.name())) {
        return p;
      }
    }
    throw CommandException.err("ONCHILDFAIL is FAIL, HOLD or IGNORE");
  }

  /** The index of the earlier job of the flow with this ID. */
  private static int indexOf(List<JobOptions> earlier, byte[] id) {
    for (int j = 0; j < earlier.size(); j++) {
      if (earlier.get(j).id != null && Arrays.equals(earlier.get(j).id, id)) {
        return j;
      }
    }
    throw CommandException.err("PARENT names no earlier job of the flow by its ID");
  }

  /**
   * QUEUE.CHILDREN key id: the children of a flow's parent, in the order added, each [id, state,
   * result]: state as QUEUE.JOB gives it while the child is in the queue, "done" once acked (its
   * result then, nil if it had none), "gone" if cancelled, purged, or dead under IGNORE and purged.
   * Nil if the job is not a flow's parent (or is gone).
   */
  static Reply children(Call call) {
    byte[] id = QueueHandlers.id(call, 2);
    if (call.argc() != 3) {
      throw CommandException.err("QUEUE.CHILDREN takes a key and an id");
    }
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              JobQueue q = QueueHandlers.queue(e);
              Job p = q.job(id);
              if (p == null || p.flow() == null) {
                return Reply.NULL;
              }
              long now = call.engine().now();
              List<byte[]> ids = p.flow().children;
              List<byte[]> keys = new ArrayList<>(ids.size());
              for (byte[] c : ids) {
                keys.add(rowKey(p.seq, c));
              }
              List<byte[]> rows = call.engine().rows().getAll(e.id(), keys);
              List<Reply> out = new ArrayList<>(ids.size());
              for (int i = 0; i < ids.size(); i++) {
                Job c = q.job(ids.get(i));
                Reply state;
                Reply result = Reply.NULL;
                if (c != null && c.parent() == p) {
                  String s = QueueControl.state(c, now);
                  state = Reply.bulk(s == null ? "gone" : s);
                } else if (rows.get(i) != null) {
                  state = Reply.bulk("done");
                  result = QueueResults.resultOf(rows.get(i));
                } else {
                  state = Reply.bulk("gone");
                }
                out.add(Reply.array(Reply.bulk(ids.get(i)), state, result));
              }
              return Reply.array(out);
            });
  }

  /** A child's result row under its parent. */
  static byte[] rowKey(long parentSeq, byte[] childId) {
    return ByteBuffer.allocate(9 + childId.length)
        .put((byte) 'C')
        .putLong(parentSeq)
        .put(childId)
        .array();
  }

  /** The range of a parent's children's result rows. */
  static RowChange dropRows(long parentSeq) {
    byte[] from = ByteBuffer.allocate(9).put((byte) 'C').putLong(parentSeq).array();
    byte[] to = ByteBuffer.allocate(9).put((byte) 'C').putLong(parentSeq + 1).array();
    return new RowChange.DeleteRange(from, to);
  }

  /**
   * What an ack will write, looked at before it: the job's attempts, the seq of its flow's parent
   * (-1: none) and its own seq if it is a parent (-1: none).
   */
  record Before(int attempts, long parentSeq, long ownFlowSeq) {
    static final Before NONE = new Before(0, -1, -1);

    static Before of(JobQueue q, byte[] id) {
      if (q.resultMillis() == 0 && !q.hasFlows()) {
        return NONE; // only a result or a flow needs the job
      }
      Job j = q.job(id);
      if (j == null) {
        return NONE;
      }
      Job p = j.parent();
      return new Before(j.attempts, p == null ? -1 : p.seq, j.flow() == null ? -1 : j.seq);
    }

    /** The rows a done ack leaves: its result, its result for its parent, its children's gone. */
    List<RowChange> rows(JobQueue q, long now, byte[] id, byte @Nullable [] result) {
      List<RowChange> rows = new ArrayList<>(QueueResults.row(q, now, id, attempts, result));
      if (parentSeq >= 0) {
        rows.add(
            new RowChange.Put(rowKey(parentSeq, id), QueueResults.encode(now, attempts, result)));
      }
      if (ownFlowSeq >= 0) {
        rows.add(dropRows(ownFlowSeq));
      }
      return rows;
    }
  }
}
