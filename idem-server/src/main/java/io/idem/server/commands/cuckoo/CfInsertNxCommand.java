package io.idem.server.commands.cuckoo;

import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * CF.INSERTNX key [CAPACITY c] [NOCREATE] ITEMS item [item ...] — adds each item unless it may be
 * present: an array of integers, 1 added, 0 maybe present, -1 did not fit (under RESP3 too, as
 * RedisBloom). Creates the filter with capacity c (default 1024) if the key is free, unless
 * NOCREATE.
 */
public final class CfInsertNxCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return CfInsertCommand.insert(call, true);
  }
}
