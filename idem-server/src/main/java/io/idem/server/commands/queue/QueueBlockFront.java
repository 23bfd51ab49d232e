package io.idem.server.commands.queue;

import io.idem.server.cluster.ClusterLog;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.LogFront;
import io.idem.server.dispatch.LogWait;
import io.idem.server.engine.Engine;
import io.idem.server.engine.Entry;
import io.idem.server.reply.Reply;
import io.idem.server.request.Command;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * QUEUE.RESERVE ... BLOCK on a node with a log: it waits on the node its client is on, and writes
 * to the log only plain reserves (without BLOCK), as {@link LogWait} does; the jobs a record leased
 * for a waiter gone since are released through the log.
 */
final class QueueBlockFront implements LogFront {

  static final QueueBlockFront INSTANCE = new QueueBlockFront();

  private QueueBlockFront() {}

  @Override
  public boolean takes(Command command) {
    for (int i = 2; i < command.size(); i++) {
      if (command.is(i, "BLOCK")) {
        return true;
      }
    }
    return false;
  }

  @Override
  public Reply front(Call call, ClusterLog log, int slot) {
    QueueHandlers.ReserveArgs a = QueueHandlers.ReserveArgs.parse(call);
    Engine engine = call.engine();
    byte[] key = call.arg(1).clone();
    Command plain =
        new Command(
            new byte[][] {
              ascii("QUEUE.RESERVE"),
              key,
              ascii("COUNT"),
              ascii(Integer.toString(a.count())),
              ascii("LEASE"),
              ascii(a.lease() + "ms")
            });
    LogWait.Kind kind =
        new LogWait.Kind() {
          @Override
          public LogWait.Verdict judge(Reply r) {
            if (r instanceof Reply.Array arr) {
              return arr.items().isEmpty() ? LogWait.Verdict.WAIT : LogWait.Verdict.TAKEN;
            }
            return LogWait.Verdict.ANSWER;
          }

          @Override
          public long nextWake() {
            return QueueBlockFront.nextWake(engine, key);
          }

          @Override
          public void giveBack(Reply taken) {
            QueueBlockFront.giveBack(log, slot, key, taken);
          }
        };
    return LogWait.run(
        engine,
        log,
        slot,
        plain,
        key,
        null,
        QueueHandlers.BLOCKED,
        a.block(),
        () -> Reply.NULL_ARRAY,
        kind);
  }

  /**
   * When this node's replica of the queue could next lease something (Long.MIN_VALUE: now;
   * Long.MAX_VALUE: only a write can tell, or there is no queue). Reads, changes nothing.
   */
  private static long nextWake(Engine engine, byte[] key) {
    return engine.read(
        key,
        (@Nullable Entry e) -> {
          JobQueue q = Entry.valueOrNull(e, QueueCodec.INSTANCE);
          return q == null ? Long.MAX_VALUE : q.nextWake();
        });
  }

  /** Gives back, as QUEUE.RELEASE records, the jobs a record leased for a waiter gone since. */
  private static void giveBack(ClusterLog log, int slot, byte[] key, Reply leased) {
    List<Reply> jobs = ((Reply.Array) leased).items();
    for (Reply job : jobs) {
      List<Reply> f = ((Reply.Array) job).items();
      byte[] id = ((Reply.Bulk) f.get(0)).bytes();
      long token = ((Reply.Int) f.get(2)).value();
      // If this record is lost too, the lease ends at its time: at least once still holds.
      log.submit(
          new Command(new byte[][] {ascii("QUEUE.RELEASE"), key, id, ascii(Long.toString(token))}),
          slot);
    }
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
