package io.idem.server.commands.generic;

import static io.idem.server.dispatch.CommandSpec.Flag.FAST;
import static io.idem.server.dispatch.CommandSpec.Flag.LOADING;
import static io.idem.server.dispatch.CommandSpec.Flag.STALE;
import static io.idem.server.dispatch.CommandSpec.command;
import static io.idem.server.dispatch.Documented.doc;

import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandSpec;
import io.idem.server.reply.Reply;
import java.util.List;

/**
 * Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH, with Redis's replies and errors. Commands
 * between MULTI and EXEC are queued by the dispatcher, and EXEC runs there too (it needs the
 * dispatcher to run what was queued): its handler here is never called.
 */
public final class TransactionCommands {

  private TransactionCommands() {}

  /** The family's registration list. */
  public static List<CommandSpec> specs() {
    return List.of(
        command("multi", 1, TransactionCommands::multi).flags(LOADING, STALE, FAST).build(),
        command("exec", 1, TransactionCommands::exec).flags(LOADING, STALE).build(),
        command("discard", 1, TransactionCommands::discard).flags(LOADING, STALE, FAST).build(),
        command("watch", -2, doc("key [key ...]", TransactionCommands::watch))
            .flags(LOADING, STALE, FAST)
            .keys(1, -1, 1)
            .build(),
        command("unwatch", 1, TransactionCommands::unwatch).flags(LOADING, STALE, FAST).build());
  }

  private static Reply multi(Call call) {
    if (call.session().inMulti()) {
      return Reply.err("MULTI calls can not be nested");
    }
    call.session().beginMulti();
    return Reply.OK;
  }

  private static Reply exec(Call call) {
    throw new IllegalStateException("EXEC runs in the dispatcher");
  }

  private static Reply discard(Call call) {
    if (!call.session().inMulti()) {
      return Reply.err("DISCARD without MULTI");
    }
    call.session().endMulti();
    return Reply.OK;
  }

  private static Reply watch(Call call) {
    if (call.session().inMulti()) {
      return Reply.err("WATCH inside MULTI is not allowed");
    }
    for (int i = 1; i < call.argc(); i++) {
      call.session().watch(call.arg(i), call.engine().watch(call.arg(i)));
    }
    return Reply.OK;
  }

  private static Reply unwatch(Call call) {
    call.session().unwatch();
    return Reply.OK;
  }
}
