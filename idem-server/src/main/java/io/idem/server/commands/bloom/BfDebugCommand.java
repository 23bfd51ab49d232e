package io.idem.server.commands.bloom;

import io.idem.core.filter.BloomFilter;
import io.idem.core.filter.RedisBloomChain;
import io.idem.core.filter.ScalableBloomFilter;
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
              List<Reply> out = new ArrayList<>();
              RedisBloomChain c = Blooms.chain(e);
              if (c != null) {
                out.add(Reply.bulk("size:" + c.itemCount()));
                for (int i = 0; i < c.linkCount(); i++) {
                  out.add(Reply.bulk(c.describeLink(i)));
                }
                return Reply.array(out);
              }
              ScalableBloomFilter f = Blooms.filter(e);
              if (f == null) {
                throw new CommandException(BloomErrors.NOT_FOUND);
              }
              out.add(Reply.bulk("size:" + f.itemCount()));
              for (int i = 0; i < f.layerCount(); i++) {
                BloomFilter l = f.layer(i);
                out.add(
                    Reply.bulk(
                        "bytes:"
                            + l.sizeInBytes()
                            + " bits:"
                            + l.bitSize()
                            + " hashes:"
                            + l.hashes()
                            + " hashwidth:128 capacity:"
                            + l.capacity()
                            + " size:"
                            + l.itemCount()
                            + " ratio:"
                            + RedisBloomChain.printfG(l.configuredErrorRate())));
              }
              return Reply.array(out);
            });
  }
}
