package io.idem.server.commands.cms;

import io.idem.core.sketch.CountMinSketch;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.dispatch.Parse;
import io.idem.server.reply.Reply;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * CMS.MERGE destination numKeys source [source ...] [WEIGHTS weight [weight ...]] — sets the
 * destination (which must exist, and may be a source) to the weighted sum of the sources, in
 * RedisBloom's order of checks; all keys are locked together, so the sources are read at one
 * instant. Weights are integers and may be negative; a counter that would leave [0, 2^32 - 1], or a
 * total below 0, refuses the merge and changes nothing. Logged as the destination's new state, made
 * aside first: a merge whose state cannot be made in memory changes nothing either.
 */
public final class CmsMergeCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    int argc = call.argc();
    Long parsed = Parse.longOrNull(call.arg(2));
    int k = -1; // sources, once numKeys is known
    if (parsed != null && parsed > 0 && parsed <= argc) {
      k = parsed.intValue();
    }
    int weightsAt = -1;
    for (int i = 3; i < argc; i++) {
      if (call.is(i, "WEIGHTS")) {
        weightsAt = i;
        break;
      }
    }
    List<byte[]> sources = new ArrayList<>();
    for (int i = 3; i < (weightsAt < 0 ? argc : weightsAt); i++) {
      sources.add(call.arg(i));
    }
    int numKeys = k;
    int at = weightsAt;
    return call.engine()
        .writeWith(
            call.arg(1),
            sources,
            (tx, read) -> {
              CountMinSketch dest = Cms.sketch(tx.entry());
              if (parsed == null) {
                throw new CommandException(Cms.BAD_NUMKEYS);
              }
              if (parsed <= 0) {
                throw new CommandException(Cms.NUMKEYS_NOT_POSITIVE);
              }
              if (at < 0 ? argc - 3 != parsed : at != 3 + parsed || argc - at - 1 != parsed) {
                throw new CommandException(at < 0 ? Cms.WRONG_KEYS : Cms.WRONG_KEYS_WEIGHTS);
              }
              CountMinSketch[] from = new CountMinSketch[numKeys];
              long[] weights = new long[numKeys];
              for (int i = 0; i < numKeys; i++) {
                weights[i] = 1;
                if (at >= 0) {
                  Long w = Parse.longOrNull(call.arg(at + 1 + i));
                  if (w == null) {
                    throw new CommandException(Cms.BAD_WEIGHT);
                  }
                  weights[i] = w;
                }
                from[i] = Cms.sketch(read.apply(sources.get(i)));
                if (!from[i].sameShape(dest)) {
                  throw new CommandException(Cms.SHAPES_DIFFER);
                }
              }
              // The merge is made aside and written out first: the destination changes only once
              // its new state is in hand to log.
              byte[] state;
              CountMinSketch next;
              try {
                next = CountMinSketch.create(dest.width(), dest.depth());
                if (!next.setToWeightedSum(from, weights)) {
                  throw new CommandException(Cms.MERGE_OVERFLOW);
                }
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                next.writeTo(out);
                state = out.toByteArray();
              } catch (OutOfMemoryError e) {
                throw new CommandException(Cms.MERGE_NO_MEMORY);
              } catch (IOException e) {
                throw new UncheckedIOException(e); // a byte array does not fail
              }
              dest.setToWeightedSum(new CountMinSketch[] {next}, new long[] {1}); // cannot fail
              tx.log(CmsCodec.OP_SET, state);
              return Reply.OK;
            });
  }
}
