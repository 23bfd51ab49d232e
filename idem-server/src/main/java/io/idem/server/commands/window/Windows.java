package io.idem.server.commands.window;

import io.idem.core.store.RowChange;
import io.idem.core.window.Resolution;
import io.idem.core.window.WindowedTable;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Parse;
import io.idem.server.engine.Engine;
import io.idem.server.engine.Entry;
import io.idem.server.engine.KeyTx;
import io.idem.server.engine.Rows;
import io.idem.server.engine.ValueCodec;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the windowed tables' commands (COUNTER.*, DISTINCT.*) share: their arguments, error texts,
 * limits, and how a table's rows are read, written and dropped in the store.
 */
public final class Windows {

  public static final int MAX_NAME_BYTES = 1024;

  /** Minute buckets for windows of up to two hours, hour buckets for up to eight days. */
  public static final List<Resolution> DEFAULT =
      List.of(new Resolution(60_000, 2 * 3_600_000), new Resolution(3_600_000, 8 * 86_400_000L));

  /**
   * Rows are dropped this long after their retention, so a query that chose its buckets an instant
   * before a drop never reads a row that is going.
   */
  public static final long DROP_MARGIN_MILLIS = 60_000;

  public static final String NOT_FOUND = "ERR not found";
  public static final String EXISTS = "ERR item exists";
  public static final String BAD_TIME =
      "ERR time must be * or a Unix time in milliseconds, from 0 to the end of year 9999";
  public static final String TOO_OLD =
      "ERR the event is older than the retention of every resolution";
  public static final String TOO_NEW =
      "ERR the event is further ahead of the server's clock than the longest retention";
  public static final String BAD_WINDOW =
      "ERR a window must be seconds or a duration such as 90s, 15m, 24h or 7d";
  public static final String NAME_TOO_LONG = "ERR name longer than " + MAX_NAME_BYTES + " bytes";
  public static final String TOO_MANY_RESOLUTIONS =
      "ERR a table has at most " + WindowedTable.MAX_RESOLUTIONS + " resolutions";
  public static final String SAME_BUCKET = "ERR two resolutions with the same bucket";

  /**
   * The most rows one query reads (names × the rows of their windows): a query's memory and time
   * stay bounded, whatever its windows and resolutions.
   */
  public static final long MAX_QUERY_ROWS = 20_000;

  public static final String QUERY_TOO_LARGE =
      "ERR a query may read at most "
          + MAX_QUERY_ROWS
          + " rows (names x the rows of their windows): ask for fewer names or shorter windows";

  /**
   * The most counts one query answers (names × windows): its reply stays bounded, a free key's too,
   * whose query reads no rows.
   */
  public static final long MAX_QUERY_COUNTS = MAX_QUERY_ROWS;

  public static final String TOO_MANY_COUNTS =
      "ERR a query may ask for at most " + MAX_QUERY_COUNTS + " counts (names x windows)";

  private Windows() {}

  /** A time argument: {@code *} for the server's clock, else Unix milliseconds. */
  public static long time(Call call, int i, long now) {
    if (call.is(i, "*")) {
      return now;
    }
    Long t = Parse.longOrNull(call.arg(i));
    if (t == null || t < 0 || t > WindowedTable.MAX_TIME) {
      throw new CommandException(BAD_TIME);
    }
    return t;
  }

  public static long window(byte[] arg) {
    Long millis = Parse.durationMillisOrNull(arg);
    if (millis == null) {
      throw new CommandException(BAD_WINDOW);
    }
    return millis;
  }

  public static byte[] name(Call call, int i) {
    byte[] name = call.arg(i);
    if (name.length > MAX_NAME_BYTES) {
      throw new CommandException(NAME_TOO_LONG);
    }
    return name;
  }

  /** A duration as a user would write it: 90s, 15m, 2h, 8d, or milliseconds. */
  public static String show(long millis) {
    for (long[] u :
        new long[][] {{86_400_000, 'd'}, {3_600_000, 'h'}, {60_000, 'm'}, {1000, 's'}}) {
      if (millis % u[0] == 0) {
        return millis / u[0] + String.valueOf((char) u[1]);
      }
    }
    return millis + "ms";
  }

