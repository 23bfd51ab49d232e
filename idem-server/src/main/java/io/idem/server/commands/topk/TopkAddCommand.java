package io.idem.server.commands.topk;

import io.idem.core.hash.Hash128;
import io.idem.core.sketch.TopK;
import io.idem.server.command.Call;
import io.idem.server.command.CommandException;
import io.idem.server.command.Errors;
import io.idem.server.command.Handler;
import io.idem.server.commands.generic.Parse;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;

/**
 * TOPK.ADD key item [item ...] and TOPK.INCRBY key item increment [item increment ...] — adds to
 * each item in order and replies, per item, the item it expelled from the heap, or null. INCRBY's
 * increments are 0 to 100,000, all checked before any is added: unlike RedisBloom, which adds the
 * pairs before a bad one and puts the error in the array, a bad increment changes nothing.
 */
public final class TopkAddCommand implements Handler {

  private final boolean withIncrements;

  private TopkAddCommand(boolean withIncrements) {
    this.withIncrements = withIncrements;
  }

  public static TopkAddCommand add() {
    return new TopkAddCommand(false);
  }

  public static TopkAddCommand incrBy() {
    return new TopkAddCommand(true);
  }

  @Override
  public Reply handle(Call call) {
    int argc = call.argc();
    if (withIncrements && argc % 2 != 0) {
      throw new CommandException(Errors.wrongArity("topk.incrby"));
    }
    int step = withIncrements ? 2 : 1;
    int n = (argc - 2) / step;
    byte[][] items = new byte[n][];
    for (int i = 0; i < n; i++) {
      items[i] = call.arg(2 + step * i);
    }
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              TopK sketch = Topk.sketch(tx.entry());
              long[] increments = new long[n];
              for (int i = 0; i < n; i++) {
                increments[i] = withIncrements ? increment(call.arg(3 + 2 * i)) : 1;
              }
              // The log record first: once the sketch has changed, nothing may fail before it.
              byte[] logged;
              try {
                logged = TopkCodec.pairs(items, increments);
              } catch (IllegalArgumentException | OutOfMemoryError e) {
                throw new CommandException(Topk.TOO_LARGE);
              }
              Hash128 h = new Hash128();
              List<Reply> out = new ArrayList<>(n);
              for (int i = 0; i < n; i++) {
                out.add(Topk.item(sketch.add(items[i], h.hash(items[i]), increments[i])));
              }
              tx.log(TopkCodec.OP_INCRBY, logged);
              return Reply.array(out);
            });
  }

  private static long increment(byte[] arg) {
    Long v = Parse.longOrNull(arg);
    if (v == null || v < 0 || v > Topk.MAX_INCREMENT) {
      throw new CommandException(Topk.BAD_INCREMENT);
    }
    return v;
  }
}
