package io.idem.server.commands.cms;

import io.idem.core.sketch.CountMinSketch;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.dispatch.Parse;
import io.idem.server.reply.Reply;

/**
 * CMS.INITBYDIM key width depth, and CMS.INITBYPROB key error probability — creates an empty
 * sketch. As in RedisBloom, a key that exists (of any type) is refused before the arguments are
 * read, and INITBYPROB's width is ⌈2 / error⌉ and its depth ⌈log10(probability) / log10(0.5)⌉ in
 * single precision, so the same arguments give RedisBloom's dimensions.
 */
public final class CmsInitCommand implements Handler {

  private final boolean byProbability;

  private CmsInitCommand(boolean byProbability) {
    this.byProbability = byProbability;
  }

  public static CmsInitCommand byDimensions() {
    return new CmsInitCommand(false);
  }

  public static CmsInitCommand byProbability() {
    return new CmsInitCommand(true);
  }

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              if (tx.entry() != null) {
                throw new CommandException(Cms.KEY_EXISTS);
              }
              long width;
              long depth;
              if (byProbability) {
                double error = probability(call.arg(2), Cms.BAD_ERROR);
                double prob = probability(call.arg(3), Cms.BAD_PROB);
                double w = Math.ceil(2.0 / error);
                width = w >= 0x1p63 ? 0 : (long) w;
                float ratio = (float) Math.log10((float) prob) / (float) Math.log10(0.5f);
                depth = Float.isInfinite(ratio) ? 0 : (long) Math.ceil(ratio);
              } else {
                width = positive(call.arg(2), Cms.BAD_WIDTH);
                depth = positive(call.arg(3), Cms.BAD_DEPTH);
              }
              if (width < 1 || depth < 1 || width > Long.MAX_VALUE / depth) {
                throw new CommandException(Cms.BAD_INIT);
              }
              if (width > CountMinSketch.MAX_CELLS / depth
                  || !call.engine().memoryFits(CountMinSketch.bytesFor(width, depth))) {
                throw new CommandException(Cms.NO_MEMORY);
              }
              CountMinSketch sketch;
              try {
                sketch = CountMinSketch.create(width, depth);
              } catch (OutOfMemoryError e) {
                // One large array failed: nothing else was touched, and the heap is as it was.
                throw new CommandException(Cms.NO_MEMORY);
              }
              tx.create(CmsCodec.INSTANCE, sketch, CmsCodec.recipe((int) width, (int) depth));
              return Reply.OK;
            });
  }

  private static long positive(byte[] arg, String error) {
    Long v = Parse.longOrNull(arg);
    if (v == null || v < 1) {
      throw new CommandException(error);
    }
    return v;
  }

  private static double probability(byte[] arg, String error) {
    Double v = Parse.doubleOrNull(arg);
    if (v == null || !(v > 0 && v < 1)) {
      throw new CommandException(error);
    }
    return v;
  }
}