  /**
   * The clause {@code RESOLUTION bucket retention} at {@code i}, added to {@code into}.
   *
   * @return the index after it
   */
  public static int resolution(Call call, int i, List<Resolution> into) {
    if (!call.is(i, "RESOLUTION") || i + 2 >= call.argc()) {
      throw new CommandException(Errors.SYNTAX);
    }
    if (into.size() == WindowedTable.MAX_RESOLUTIONS) {
      throw new CommandException(TOO_MANY_RESOLUTIONS);
    }
    long bucket = window(call.arg(i + 1));
    long retention = window(call.arg(i + 2));
    String bad = Resolution.problem(bucket, retention);
    if (bad != null) {
      throw new CommandException("ERR " + bad);
    }
    into.add(new Resolution(bucket, retention));
    return i + 3;
  }

  /** The resolutions a RESERVE gave, finest first, or the defaults if it gave none. */
  public static List<Resolution> chosen(List<Resolution> given) {
    List<Resolution> sorted = new ArrayList<>(given.isEmpty() ? DEFAULT : given);
    sorted.sort(Comparator.comparingLong(Resolution::bucketMillis));
    for (int i = 1; i < sorted.size(); i++) {
      if (sorted.get(i).bucketMillis() == sorted.get(i - 1).bucketMillis()) {
        throw new CommandException(SAME_BUCKET);
      }
    }
    return List.copyOf(sorted);
  }

  /** Refuses an event the table cannot count at {@code now}: too far ahead, or too old for all. */
  public static void checkTime(WindowedTable table, long time, long now) {
    if (time > table.latestTime(now)) {
      throw new CommandException(TOO_NEW);
    }
    if (table.keeping(time, now) == 0) {
      throw new CommandException(TOO_OLD);
    }
  }

  /** A query's windows and names: {@code window [window ...] NAMES name [name ...]} from 3 on. */
  public record Query(long[] windows, byte[][] names) {

    public static Query parse(Call call) {
      int argc = call.argc();
      int namesAt = 3;
      while (namesAt < argc && !call.is(namesAt, "NAMES")) {
        namesAt++;
      }
      if (namesAt == 3 || namesAt + 1 >= argc) {
        throw new CommandException(Errors.SYNTAX);
      }
      if ((long) (namesAt - 3) * (argc - namesAt - 1) > MAX_QUERY_COUNTS) {
        throw new CommandException(TOO_MANY_COUNTS);
      }
      long[] windows = new long[namesAt - 3];
      for (int w = 0; w < windows.length; w++) {
        windows[w] = window(call.arg(3 + w));
      }
      byte[][] names = new byte[argc - namesAt - 1][];
      for (int i = 0; i < names.length; i++) {
        names[i] = name(call, namesAt + 1 + i);
      }
      return new Query(windows, names);
    }

    /** The resolution each window is read at, ending at {@code end}; errors if one has none. */
    public int[] resolve(WindowedTable table, long end, long now) {
      int[] resolution = new int[windows.length];
      for (int w = 0; w < windows.length; w++) {
        resolution[w] = table.resolve(windows[w], end, now);
        if (resolution[w] == WindowedTable.NO_RESOLUTION) {
          throw new CommandException(
              "ERR no resolution of the table divides a window of "
                  + show(windows[w])
                  + " and keeps that long");
        }
        if (resolution[w] == WindowedTable.NOT_KEPT) {
          throw new CommandException(
              "ERR a window of "
                  + show(windows[w])
                  + " ending at "
                  + end
                  + " reaches back past what the table keeps");
        }
      }
      if (table.rowsRead(windows, resolution, end) * names.length > MAX_QUERY_ROWS) {
        throw new CommandException(QUERY_TOO_LARGE);
      }
      return resolution;
    }

    /** The reply of a free key: zero for every name and window. */
    public Reply zeros() {
      return new Reply.IntRows(new long[names.length * windows.length], windows.length);
    }
  }

  /** A table and its value id, as a query found them. */
  public record Found<T>(T table, long id) {}

