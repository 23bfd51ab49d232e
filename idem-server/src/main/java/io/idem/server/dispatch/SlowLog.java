package io.idem.server.dispatch;

import io.idem.server.request.Command;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Redis's slow log: the commands that ran at least {@code slowlog-log-slower-than} microseconds
 * (negative: none; 0: every one), the newest {@code slowlog-max-len} kept. As Redis, an entry keeps
 * at most 32 arguments, the last saying how many more there were, and at most 128 bytes of each,
 * saying how many more there were: an entry's size is bounded whatever the command.
 */
public final class SlowLog {

  static final int MAX_ARGS = 32;
  static final int MAX_ARG_BYTES = 128;

  /** One entry: as SLOWLOG GET shows it. */
  public record Entry(
      long id, long unixSeconds, long micros, List<byte[]> args, String address, String name) {}

  private final ArrayDeque<Entry> entries = new ArrayDeque<>();
  private long nextId;
  private volatile long slowerThanMicros = 10_000;
  private volatile int maxLen = 128;

  void slowerThan(long micros) {
    slowerThanMicros = micros;
  }

  synchronized void maxLen(int n) {
    maxLen = n;
    while (entries.size() > n) {
      entries.pollLast();
    }
  }

  /** Keeps the command if it ran long enough: its arguments, cut as the class says. */
  void maybeLog(long micros, Command command, Session session) {
    long threshold = slowerThanMicros;
    if (threshold < 0 || micros < threshold || maxLen == 0) {
      return;
    }
    int shown = Math.min(command.size(), MAX_ARGS);
    List<byte[]> args = new ArrayList<>(shown);
    for (int i = 0; i < shown; i++) {
      if (i == MAX_ARGS - 1 && command.size() > MAX_ARGS) {
        args.add(ascii("... (" + (command.size() - MAX_ARGS + 1) + " more arguments)"));
        break;
      }
      byte[] a = command.arg(i);
      if (a.length > MAX_ARG_BYTES) {
        byte[] cut = Arrays.copyOf(a, MAX_ARG_BYTES);
        byte[] more = ascii("... (" + (a.length - MAX_ARG_BYTES) + " more bytes)");
        a = Arrays.copyOf(cut, cut.length + more.length);
        System.arraycopy(more, 0, a, cut.length, more.length);
      }
      args.add(a);
    }
    @Nullable String name = session.name();
    synchronized (this) {
      entries.addFirst(
          new Entry(
              nextId++,
              System.currentTimeMillis() / 1000,
              micros,
              args,
              session.address(),
              name == null ? "" : name));
      while (entries.size() > maxLen) {
        entries.pollLast();
      }
    }
  }

  /** The newest {@code count} entries, newest first (a negative count: all). */
  public synchronized List<Entry> get(long count) {
    List<Entry> out = new ArrayList<>();
    for (Iterator<Entry> it = entries.iterator();
        it.hasNext() && (count < 0 || out.size() < count); ) {
      out.add(it.next());
    }
    return out;
  }

  public synchronized int len() {
    return entries.size();
  }

  public synchronized void reset() {
    entries.clear();
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
