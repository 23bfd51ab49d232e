package io.idem.server.commands.bloom;

import io.idem.core.filter.ScalableBloomFilter;
import io.idem.core.hash.Hash128;
import io.idem.server.command.Call;
import io.idem.server.command.Handler;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;

/** BF.MEXISTS key item [item ...] — BF.EXISTS's answer for each item, in an array. */
public final class BfMexistsCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              ScalableBloomFilter f = Blooms.filter(e);
              Hash128 h = new Hash128();
              List<Reply> out = new ArrayList<>(call.argc() - 2);
              for (int i = 2; i < call.argc(); i++) {
                h.hash(call.arg(i));
                out.add(Blooms.bool(call, f != null && f.mightContain(h.h1(), h.h2())));
              }
              return Reply.array(out);
            });
  }
}
