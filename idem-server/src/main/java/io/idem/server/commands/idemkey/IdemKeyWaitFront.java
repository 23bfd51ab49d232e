package io.idem.server.commands.idemkey;

import io.idem.core.dedup.IdempotencyTable;
import io.idem.server.cluster.ClusterLog;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.LogFront;
import io.idem.server.dispatch.LogWait;
import io.idem.server.engine.Engine;
import io.idem.server.engine.Entry;
import io.idem.server.reply.Reply;
import io.idem.server.request.Command;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * IDEMKEY.BEGIN ... WAIT on a node with a log: it waits on the node its client is on and writes to
 * the log only plain begins (without WAIT), as {@link LogWait} does: one at once, then one when
 * this node's replica shows the key completed, abandoned or its lease run out. A key a record took
 * over for a waiter gone since is abandoned through the log, for the next retry.
 */
final class IdemKeyWaitFront implements LogFront {

  static final IdemKeyWaitFront INSTANCE = new IdemKeyWaitFront();

  private IdemKeyWaitFront() {}

  @Override
  public boolean takes(Command command) {
    for (int i = 3; i + 1 < command.size(); i += 2) {
      if (command.is(i, "WAIT")) {
        return true;
      }
    }
    return false;
  }

  @Override
  public Reply front(Call call, ClusterLog log, int slot) {
    IdemKeyBeginCommand.Args args = IdemKeyBeginCommand.Args.parse(call);
    Engine engine = call.engine();
    byte[] key = call.arg(1).clone();
    byte[] id = args.id().clone();
    List<byte[]> plain = new ArrayList<>();
    for (int i = 0; i < call.argc(); i++) {
      if (i >= 3 && i % 2 == 1 && call.is(i, "WAIT")) {
        i++; // and its duration
      } else {
        plain.add(call.arg(i).clone());
      }
    }
    LogWait.Kind kind =
        new LogWait.Kind() {
          @Override
          public LogWait.Verdict judge(Reply r) {
            String status = status(r);
            if (status == null) {
              return LogWait.Verdict.ANSWER;
            }
            return switch (status) {
              case "in_progress" -> LogWait.Verdict.WAIT;
              case "started" -> LogWait.Verdict.TAKEN;
              default -> LogWait.Verdict.ANSWER;
            };
          }

          @Override
          public long nextWake() {
            return leaseUntil(engine, key, id);
          }

          @Override
          public void giveBack(Reply taken) {
            long token = ((Reply.Int) ((Reply.Array) taken).items().get(1)).value();
            // If this record is lost too, the lease ends at its time and a retry takes over.
            log.submit(
                new Command(
                    new byte[][] {
                      "IDEMKEY.ABANDON".getBytes(StandardCharsets.US_ASCII),
                      key,
                      id,
                      Long.toString(token).getBytes(StandardCharsets.US_ASCII)
                    }),
                slot);
          }
        };
    return LogWait.run(
        engine,
        log,
        slot,
        new Command(plain.toArray(byte[][]::new)),
        key,
        id,
        IdemKeyBeginCommand.WAITING,
        args.waitMillis(),
        () -> IdemKeys.inProgress(leftMillis(engine, key, id)),
        kind);
  }

  /** The milliseconds the key's lease has left on this node's replica: a timeout's answer. */
  private static long leftMillis(Engine engine, byte[] key, byte[] id) {
    long until = leaseUntil(engine, key, id);
    long now = engine.now();
    return until <= now ? 0 : until - now;
  }

  /** A begin reply's status (started, done, in_progress, mismatch), or null for an error. */
  private static @Nullable String status(Reply r) {
    if (r instanceof Reply.Array a
        && !a.items().isEmpty()
        && a.items().get(0) instanceof Reply.Simple s) {
      return s.text();
    }
    return null;
  }

  /**
   * When the key's lease ends on this node's replica; Long.MIN_VALUE when it is not in progress
   * there (a record may take it, or find it done). Reads, changes nothing.
   */
  private static long leaseUntil(Engine engine, byte[] key, byte[] id) {
    return engine.read(
        key,
        (@Nullable Entry e) -> {
          IdempotencyTable t = Entry.valueOrNull(e, IdemKeyCodec.INSTANCE);
          IdempotencyTable.Lease l = t == null ? null : t.inProgress(id, engine.now());
          return l == null ? Long.MIN_VALUE : l.leaseUntil();
        });
  }
}
