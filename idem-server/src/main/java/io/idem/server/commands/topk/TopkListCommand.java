package io.idem.server.commands.topk;

import io.idem.core.sketch.TopK;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * TOPK.LIST key [WITHCOUNT] — the heap's items with counts above 0, largest count first (ties in
 * the items' byte order, where RedisBloom leaves them unordered), each followed by its heap count
 * with WITHCOUNT. As RedisBloom, the keyword is checked before the key and may be shortened to any
 * prefix, in any case.
 */
public final class TopkListCommand implements Handler {

  private static final byte[] WITHCOUNT = "WITHCOUNT".getBytes(StandardCharsets.US_ASCII);

  @Override
  public Reply handle(Call call) {
    boolean withCount = call.argc() == 3;
    if (withCount && !isPrefixOfWithCount(call.arg(2))) {
      throw new CommandException(Topk.WITHCOUNT_EXPECTED);
    }
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              TopK sketch = Topk.sketch(e);
              List<Reply> out = new ArrayList<>();
              for (TopK.Entry entry : sketch.list()) {
                out.add(Reply.bulk(entry.item()));
                if (withCount) {
                  out.add(Reply.integer(entry.count()));
                }
              }
              return Reply.array(out);
            });
  }

  private static boolean isPrefixOfWithCount(byte[] arg) {
    if (arg.length > WITHCOUNT.length) {
      return false;
    }
    for (int i = 0; i < arg.length; i++) {
      if (Character.toUpperCase(arg[i]) != WITHCOUNT[i]) {
        return false;
      }
    }
    return true;
  }
}
