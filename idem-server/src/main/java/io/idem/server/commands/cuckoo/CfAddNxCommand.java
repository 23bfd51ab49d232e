package io.idem.server.commands.cuckoo;

import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Handler;
import io.idem.server.reply.Reply;

/**
 * CF.ADDNX key item — adds the item unless it may be present: 1 if added, 0 if not. Creates the
 * filter with the defaults (capacity 1024) if the key is free.
 */
public final class CfAddNxCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    return CfAddCommand.add(call, true);
  }
}
