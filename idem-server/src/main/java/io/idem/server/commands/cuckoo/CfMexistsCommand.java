package io.idem.server.commands.cuckoo;

import io.idem.core.filter.CuckooFilter;
import io.idem.core.filter.RedisBloomCuckoo;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;

/**
 * CF.MEXISTS key item [item ...] — for each item, 1 if it may be present, 0 if certainly absent or
 * the key is free. A key of another type is WRONGTYPE (RedisBloom answers 0s).
 */
public final class CfMexistsCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    long[] hashes = Cuckoos.hashes(call, 2);
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              RedisBloomCuckoo moved = RedisCuckoos.of(e);
              List<Reply> out = new ArrayList<>(hashes.length / 2);
              if (moved != null) {
                for (int i = 2; i < call.argc(); i++) {
                  out.add(Cuckoos.bool(call, RedisCuckoos.contains(moved, call.arg(i))));
                }
                return Reply.array(out);
              }
              CuckooFilter f = Cuckoos.filter(e);
              for (int i = 0; i < hashes.length; i += 2) {
                out.add(Cuckoos.bool(call, f != null && f.mightContain(hashes[i], hashes[i + 1])));
              }
              return Reply.array(out);
            });
  }
}
