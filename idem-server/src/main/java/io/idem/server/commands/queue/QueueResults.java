package io.idem.server.commands.queue;

import io.idem.core.store.RowChange;
import io.idem.server.commands.queue.QueueCodec.Op;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.reply.Reply;
import java.nio.ByteBuffer;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Results of finished jobs: QUEUE.COMPLETE (ack with a result) and QUEUE.RESULT (read it by id),
 * kept for the retention QUEUE.CONFIG RESULTS sets. A result is a row in the store, not memory, so
 * a month of results costs disk (docs/commands/queue.md).
 */
final class QueueResults {

  private QueueResults() {}

  /** The result row a finished job leaves, or none when the queue keeps no results. */
  static List<RowChange> row(JobQueue q, long now, byte[] id, int attempts, byte @Nullable [] r) {
    if (q.resultMillis() == 0) {
      return List.of();
    }
    return List.of(new RowChange.Put(q.resultKeyAt(now, id), encode(now, attempts, r)));
  }

  /** A result row's value: done at {@code now} after {@code attempts}, with {@code r} or none. */
  static byte[] encode(long now, int attempts, byte @Nullable [] r) {
    ByteBuffer b = ByteBuffer.allocate(18 + (r == null ? 0 : r.length));
    b.put((byte) 1).put((byte) 1).putLong(now).putInt(attempts);
    if (r == null) {
      b.putInt(-1);
    } else {
      b.putInt(r.length).put(r);
    }
    return b.array();
  }

  /**
   * QUEUE.COMPLETE key id token [RESULT value]: acks the job, keeping its result (up to 512 KiB)
   * when the queue keeps results. "done", "cancelled" (it was cancelled while leased: gone, no
   * result kept), or nil if this lease does not hold it.
   */
  static Reply complete(Call call) {
    byte[] id = QueueHandlers.id(call, 2);
    long token = QueueHandlers.token(call, 3);
    byte[] result = null;
    if (call.argc() == 6 && call.is(4, "RESULT")) {
      result = call.arg(5);
      if (result.length > QueueCodec.MAX_RESULT_BYTES) {
        throw CommandException.err("a result is at most " + QueueCodec.MAX_RESULT_BYTES + " bytes");
      }
    } else if (call.argc() != 4) {
      throw new CommandException(io.idem.server.dispatch.Errors.SYNTAX);
    }
    byte[] value = result;
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              JobQueue q = QueueHandlers.queue(tx.entry());
              long now = call.engine().now();
              QueueFlows.Before before = QueueFlows.Before.of(q, id);
              JobQueue.Held held = q.ack(now, id, token);
              if (held == JobQueue.Held.NOT_LEASED) {
                return Reply.NULL;
              }
              List<RowChange> rows =
                  held == JobQueue.Held.DONE ? before.rows(q, now, id, value) : List.of();
              tx.log(
                  QueueCodec.OP_COMPLETE,
                  new Op().u64(now).bytes(id).u64(token).bytes(value).done(),
                  rows);
              if (q.limitsConcurrency() || q.eventCapacity() > 0 || before.parentSeq() >= 0) {
                call.engine().waits().wake(call.arg(1), null);
              }
              return Reply.bulk(held == JobQueue.Held.DONE ? "done" : "cancelled");
            });
  }

  /**
   * QUEUE.RESULT key id: the finished job's result, kept for the queue's retention: a map of state
   * (done), completed (unix ms), attempts and result (nil if it was acked without one); nil if none
   * is kept (not finished, past the retention, or results are off).
   */
  static Reply result(Call call) {
    byte[] id = QueueHandlers.id(call, 2);
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              JobQueue q = QueueHandlers.queue(e);
              List<byte[]> keys = q.resultKeys(call.engine().now(), id);
              if (keys.isEmpty()) {
                return Reply.NULL;
              }
              for (byte[] row : call.engine().rows().getAll(e.id(), keys)) {
                if (row != null) {
                  return describe(row);
                }
              }
              return Reply.NULL;
            });
  }

  private static Reply describe(byte[] row) {
    Reply result = resultOf(row); // checks the form first
    ByteBuffer b = ByteBuffer.wrap(row);
    return Reply.map(
        List.of(
            Reply.bulk("state"), Reply.bulk("done"),
            Reply.bulk("completed"), Reply.integer(b.getLong(2)),
            Reply.bulk("attempts"), Reply.integer(b.getInt(10)),
            Reply.bulk("result"), result));
  }

  /** A result row's result: its bytes, or nil when the job was acked without one. */
  static Reply resultOf(byte[] row) {
    ByteBuffer b = ByteBuffer.wrap(row);
    if (row.length < 18 || b.get() != 1 || b.get() != 1) {
      throw CommandException.err("a stored result of an unknown form");
    }
    b.position(14);
    int n = b.getInt();
    if (n < 0) {
      return Reply.NULL;
    }
    if (n != b.remaining()) {
      throw CommandException.err("a stored result cut short");
    }
    byte[] r = new byte[n];
    b.get(r);
    return Reply.bulk(r);
  }
}
