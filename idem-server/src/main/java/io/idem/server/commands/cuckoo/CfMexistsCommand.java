package io.idem.server.commands.cuckoo;

import io.idem.core.filter.ScalableCuckoo;
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
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              ScalableCuckoo f = Cuckoos.filter(e);
              List<Reply> out = new ArrayList<>(call.argc() - 2);
              for (int i = 2; i < call.argc(); i++) {
                out.add(Cuckoos.bool(call, f != null && f.mightContainItem(call.arg(i))));
              }
              return Reply.array(out);
            });
  }
}
