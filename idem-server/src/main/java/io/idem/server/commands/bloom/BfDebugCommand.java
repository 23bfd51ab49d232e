package io.idem.server.commands.bloom;

import io.idem.core.filter.ScalableBloom;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;

/**
 * BF.DEBUG key — RedisBloom's view of a filter: {@code size:<items>}, then one line a layer with
 * its bytes, bits, hashes, hash width, capacity, items and error rate. Idem's own layers are
 * blocked filters hashed with 128 bits: the same fields, in their terms.
 */
public final class BfDebugCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              ScalableBloom f = Blooms.bloom(e);
              if (f == null) {
                throw new CommandException(BloomErrors.NOT_FOUND);
              }
              List<Reply> out = new ArrayList<>(1 + f.layerCount());
              out.add(Reply.bulk("size:" + f.itemCount()));
              for (int i = 0; i < f.layerCount(); i++) {
                out.add(Reply.bulk(f.describeLayer(i)));
              }
              return Reply.array(out);
            });
  }
}
