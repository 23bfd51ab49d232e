package io.idem.bench.claims;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Idem's side of the claim benchmark: one exact dedup table, claimed in batches.
 *
 * <pre>
 * DEDUP.RESERVE key 24h EXACT CAPACITY n
 * DEDUP.MCLAIM key AT unix-ms DUPLICATES ITEMS id owner [id owner ...]
 *   -> [[id, owner], ...] for the duplicates only
 * </pre>
 *
 * <p>Each connection takes the messages whose id hashes to it, in delivery order, and sends them in
 * batches of {@code batch}, one MCLAIM each. A batch's AT is the event time of its first message: a
 * batch spans a few tens of milliseconds of event time (a duplicate carries its original's older
 * time), far less than the 24 h window, so one time per command keeps it one command. An id always
 * goes to the same connection, so a message and its duplicate are claimed in delivery order.
 */
public final class IdemClaims {
  public static final String WINDOW = "24h";

  private static final byte[] MCLAIM = "DEDUP.MCLAIM".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] AT = "AT".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] DUPLICATES = "DUPLICATES".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] ITEMS = "ITEMS".getBytes(StandardCharsets.US_ASCII);

  private final Workload w;

  public IdemClaims(Workload w) {
    this.w = w;
  }

  /**
   * Deletes {@code key} and makes it an empty exact table with a 24 h window, sized for {@code
   * capacity} claims per window (0: the server's default).
   */
  public static void reserve(RespConnection c, String key, long capacity) throws IOException {
    c.callOk("DEL", key);
    Resp reply =
        capacity > 0
            ? c.callOk("DEDUP.RESERVE", key, WINDOW, "EXACT", "CAPACITY", Long.toString(capacity))
            : c.callOk("DEDUP.RESERVE", key, WINDOW, "EXACT");
    if (!(reply instanceof Resp.Simple(String text)) || !text.equals("OK")) {
      throw new IOException("DEDUP.RESERVE replied " + Resp.describe(reply) + ", not OK");
    }
  }

  /** DEDUP.INFO's fields by name (RESP2: a flat array of names and values); empty on an error. */
  public static Map<String, Resp> info(RespConnection c, String key) throws IOException {
    Map<String, Resp> fields = new LinkedHashMap<>();
    if (c.call("DEDUP.INFO", key) instanceof Resp.Array(List<Resp> flat)) {
      for (int k = 0; k + 1 < flat.size(); k += 2) {
        String name =
            switch (flat.get(k)) {
              case Resp.Simple(String text) -> text;
              case Resp.Bulk(byte[] bytes) -> new String(bytes, StandardCharsets.UTF_8);
              default -> "";
            };
        fields.put(name, flat.get(k + 1));
      }
    }
    return fields;
  }

  /** The connection of message {@code i}. */
  int route(int i, int connections) {
    return (int) Long.remainderUnsigned(w.idHash(i), connections);
  }

  /** The job of connection {@code c} of {@code connections}. */
  public Pipeline.Job job(
      String key, int c, int connections, int batch, DuplicateCheck.Tally tally) {
    return new Job(
        key.getBytes(StandardCharsets.UTF_8), c, connections, Math.min(batch, w.size), tally);
  }

  private final class Job implements Pipeline.Job {
    private final byte[] key;
    private final int connection;
    private final int connections;
    private final DuplicateCheck.Tally tally;
    private final int[] positions;
    private int cursor;

    Job(byte[] key, int connection, int connections, int batch, DuplicateCheck.Tally tally) {
      this.key = key;
      this.connection = connection;
      this.connections = connections;
      this.tally = tally;
      this.positions = new int[batch];
    }

    @Override
    public boolean writeNext(RespWriter out) throws IOException {
      int n = 0;
      while (cursor < w.size && n < positions.length) {
        int i = cursor++;
        if (route(i, connections) == connection) {
          positions[n++] = i;
        }
      }
      if (n == 0) {
        return false;
      }
      out.array(6 + 2 * n);
      out.bulk(MCLAIM);
      out.bulk(key);
      out.bulk(AT);
      out.bulkDecimal(w.timeMillis(positions[0]));
      out.bulk(DUPLICATES);
      out.bulk(ITEMS);
      for (int k = 0; k < n; k++) {
        int i = positions[k];
        out.bulk16(w.idHi[i], w.idLo[i]);
        out.bulk8(w.owner[i]);
      }
      return true;
    }

    @Override
    public void onReply(Resp reply) throws IOException {
      if (reply instanceof Resp.Err e) {
        throw new IOException("Idem refused DEDUP.MCLAIM: " + e.message());
      }
      if (!(reply instanceof Resp.Array(List<Resp> dups))) {
        throw new IOException("DEDUP.MCLAIM replied " + Resp.describe(reply) + ", not an array");
      }
      for (Resp dup : dups) {
        if (!(dup instanceof Resp.Array(List<Resp> pair)) || pair.size() != 2) {
          throw new IOException("a duplicate is " + Resp.describe(dup) + ", not [id, owner]");
        }
        tally.report(pair.get(0), pair.get(1));
      }
    }
  }
}
