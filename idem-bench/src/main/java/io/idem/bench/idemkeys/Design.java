package io.idem.bench.idemkeys;

import io.idem.bench.claims.Resp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** How a side answers a request with an idempotency key: the commands it sends, step by step. */
public sealed interface Design {

  String label();

  /** Starts request {@code r}; it ends with {@link Run#finish}. */
  void begin(Run run, Run.Request r) throws IOException;

  private static IOException unexpected(String side, String step, Resp reply) {
    return new IOException(side + " answered " + step + " with " + Resp.describe(reply));
  }

  /**
   * What people build on Redis: {@code SET idem:<key>:lock <token> NX PX <lease>} pipelined with
   * {@code GET idem:<key>}. A result answers (checked against the fingerprint stored before it);
   * else the marker set starts the work, which ends with {@code SET idem:<key> <fingerprint +
   * result> EX <retention>} and {@code DEL} of the marker, pipelined; else the key is in progress,
   * and the request tries again after {@code pollMillis}. The order makes it safe: a try that sets
   * the marker after the first's DEL reads the result the first stored before it. The completion
   * does not check the marker's token (that takes a Lua script, which costs Redis more), so this
   * design is cheaper than a safe one.
   */
  record Redis(long leaseMillis, long retentionSeconds, double pollMillis) implements Design {
    private static final byte[] SET = bytes("SET");
    private static final byte[] GET = bytes("GET");
    private static final byte[] DEL = bytes("DEL");
    private static final byte[] NX = bytes("NX");
    private static final byte[] PX = bytes("PX");
    private static final byte[] EX = bytes("EX");

    @Override
    public String label() {
      return "Redis: SET NX marker + result key, polling every " + fmt(pollMillis) + " ms";
    }

    @Override
    public void begin(Run run, Run.Request r) {
      attempt(run, r);
    }

    private void attempt(Run run, Run.Request r) {
      byte[] id = run.mix.id(r.key);
      run.loop
          .command(r.conn, reply -> r.marked = reply instanceof Resp.Simple)
          .array(6)
          .bulk(SET)
          .bulk(lockKey(id))
          .bulkDecimal(r.index)
          .bulk(NX)
          .bulk(PX)
          .bulkDecimal(leaseMillis);
      run.loop
          .command(r.conn, reply -> answered(run, r, reply))
          .array(2)
          .bulk(GET)
          .bulk(resultKey(id));
    }

    private void answered(Run run, Run.Request r, Resp reply) throws IOException {
      if (reply instanceof Resp.Bulk b) {
        byte[] fp = run.mix.fingerprint(r.key);
        byte[] v = b.bytes();
        if (v.length < fp.length || !Arrays.equals(v, 0, fp.length, fp, 0, fp.length)) {
          throw new IOException("Redis: a stored result without the key's fingerprint");
        }
        run.finish(r, Arrays.copyOfRange(v, fp.length, v.length));
      } else if (!(reply instanceof Resp.Nil)) {
        throw unexpected("Redis", "GET", reply);
      } else if (r.marked) {
        run.started(r, () -> complete(run, r));
      } else {
        run.polled(r);
        run.loop.at(System.nanoTime() + (long) (pollMillis * 1e6), () -> attempt(run, r));
      }
    }

    private void complete(Run run, Run.Request r) {
      byte[] id = run.mix.id(r.key);
      byte[] fp = run.mix.fingerprint(r.key);
      byte[] result = run.mix.result(r.key);
      byte[] value = Arrays.copyOf(fp, fp.length + result.length);
      System.arraycopy(result, 0, value, fp.length, result.length);
      run.loop
          .command(
              r.conn,
              reply -> {
                if (!(reply instanceof Resp.Simple)) {
                  throw unexpected("Redis", "SET of the result", reply);
                }
              })
          .array(5)
          .bulk(SET)
          .bulk(resultKey(id))
          .bulk(value)
          .bulk(EX)
          .bulkDecimal(retentionSeconds);
      run.loop.command(r.conn, reply -> run.finish(r, null)).array(2).bulk(DEL).bulk(lockKey(id));
    }

