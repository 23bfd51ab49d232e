package io.idem.server.commands.counter;

import io.idem.core.window.WindowedCounters;
import io.idem.server.command.Call;
import io.idem.server.command.CommandException;
import io.idem.server.command.Errors;
import io.idem.server.command.Handler;
import io.idem.server.engine.Rows;
import io.idem.server.reply.Reply;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * COUNTER.QUERY key time window [window ...] NAMES name [name ...] — for each name, its count in
 * each window ending at {@code time} ({@code *}: the server's clock): an array per name, with one
 * integer per window. A window is summed at the finest resolution whose bucket divides it and that
 * still keeps all of it: the window's buckets end with the one that holds {@code time}. A free key
 * counts zero everywhere.
 */
public final class CounterQueryCommand implements Handler {

  @Override
  public Reply handle(Call call) {
    int argc = call.argc();
    int namesAt = 3;
    while (namesAt < argc && !call.is(namesAt, "NAMES")) {
      namesAt++;
    }
    if (namesAt == 3 || namesAt + 1 >= argc) {
      throw new CommandException(Errors.SYNTAX);
    }
    long[] windows = new long[namesAt - 3];
    for (int w = 0; w < windows.length; w++) {
      windows[w] = Counters.window(call.arg(3 + w));
    }
    byte[][] names = new byte[argc - namesAt - 1][];
    for (int i = 0; i < names.length; i++) {
      names[i] = Counters.name(call, namesAt + 1 + i);
    }
    // The key's lock only to find the table: its rows are read without it.
    Object[] found =
        call.engine()
            .read(
                call.arg(1),
                e -> {
                  WindowedCounters t = Counters.tableOrNull(e);
                  return t == null ? null : new Object[] {t, e.id()};
                });
    long now = call.engine().now();
    long end = Counters.time(call, 2, now);
    List<Reply> out = new ArrayList<>(names.length);
    if (found == null) {
      List<Reply> zeros = new ArrayList<>(windows.length);
      for (int w = 0; w < windows.length; w++) {
        zeros.add(Reply.integer(0));
      }
      for (int i = 0; i < names.length; i++) {
        out.add(Reply.array(zeros));
      }
      return Reply.array(out);
    }
    WindowedCounters table = (WindowedCounters) found[0];
    long id = (Long) found[1];
    int[] resolution = new int[windows.length];
    for (int w = 0; w < windows.length; w++) {
      resolution[w] = table.resolve(windows[w], end, now);
      if (resolution[w] == WindowedCounters.NO_RESOLUTION) {
        throw new CommandException(
            "ERR no resolution of the table divides a window of "
                + Counters.show(windows[w])
                + " and keeps that long");
      }
      if (resolution[w] == WindowedCounters.NOT_KEPT) {
        throw new CommandException(
            "ERR a window of "
                + Counters.show(windows[w])
                + " ending at "
                + end
                + " reaches back past what the table keeps");
      }
    }
    Rows rows = call.engine().rows();
    long[][] sums;
    try {
      sums =
          table.sums(
              new WindowedCounters.RowSource() {
                @Override
                public byte @Nullable [] row(byte[] key) {
                  return rows.get(id, key);
                }

                @Override
                public List<byte @Nullable []> rows(List<byte[]> keys) {
                  return rows.getAll(id, keys);
                }
              },
              names,
              windows,
              resolution,
              end);
    } catch (ArithmeticException e) {
      throw new CommandException(Counters.SUM_OVERFLOW);
    } catch (IOException e) {
      throw new CommandException(Counters.CORRUPT);
    }
    for (long[] nameSums : sums) {
      List<Reply> perWindow = new ArrayList<>(nameSums.length);
      for (long s : nameSums) {
        perWindow.add(Reply.integer(s));
      }
      out.add(Reply.array(perWindow));
    }
    return Reply.array(out);
  }
}
