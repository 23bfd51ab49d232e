package io.idem.server.commands.generic;

import static io.idem.server.dispatch.CommandSpec.Flag.ADMIN;
import static io.idem.server.dispatch.CommandSpec.Flag.LOADING;
import static io.idem.server.dispatch.CommandSpec.Flag.STALE;

import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.Container;
import io.idem.server.dispatch.Container.Sub;
import io.idem.server.dispatch.LatencyMonitor;
import io.idem.server.reply.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** LATENCY LATEST, HISTORY and RESET, with Redis's replies, over the dispatcher's monitor. */
final class LatencyCommands {

  private LatencyCommands() {}

  static final Container LATENCY =
      new Container(
          "latency",
          null,
          List.of(
              Sub.of(
                  "latest",
                  2,
                  Set.of(ADMIN, LOADING, STALE),
                  "",
                  "Returns each event's latest sample and its worst.",
                  "O(1)",
                  LatencyCommands::latest),
              Sub.of(
                  "history",
                  3,
                  Set.of(ADMIN, LOADING, STALE),
                  "event",
                  "Returns an event's samples, a second's worst each, oldest first.",
                  "O(1)",
                  LatencyCommands::history),
              Sub.of(
                  "reset",
                  -2,
                  Set.of(ADMIN, LOADING, STALE),
                  "[event [event ...]]",
                  "Forgets the named events' samples, or every event's; how many.",
                  "O(1)",
                  LatencyCommands::reset)));

  private static LatencyMonitor monitor(Call call) {
    return call.server().stats().latency;
  }

  /** [[event, unix time of the latest, its ms, the worst ms], ...]. */
  private static Reply latest(Call call) {
    List<Reply> out = new ArrayList<>();
    for (Map.Entry<String, LatencyMonitor.Event> e : monitor(call).events().entrySet()) {
      LatencyMonitor.Sample s = e.getValue().latest();
      out.add(
          Reply.array(
              Reply.bulk(e.getKey()),
              Reply.integer(s.unixSeconds()),
              Reply.integer(s.millis()),
              Reply.integer(e.getValue().max())));
    }
    return Reply.array(out);
  }

  /** [[unix time, ms], ...], oldest first; empty for an event with no samples. */
  private static Reply history(Call call) {
    LatencyMonitor.Event e =
        monitor(call).events().get(new String(call.arg(2), StandardCharsets.UTF_8));
    List<Reply> out = new ArrayList<>();
    if (e != null) {
      for (LatencyMonitor.Sample s : e.history()) {
        out.add(Reply.array(Reply.integer(s.unixSeconds()), Reply.integer(s.millis())));
      }
    }
    return Reply.array(out);
  }

  private static Reply reset(Call call) {
    List<String> names = new ArrayList<>();
    for (int i = 2; i < call.argc(); i++) {
      names.add(new String(call.arg(i), StandardCharsets.UTF_8));
    }
    return Reply.integer(monitor(call).reset(names));
  }
}
