package io.idem.server.commands.tdigest;

import io.idem.core.sketch.TDigest;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Handler;
import io.idem.server.dispatch.Parse;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;

/**
 * The TDIGEST.* reads: MIN, MAX, QUANTILE, CDF, RANK, REVRANK, BYRANK, BYREVRANK and TRIMMED_MEAN,
 * with RedisBloom's replies (doubles, nan when empty; integer arrays for the ranks) and its error
 * texts. The key is checked first, then every argument, before anything is evaluated. All but MIN
 * and MAX compress the digest first, where RedisBloom's do: under the key's lock, logging nothing
 * (see {@link TdigestCodec} for why a replay still agrees).
 */
public final class TdigestQueryCommand implements Handler {

  private enum Kind {
    MIN,
    MAX,
    QUANTILE,
    CDF,
    RANK,
    REVRANK,
    BYRANK,
    BYREVRANK,
    TRIMMED_MEAN
  }

  private final Kind kind;

  private TdigestQueryCommand(Kind kind) {
    this.kind = kind;
  }

  public static TdigestQueryCommand min() {
    return new TdigestQueryCommand(Kind.MIN);
  }

  public static TdigestQueryCommand max() {
    return new TdigestQueryCommand(Kind.MAX);
  }

  public static TdigestQueryCommand quantile() {
    return new TdigestQueryCommand(Kind.QUANTILE);
  }

  public static TdigestQueryCommand cdf() {
    return new TdigestQueryCommand(Kind.CDF);
  }

  public static TdigestQueryCommand rank() {
    return new TdigestQueryCommand(Kind.RANK);
  }

  public static TdigestQueryCommand revRank() {
    return new TdigestQueryCommand(Kind.REVRANK);
  }

  public static TdigestQueryCommand byRank() {
    return new TdigestQueryCommand(Kind.BYRANK);
  }

  public static TdigestQueryCommand byRevRank() {
    return new TdigestQueryCommand(Kind.BYREVRANK);
  }

  public static TdigestQueryCommand trimmedMean() {
    return new TdigestQueryCommand(Kind.TRIMMED_MEAN);
  }

  @Override
  public Reply handle(Call call) {
    return call.engine().read(call.arg(1), e -> answer(Tdigest.digest(e), call));
  }

  private Reply answer(TDigest t, Call call) {
    int n = call.argc() - 2;
    return switch (kind) {
      case MIN -> new Reply.Double(t.min());
      case MAX -> new Reply.Double(t.max());
      case QUANTILE -> {
        double[] qs = new double[n];
        for (int i = 0; i < n; i++) {
          Double q = Parse.doubleOrNull(call.arg(2 + i));
          if (q == null) {
            throw new CommandException("ERR T-Digest: error parsing quantile");
          }
          if (!(q >= 0 && q <= 1)) {
            throw new CommandException("ERR T-Digest: quantile should be in [0,1]");
          }
          qs[i] = q;
        }
        yield doubles(t.quantiles(qs));
      }
      case CDF -> {
        double[] xs = values(call, "ERR T-Digest: error parsing cdf");
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
          out[i] = t.cdf(xs[i]);
        }
        yield doubles(out);
      }
      case RANK, REVRANK -> {
        double[] vs = values(call, "ERR T-Digest: error parsing value");
        List<Reply> out = new ArrayList<>(n);
        for (double v : vs) {
          out.add(Reply.integer(kind == Kind.RANK ? t.rank(v) : t.revRank(v)));
        }
        yield Reply.array(out);
      }
      case BYRANK, BYREVRANK -> {
        long[] ranks = new long[n];
        for (int i = 0; i < n; i++) {
          Long r = Parse.longOrNull(call.arg(2 + i));
          if (r == null) {
            throw new CommandException("ERR T-Digest: error parsing rank");
          }
          if (r < 0) {
            throw new CommandException("ERR T-Digest: rank needs to be non negative");
          }
          ranks[i] = r;
        }
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
          out[i] = kind == Kind.BYRANK ? t.byRank(ranks[i]) : t.byRevRank(ranks[i]);
        }
        yield doubles(out);
      }
      case TRIMMED_MEAN -> {
        Double low = Parse.doubleOrNull(call.arg(2));
        if (low == null) {
          throw new CommandException("ERR T-Digest: error parsing low_cut_percentile");
        }
        Double high = Parse.doubleOrNull(call.arg(3));
        if (high == null) {
          throw new CommandException("ERR T-Digest: error parsing high_cut_percentile");
        }
        if (!(low >= 0 && low <= 1 && high >= 0 && high <= 1)) {
          throw new CommandException(
              "ERR T-Digest: low_cut_percentile and high_cut_percentile should be in [0,1]");
        }
        if (low >= high) {
          throw new CommandException(
              "ERR T-Digest: low_cut_percentile should be lower than high_cut_percentile");
        }
        yield new Reply.Double(t.trimmedMean(low, high));
      }
    };
  }

  /** The arguments from the third on as doubles (infinities allowed, nan not). */
  private static double[] values(Call call, String error) {
    double[] out = new double[call.argc() - 2];
    for (int i = 0; i < out.length; i++) {
      Double v = Parse.doubleOrNull(call.arg(2 + i));
      if (v == null || v.isNaN()) {
        throw new CommandException(error);
      }
      out[i] = v;
    }
    return out;
  }

  private static Reply doubles(double[] values) {
    List<Reply> out = new ArrayList<>(values.length);
    for (double v : values) {
      out.add(new Reply.Double(v));
    }
    return Reply.array(out);
  }
}
