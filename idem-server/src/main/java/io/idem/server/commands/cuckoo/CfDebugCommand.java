package io.idem.server.commands.cuckoo;

import io.idem.core.filter.CuckooFilter;
import io.idem.core.filter.RedisBloomCuckoo;
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
              RedisBloomCuckoo moved = RedisCuckoos.of(e);
              if (moved != null) {
                return line(
                    moved.bucketSize(),
                    moved.bucketCount(),
                    moved.itemCount(),
                    moved.deleteCount(),
                    moved.filterCount(),
                    moved.maxIterations(),
                    moved.expansion());
              }
              CuckooFilter f = Cuckoos.own(e);
              if (f == null) {
                throw new CommandException(CuckooErrors.NOT_FOUND);
              }
              return line(
                  f.bucketSize(),
                  f.bucketCount(),
                  f.itemCount(),
                  f.deleteCount(),
                  f.tableCount(),
                  f.maxIterations(),
                  f.expansion());
            });
  }

  private static Reply line(
      int bucketSize,
      long buckets,
      long items,
      long deletes,
      int filters,
      int iterations,
      int expansion) {
    return Reply.bulk(
        "bktsize:"
            + bucketSize
            + " buckets:"
            + buckets
            + " items:"
            + items
            + " deletes:"
            + deletes
            + " filters:"
            + filters
            + " max_iterations:"
            + iterations
            + " expansion:"
            + expansion);
  }
}
