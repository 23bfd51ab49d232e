package io.idem.bench.counters;

import io.idem.bench.claims.Resp;
import io.idem.bench.claims.RespWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** One system under test: how it counts an event and how it reads a 24 h window. */
public sealed interface Side {

  String label();

  /** Writes the commands that count event {@code i} at {@code now}; returns how many. */
  int writeEvent(Events events, int i, long now, String[] names, RespWriter out) throws IOException;

  /** Checks one reply of the load. */
  void checkLoadReply(Resp reply) throws IOException;

  /** The whole query for the names' 24 h counts ending at {@code end}, as bytes on the wire. */
  byte[] query(String[] names, long end);

  /** Leaves in the query's reply per name (see {@link LeanReply}). */
  int leavesPerName();

  /**
   * Smyte's first design: a key per name and bucket, INCRBY then EXPIRE so it goes when its
   * retention ends; a day is MGET of the name's 24 hour keys, summed by the client.
   */
  record Redis() implements Side {
    @Override
    public String label() {
      return "Redis: INCRBY + EXPIRE per bucket, MGET";
    }

    @Override
    public int writeEvent(Events events, int i, long now, String[] names, RespWriter out)
        throws IOException {
      long t = events.time(i);
      events.features(i, names);
      long hour = Math.floorDiv(t, Events.HOUR);
      long minute = Math.floorDiv(t, Events.MINUTE);
      long hourTtl = ttlSeconds((hour + 1) * Events.HOUR + Events.HOUR_RETENTION, now);
      long minuteTtl = ttlSeconds((minute + 1) * Events.MINUTE + Events.MINUTE_RETENTION, now);
      int n = 0;
      for (String name : names) {
        n += bucket(out, name + ":h:" + hour, hourTtl);
        if (minuteTtl > 0) {
          n += bucket(out, name + ":m:" + minute, minuteTtl);
        }
      }
      return n;
    }

    private static int bucket(RespWriter out, String key, long ttl) throws IOException {
      out.array(3).bulk("INCRBY").bulk(key).bulk("1");
      out.array(3).bulk("EXPIRE").bulk(key).bulkDecimal(ttl);
      return 2;
    }

    private static long ttlSeconds(long until, long now) {
      return until <= now ? 0 : (until - now + 999) / 1000;
    }

    @Override
    public void checkLoadReply(Resp reply) throws IOException {
      if (!(reply instanceof Resp.Int i) || i.value() < 1) {
        throw new IOException("Redis answered " + Resp.describe(reply));
      }
    }

    @Override
    public byte[] query(String[] names, long end) {
      long hour = Math.floorDiv(end, Events.HOUR);
      String[] args = new String[1 + names.length * 24];
      args[0] = "MGET";
      int a = 1;
      for (String name : names) {
        for (long h = hour - 23; h <= hour; h++) {
          args[a++] = name + ":h:" + h;
        }
      }
      return encode(args);
    }

    @Override
    public int leavesPerName() {
      return 24;
    }
  }

  /** Idem: one COUNTER.INCRBY per event for all its names; one COUNTER.QUERY for a day. */
  record Idem(String table) implements Side {
    @Override
    public String label() {
      return "Idem: COUNTER.INCRBY, COUNTER.QUERY";
    }

    @Override
    public int writeEvent(Events events, int i, long now, String[] names, RespWriter out)
        throws IOException {
      events.features(i, names);
      out.array(3 + 2 * names.length)
          .bulk("COUNTER.INCRBY")
          .bulk(table)
          .bulkDecimal(events.time(i));
      for (String name : names) {
        out.bulk(name).bulk("1");
      }
      return 1;
    }

    @Override
    public void checkLoadReply(Resp reply) throws IOException {
      if (!(reply instanceof Resp.Int i) || i.value() < 1 || i.value() > 2) {
        throw new IOException("Idem answered " + Resp.describe(reply));
      }
    }

    @Override
    public byte[] query(String[] names, long end) {
      String[] args = new String[6 + names.length - 1];
      args[0] = "COUNTER.QUERY";
      args[1] = table;
      args[2] = Long.toString(end);
      args[3] = "24h";
      args[4] = "NAMES";
      System.arraycopy(names, 0, args, 5, names.length);
      return encode(args);
    }

    @Override
    public int leavesPerName() {
      return 1;
    }
  }

  static byte[] encode(String... args) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
    for (String a : args) {
      byte[] bytes = a.getBytes(StandardCharsets.UTF_8);
      b.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
      b.writeBytes(bytes);
      b.writeBytes(new byte[] {'\r', '\n'});
    }
    return b.toByteArray();
  }
}