    private static byte[] resultKey(byte[] id) {
      return concat("idem:", id, "");
    }

    private static byte[] lockKey(byte[] id) {
      return concat("idem:", id, ":lock");
    }
  }

  /**
   * Idem: {@code IDEMKEY.BEGIN table key FINGERPRINT fp LEASE l}; started runs the work and ends
   * with {@code IDEMKEY.COMPLETE}; done answers; in progress sends the begin again with {@code
   * WAIT} on a connection of its own (as idem-client's IdempotencyKeys does), which answers when
   * the first completes.
   */
  record Idem(String table, long leaseMillis) implements Design {
    private static final byte[] BEGIN = bytes("IDEMKEY.BEGIN");
    private static final byte[] COMPLETE = bytes("IDEMKEY.COMPLETE");
    private static final byte[] FINGERPRINT = bytes("FINGERPRINT");
    private static final byte[] LEASE = bytes("LEASE");
    private static final byte[] WAIT = bytes("WAIT");

    @Override
    public String label() {
      return "Idem: IDEMKEY.BEGIN, WAIT when in progress";
    }

    @Override
    public void begin(Run run, Run.Request r) {
      send(run, r, r.conn, false);
    }

    private void send(Run run, Run.Request r, Loop.Conn c, boolean wait) {
      Wire.Out out =
          run.loop
              .command(
                  c,
                  reply -> {
                    if (wait) {
                      run.releaseWaitConn(c);
                    }
                    answered(run, r, reply, wait);
                  })
              .array(wait ? 9 : 7)
              .bulk(BEGIN)
              .bulk(bytes(table))
              .bulk(run.mix.id(r.key))
              .bulk(FINGERPRINT)
              .bulk(run.mix.fingerprint(r.key))
              .bulk(LEASE)
              .bulk(bytes(leaseMillis + "ms"));
      if (wait) {
        out.bulk(WAIT).bulk(bytes(leaseMillis + "ms"));
      }
    }

    private void answered(Run run, Run.Request r, Resp reply, boolean waited) throws IOException {
      if (!(reply instanceof Resp.Array a)
          || a.elements().size() != 2
          || !(a.elements().get(0) instanceof Resp.Simple state)) {
        throw unexpected("Idem", "IDEMKEY.BEGIN", reply);
      }
      Resp value = a.elements().get(1);
      switch (state.text()) {
        case "started" -> {
          r.token = ((Resp.Int) value).value();
          run.started(r, () -> complete(run, r));
        }
        case "done" -> run.finish(r, ((Resp.Bulk) value).bytes());
        case "in_progress" -> {
          if (waited) {
            throw new IOException("Idem: a waiting begin timed out");
          }
          send(run, r, run.waitConn(r), true);
        }
        default -> throw unexpected("Idem", "IDEMKEY.BEGIN", reply);
      }
    }

    private void complete(Run run, Run.Request r) {
      run.loop
          .command(
              r.conn,
              reply -> {
                if (!(reply instanceof Resp.Int i) || i.value() != 1) {
                  throw unexpected("Idem", "IDEMKEY.COMPLETE", reply);
                }
                run.finish(r, null);
              })
          .array(5)
          .bulk(COMPLETE)
          .bulk(bytes(table))
          .bulk(run.mix.id(r.key))
          .bulkDecimal(r.token)
          .bulk(run.mix.result(r.key));
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] concat(String prefix, byte[] id, String suffix) {
    byte[] p = bytes(prefix);
    byte[] s = bytes(suffix);
    byte[] b = Arrays.copyOf(p, p.length + id.length + s.length);
    System.arraycopy(id, 0, b, p.length, id.length);
    System.arraycopy(s, 0, b, p.length + id.length, s.length);
    return b;
  }

  private static String fmt(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }
}
