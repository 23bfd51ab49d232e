package io.idem.server.commands.cuckoo;

import io.idem.core.filter.ScalableCuckoo;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/** CF.DEBUG key — RedisBloom's one line: bucket size, buckets, items, deletes, filters, kicks. */
public final class CfDebugCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              ScalableCuckoo f = Cuckoos.filter(e);
              if (f == null) {
                throw new CommandException(CuckooErrors.NOT_FOUND);
              }
              return Reply.bulk(
                  "bktsize:"
                      + f.bucketSize()
                      + " buckets:"
                      + f.bucketCount()
                      + " items:"
                      + f.itemCount()
                      + " deletes:"
                      + f.deleteCount()
                      + " filters:"
                      + f.filterCount()
                      + " max_iterations:"
                      + f.maxIterations()
                      + " expansion:"
                      + f.expansion());
            });
  }
}
