package io.idem.server.commands.topk;

import io.idem.core.hash.Hash128;
import io.idem.core.sketch.TopK;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.dispatch.Parse;
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
              // A bad increment is that item's error inside the reply, as in RedisBloom; the
              // other items are counted.
              long[] increments = new long[n];
              int good = 0;
              for (int i = 0; i < n; i++) {
                increments[i] = withIncrements ? increment(call.arg(3 + 2 * i)) : 1;
                if (increments[i] >= 0) {
                  good++;
                }
              }
              byte[][] goodItems = new byte[good][];
              long[] goodIncrements = new long[good];
              for (int i = 0, g = 0; i < n; i++) {
                if (increments[i] >= 0) {
                  goodItems[g] = items[i];
                  goodIncrements[g++] = increments[i];
                }
              }
              // The log record first: once the sketch has changed, nothing may fail before it.
              byte[] logged;
              try {
                logged = TopkCodec.pairs(goodItems, goodIncrements);
              } catch (IllegalArgumentException | OutOfMemoryError e) {
                throw new CommandException(Topk.TOO_LARGE);
              }
              Hash128 h = new Hash128();
              List<Reply> out = new ArrayList<>(n);
              for (int i = 0; i < n; i++) {
                out.add(
                    increments[i] < 0
                        ? BAD_INCREMENT
                        : Topk.item(sketch.add(items[i], h.hash(items[i]), increments[i])));
              }
              if (good > 0) {
                tx.log(TopkCodec.OP_INCRBY, logged);
              }
              return Reply.array(out);
            });
  }

  private static final Reply BAD_INCREMENT = Reply.error(Topk.BAD_INCREMENT);

  /** The increment, or -1 if it is not one RedisBloom takes. */
  private static long increment(byte[] arg) {
    Long v = Parse.longOrNull(arg);
    return v == null || v < 0 || v > Topk.MAX_INCREMENT ? -1 : v;
  }
}
