package io.idem.server.commands.topk;

import io.idem.core.hash.Hash128;
import io.idem.core.sketch.TopK;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Handler;
import io.idem.server.dispatch.Parse;
import io.idem.server.reply.Reply;
import java.util.concurrent.ThreadLocalRandom;

/**
 * TOPK.RESERVE key topk [width depth decay] — creates an empty top-k sketch; width 8, depth 7 and
 * decay 0.9 unless given, as in RedisBloom. A key that exists (of any type) is refused before the
 * arguments are read. The coin flips' seed is drawn here and logged with the sketch's recipe.
 */
public final class TopkReserveCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    if (call.argc() != 3 && call.argc() != 6) {
      throw new CommandException(Errors.wrongArity("topk.reserve"));
    }
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              if (tx.entry() != null) {
                throw new CommandException(Topk.KEY_EXISTS);
              }
              long k = dimension(call.arg(2), Topk.BAD_K);
              long width = 8;
              long depth = 7;
              double decay = 0.9;
              if (call.argc() == 6) {
                width = dimension(call.arg(3), Topk.BAD_WIDTH);
                depth = dimension(call.arg(4), Topk.BAD_DEPTH);
                Double d = Parse.doubleOrNull(call.arg(5));
                if (d == null || !(d > 0 && d <= 1)) {
                  throw new CommandException(Topk.BAD_DECAY);
                }
                decay = d;
              }
              if (k > TopK.MAX_K
                  || width > TopK.MAX_BUCKETS / depth
                  || !call.engine().memoryFits(TopK.bytesFor(k, width, depth))) {
                throw new CommandException(Topk.NO_MEMORY);
              }
              long seed = seed(call);
              TopK sketch;
              try {
                sketch = TopK.create(k, width, depth, decay, seed);
              } catch (OutOfMemoryError e) {
                throw new CommandException(Topk.NO_MEMORY);
              }
              tx.create(TopkCodec.INSTANCE, sketch, TopkCodec.recipe(sketch, seed));
              return Reply.OK;
            });
  }

  /** k, width or depth: an integer from 1 to 2^32 - 1, as RedisBloom takes them. */
  private static long dimension(byte[] arg, String error) {
    Long v = Parse.longOrNull(arg);
    if (v == null || v < 1 || v > 0xFFFF_FFFFL) {
      throw new CommandException(error);
    }
    return v;
  }

  /**
   * The coin flips' seed. A cluster node applying a record draws it from the key and the record's
   * time, so that every replica that applies the record makes the same sketch; alone, at random.
   */
  static long seed(Call call) {
    if (!call.session().isApplier()) {
      return ThreadLocalRandom.current().nextLong();
    }
    Hash128 h = new Hash128();
    h.hash(call.arg(1));
    return h.h1() ^ Long.rotateLeft(h.h2(), 17) ^ call.engine().now() * 0x9E3779B97F4A7C15L;
  }
}