  /**
   * The table at the command's key, or null if the key is free, under the key's lock only for this:
   * queries read the rows without it.
   */
  public static <T> @Nullable Found<T> find(Call call, ValueCodec<T> codec) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              T t = Entry.valueOrNull(e, codec);
              return t == null ? null : new Found<>(t, e.id());
            });
  }

  /** The rows of the value {@code id}, read one by one or in one MultiGet. */
  public static WindowedTable.RowSource rowSource(Rows rows, long id) {
    return new WindowedTable.RowSource() {
      @Override
      public byte @Nullable [] row(byte[] key) {
        return id < 0 ? null : rows.get(id, key);
      }

      @Override
      public List<byte @Nullable []> rows(List<byte[]> keys) {
        return id < 0
            ? new ArrayList<>(java.util.Collections.nCopies(keys.size(), null))
            : rows.getAll(id, keys);
      }
    };
  }

  /** Writes changed rows with the transaction's entry: readers see them once it returns. */
  public static WindowedTable.RowSink rowSink(KeyTx tx) {
    return (keys, values) -> {
      List<RowChange> changes = new ArrayList<>(keys.size());
      for (int k = 0; k < keys.size(); k++) {
        byte[] row = values.get(k);
        changes.add(
            row == null ? new RowChange.Delete(keys.get(k)) : new RowChange.Put(keys.get(k), row));
      }
      tx.change(changes);
    };
  }

  /**
   * A background round on a table: drops the rows that hold only buckets past their retention (and
   * the margin), one range per resolution.
   *
   * @return when to visit the table next (see {@link ValueCodec#background})
   */
  public static long dropExpired(Engine engine, Entry entry, WindowedTable table) {
    if (!table.dropDue(engine.now() - DROP_MARGIN_MILLIS)) {
      return nextVisit(table);
    }
    // On a node with a log, rows leave at a record's time (WINDOWDUE): dropped by this node's
    // clock, a replica catching up would count into buckets the others still hold. Until the
    // record is applied, the table is looked at every round.
    if (engine.windowByLog(entry)) {
      return ValueCodec.NEXT_ROUND;
    }
    Boolean live =
        engine.writeEntry(
            entry,
            tx -> {
              dropRows(tx, table, engine.now());
              return Boolean.TRUE;
            });
    return live == null ? ValueCodec.NEVER : nextVisit(table);
  }

  /** When the table next has rows to drop, with the margin: the time its next visit is due. */
  private static long nextVisit(WindowedTable table) {
    long at = table.nextDropAt();
    return at > Long.MAX_VALUE - DROP_MARGIN_MILLIS ? ValueCodec.NEVER : at + DROP_MARGIN_MILLIS;
  }

  /** Drops the table's rows past their retention (and the margin) at {@code now}; true if any. */
  public static boolean dropRows(KeyTx tx, WindowedTable table, long now) {
    List<RowChange> ranges = new ArrayList<>();
    for (byte[][] r : table.drop(now - DROP_MARGIN_MILLIS)) {
      ranges.add(new RowChange.DeleteRange(r[0], r[1]));
    }
    if (!ranges.isEmpty()) {
      tx.change(ranges);
    }
    return !ranges.isEmpty();
  }

  /**
   * A table's INFO, shaped as BF.INFO (label, value pairs; a map in RESP3): its resolutions
   * ([bucket, retention] in milliseconds, finest first), what {@code own} adds, then its memory and
   * disk bytes.
   */
  public static <T extends WindowedTable> Reply info(
      Call call, WindowedTableCodec<T> codec, java.util.function.Function<T, List<Reply>> own) {
    return call.engine()
        .read(
            call.arg(1),
            e -> {
              T t = Entry.valueOrNull(e, codec);
              if (t == null) {
                throw new CommandException(NOT_FOUND);
              }
              List<Reply> out = new ArrayList<>();
              List<Reply> resolutions = new ArrayList<>();
              for (Resolution r : t.resolutions()) {
                resolutions.add(
                    Reply.array(
                        Reply.integer(r.bucketMillis()), Reply.integer(r.retentionMillis())));
              }
              out.add(Reply.simple("Resolutions"));
              out.add(Reply.array(resolutions));
              out.addAll(own.apply(t));
              out.add(Reply.simple("Memory bytes"));
              out.add(Reply.integer(codec.memoryUsage(t)));
              out.add(Reply.simple("Disk bytes"));
              out.add(Reply.integer(call.engine().rows().approximateBytes(e.id())));
              return Reply.map(out);
            });
  }
}
