package io.idem.server.commands.generic;

import static io.idem.server.dispatch.CommandSpec.Flag.ADMIN;
import static io.idem.server.dispatch.CommandSpec.Flag.LOADING;
import static io.idem.server.dispatch.CommandSpec.Flag.STALE;

import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Container;
import io.idem.server.dispatch.Container.Sub;
import io.idem.server.dispatch.Parse;
import io.idem.server.dispatch.SlowLog;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** SLOWLOG GET, LEN and RESET, with Redis's replies, over the dispatcher's {@link SlowLog}. */
final class SlowLogCommands {

  private SlowLogCommands() {}

  static final Container SLOWLOG =
      new Container(
          "slowlog",
          null,
          List.of(
              Sub.of(
                  "get",
                  -2,
                  Set.of(ADMIN, LOADING, STALE),
                  "[count:integer]",
                  "Returns the newest slow log entries (10 unless a count is given; -1: all).",
                  "O(N) where N is the number of entries returned",
                  SlowLogCommands::get),
              Sub.of(
                  "len",
                  2,
                  Set.of(ADMIN, LOADING, STALE),
                  "",
                  "Returns the number of entries in the slow log.",
                  "O(1)",
                  call -> Reply.integer(call.server().stats().slowLog.len())),
              Sub.of(
                  "reset",
                  2,
                  Set.of(ADMIN, LOADING, STALE),
                  "",
                  "Empties the slow log.",
                  "O(N) where N is the number of entries in the slow log",
                  call -> {
                    call.server().stats().slowLog.reset();
                    return Reply.OK;
                  })));

  /** SLOWLOG GET [count]: [id, unix time, microseconds, [args], client address, client name]. */
  private static Reply get(Call call) {
    long count = 10;
    if (call.argc() == 3) {
      Long n = Parse.longOrNull(call.arg(2));
      if (n == null || n < -1) {
        throw CommandException.err("count should be greater than or equal to -1");
      }
      count = n;
    } else if (call.argc() > 3) {
      throw CommandException.err("wrong number of arguments for 'slowlog|get' command");
    }
    List<Reply> out = new ArrayList<>();
    for (SlowLog.Entry e : call.server().stats().slowLog.get(count)) {
      List<Reply> args = new ArrayList<>(e.args().size());
      for (byte[] a : e.args()) {
        args.add(Reply.bulk(a));
      }
      out.add(
          Reply.array(
              Reply.integer(e.id()),
              Reply.integer(e.unixSeconds()),
              Reply.integer(e.micros()),
              Reply.array(args),
              Reply.bulk(e.address()),
              Reply.bulk(e.name())));
    }
    return Reply.array(out);
  }
}
