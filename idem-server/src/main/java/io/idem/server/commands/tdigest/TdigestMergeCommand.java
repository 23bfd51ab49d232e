package io.idem.server.commands.tdigest;

import io.idem.core.sketch.TDigest;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Handler;
import io.idem.server.dispatch.Parse;
import io.idem.server.engine.Entry;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;

/**
 * TDIGEST.MERGE destination numkeys source [source ...] [COMPRESSION compression] [OVERRIDE] — sets
 * the destination to a new digest of its own observations (unless OVERRIDE, or it is new) and then
 * each source's, in order (a source listed twice counts twice). The compression is the one given,
 * else the destination's if it exists and OVERRIDE is absent, else the largest of the sources'.
 * RedisBloom's order of checks: the destination's type, numkeys, the keywords after the sources
 * (unknown words beside a known one are ignored, as there), then each source. All keys are locked
 * together. As in RedisBloom, the sources (and the destination) are compressed in place on the way,
 * the result replaces the key (an expiry is removed), and its last nodes stay unmerged. Logged as
 * the result's whole state; a weight that would pass 2^63 - 1 changes nothing.
 */
public final class TdigestMergeCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    int argc = call.argc();
    Long parsed = Parse.longOrNull(call.arg(2));
    List<byte[]> sources = new ArrayList<>();
    if (parsed != null && parsed > 0 && parsed <= argc - 3) {
      for (int i = 0; i < parsed; i++) {
        sources.add(call.arg(3 + i));
      }
    }
    byte[] destKey = call.arg(1);
    return call.engine()
        .writeWith(
            destKey,
            sources,
            (tx, read) -> {
              TDigest dest = Entry.valueOrNull(tx.entry(), TdigestCodec.INSTANCE);
              if (parsed == null) {
                throw new CommandException(Tdigest.BAD_NUMKEYS);
              }
              if (parsed <= 0) {
                throw new CommandException(Tdigest.NUMKEYS_NOT_POSITIVE);
              }
              if (parsed > argc - 3) {
                throw new CommandException(Errors.wrongArity("tdigest.merge"));
              }
              int options = 3 + (int) (long) parsed;
              long compression = 0; // none given
              boolean override = false;
              if (options < argc) {
                int at = find(call, options, "COMPRESSION");
                if (at >= 0) {
                  if (at == argc - 1) {
                    throw new CommandException(Errors.wrongArity("tdigest.merge"));
                  }
                  compression = Tdigest.compression(call.arg(at + 1));
                }
                override = find(call, options, "OVERRIDE") >= 0;
                if (at < 0 && !override) {
                  throw new CommandException(Tdigest.WRONG_KEYWORD);
                }
              }
              List<TDigest> from = new ArrayList<>(sources.size());
              for (byte[] source : sources) {
                from.add(Tdigest.digest(read.apply(source)));
              }
              TDigest kept = dest != null && !override ? dest : null;
              if (compression == 0) {
                if (kept != null) {
                  compression = kept.compression();
                } else {
                  for (TDigest s : from) {
                    compression = Math.max(compression, s.compression());
                  }
                }
              }
              if (compression > TDigest.MAX_COMPRESSION
                  || !call.engine().memoryFits(TDigest.bytesFor(compression))) {
                throw new CommandException(Tdigest.MERGE_NO_MEMORY);
              }
              // Made aside and written out first: the key changes only once its state is in hand.
              TDigest result;
              byte[] state;
              try {
                result = TDigest.merge(from, compression, kept);
                if (result == null) {
                  throw new CommandException(Tdigest.OVERFLOW);
                }
                state = TdigestCodec.state(result);
              } catch (OutOfMemoryError e) {
                throw new CommandException(Tdigest.MERGE_NO_MEMORY);
              }
              // Logged before the key changes; the change allocates nothing, so it cannot fail.
              if (dest == null) {
                dest =
                    tx.create(
                        TdigestCodec.INSTANCE,
                        TDigest.create(compression),
                        TdigestCodec.recipe(compression));
                tx.log(TdigestCodec.OP_SET, state);
              } else {
                tx.log(TdigestCodec.OP_SET, state);
                tx.persist(); // Redis replaces the key, and its expiry goes
              }
              dest.become(result);
              return Reply.OK;
            });
  }

  /** Where the keyword first appears from {@code from} on, or -1. */
  private static int find(Call call, int from, String keyword) {
    for (int i = from; i < call.argc(); i++) {
      if (call.is(i, keyword)) {
        return i;
      }
    }
    return -1;
  }
}
