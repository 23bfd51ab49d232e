package io.idem.server.commands.tdigest;

import io.idem.core.sketch.TDigest;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.engine.Entry;
import io.idem.server.reply.Reply;

/**
 * TDIGEST.CREATE key [COMPRESSION compression] — an empty digest, compression 100 unless given, in
 * RedisBloom's order of checks: arity, the key (a digest there is "already exists", another type
 * WRONGTYPE), the keyword, the number. A compression past 10,000,000, or whose full node slots (16
 * × (6c + 10) bytes) would not fit maxmemory, is refused as an allocation failure.
 */
public final class TdigestCreateCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    int argc = call.argc();
    return call.engine()
        .write(
            call.arg(1),
            tx -> {
              if (Entry.valueOrNull(tx.entry(), TdigestCodec.INSTANCE) != null) {
                throw new CommandException(Tdigest.KEY_EXISTS); // another type: WRONGTYPE
              }
              long compression = TDigest.DEFAULT_COMPRESSION;
              if (argc == 4) {
                // RedisBloom looks for the keyword in either place, then parses the last argument.
                if (!call.is(2, "COMPRESSION") && !call.is(3, "COMPRESSION")) {
                  throw new CommandException(Tdigest.WRONG_KEYWORD);
                }
                compression = Tdigest.compression(call.arg(3));
              }
              if (compression > TDigest.MAX_COMPRESSION
                  || !call.engine().memoryFits(TDigest.bytesFor(compression))) {
                throw new CommandException(Tdigest.NO_MEMORY);
              }
              tx.create(
                  TdigestCodec.INSTANCE,
                  TDigest.create(compression),
                  TdigestCodec.recipe(compression));
              return Reply.OK;
            });
  }
}
