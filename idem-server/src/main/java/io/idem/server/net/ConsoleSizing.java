package io.idem.server.net;

import io.idem.core.dedup.DedupSizing;
import io.idem.core.dedup.DedupTable;
import io.idem.core.filter.BloomFilter;
import io.idem.core.filter.CuckooFilter;
import io.idem.core.filter.RecentSet;
import io.idem.core.filter.RedisBloomChain;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;
import java.util.function.LongToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * The console's sizing plots, from the core's own sizing methods (the ones the filters are built
 * with, and {@code idem size} prints): for N items at rate E, each filter's bytes against the rate
 * asked for, and each filter's false-positive rate against the items it holds, with the point for
 * (N, E) marked by the page; a dedup table's memory for N claims a day, and how long a RecentSet
 * sized for N remembers. A fixed number of points, so a request's cost is bounded.
 */
final class ConsoleSizing {

  static final long MAX_CAPACITY = 1L << 40;
  private static final long DAY = 86_400_000L;
  private static final int SLICES = DedupSizing.defaultSlices(DAY);
  private static final double REMEMBER = 0.9;
  private static final int ERROR_POINTS = 25;
  private static final int ITEM_POINTS = 41;

  private ConsoleSizing() {}

  /** The plots as JSON, or an {"error": ...} for a capacity or rate out of range. */
  static String json(@Nullable String capacityText, @Nullable String errorText) {
    long n;
    double e;
    try {
      n = Long.parseLong(capacityText == null ? "" : capacityText.trim());
      e = Double.parseDouble(errorText == null ? "" : errorText.trim());
    } catch (NumberFormatException ex) {
      return "{\"error\":\"capacity is a whole number and error a rate, such as 0.01\"}";
    }
    if (n < 1 || n > MAX_CAPACITY) {
      return "{\"error\":\"capacity must be from 1 to " + MAX_CAPACITY + "\"}";
    }
    if (!(e > 0 && e < 1)) {
      return "{\"error\":\"error must be a rate between 0 and 1\"}";
    }
    StringBuilder b = new StringBuilder("{\"capacity\":").append(n).append(",\"rate\":");
    number(b, e);

    // Bytes against the rate asked for: from 100 times E down to E / 100, log-spaced.
    double hi = Math.min(0.5, e * 100);
    double lo = Math.max(1e-15, e / 100);
    double[] errors = new double[ERROR_POINTS];
    for (int i = 0; i < ERROR_POINTS; i++) {
      errors[i] = hi * Math.pow(lo / hi, (double) i / (ERROR_POINTS - 1));
    }
    b.append(",\"errors\":");
    array(b, errors.length, i -> errors[i]);
    b.append(",\"bytes\":{");
    for (Plotted f : FILTERS) {
      series(
          b,
          f.name(),
          errors,
          x -> {
            Filter sized = f.sizer().size(n, x);
            return sized == null ? null : (double) sized.bytes();
          });
      b.append(',');
    }
    series(b, "bound", errors, x -> n * (Math.log(1 / x) / Math.log(2)) / 8);
    // Dedup tables holding N claims a day: FILTER's slice filters at each rate; EXACT's in-memory
    // index is sized for its own rate, so one figure whatever the rate (its rows are on disk).
    b.append(',');
    series(b, "dedupFilter", errors, x -> dedup(DedupSizing.filter(DAY, SLICES, n, x)));
    b.append(',');
    Double exact = dedup(DedupSizing.exact(DAY, SLICES, n));
    series(b, "dedupExact", errors, x -> exact);
    b.append('}');

    // The rate against the items held, from none to twice N, for filters sized for (N, E).
    long[] items = new long[ITEM_POINTS];
    for (int i = 0; i < ITEM_POINTS; i++) {
      items[i] = Math.round(2.0 * n * i / (ITEM_POINTS - 1));
    }
    b.append(",\"items\":");
    array(b, items.length, i -> (double) items[i]);
    List<@Nullable Filter> chosen = new ArrayList<>();
    b.append(",\"rates\":{");
    for (Plotted f : FILTERS) {
      Filter sized = f.sizer().size(n, e);
      chosen.add(sized);
      b.append(chosen.size() == 1 ? "" : ",");
      rates(b, f.name(), items, sized == null ? null : sized.rateAt());
    }
    // A RecentSet sized to still recognise an item after N further distinct items with
    // probability 0.9: that probability after 0 to 2 N of them.
    long slots = RecentSet.slotsToRemember(n, REMEMBER);
    b.append("},\"recent\":{\"slots\":");
    if (slots > RecentSet.MAX_SLOTS) {
      b.append("null");
    } else {
      b.append(slots)
          .append(",\"bytes\":")
          .append(dedupBytes(DedupSizing.recent(DAY, SLICES, slots)));
      b.append(",\"remember\":");
      array(b, items.length, i -> RecentSet.rememberProbability(slots, items[i]));
    }
    b.append("},\"chosen\":{");
    for (int i = 0; i < FILTERS.size(); i++) {
      Filter sized = chosen.get(i);
      b.append(i == 0 ? "\"" : ",\"").append(FILTERS.get(i).name()).append("\":");
      if (sized == null) {
        b.append("null");
      } else {
        b.append("{\"bytes\":")
            .append(sized.bytes())
            .append(",\"shape\":")
            .append(sized.shape())
            .append('}');
      }
    }
    return b.append("}}").toString();
  }

  /** A dedup table's memory, or null if DEDUP.RESERVE would refuse it. */
  private static @Nullable Double dedup(DedupTable.Params p) {
    long bytes = dedupBytes(p);
    return bytes < 0 ? null : (double) bytes;
  }

  private static long dedupBytes(DedupTable.Params p) {
    if (DedupSizing.check(p) != null) {
      return -1;
    }
    try {
      long bytes = DedupSizing.bytes(p);
      return bytes == Long.MAX_VALUE ? -1 : bytes;
    } catch (ArithmeticException | IllegalArgumentException e) {
      return -1;
    }
  }

  /** A filter's shape as the plots need it: bytes, hashes or fingerprint bits, rate at a load. */
  private record Filter(long bytes, int shape, LongToDoubleFunction rateAt) {}

  /** How a filter is sized for n items at rate e: null past the largest it can be. */
  private interface Sizer {
    @Nullable Filter size(long n, double e);
  }

  private record Plotted(String name, Sizer sizer) {}

  /** The filters plotted, in the reply's order, each from the core's own sizing. */
  private static final List<Plotted> FILTERS =
      List.of(
          new Plotted(
              "bloom",
              (n, e) -> {
                try {
                  BloomFilter.Sizing s = BloomFilter.sizing(n, e);
                  return new Filter(s.bytes(), s.hashes(), s::rateAt);
                } catch (IllegalArgumentException ex) {
                  return null;
                }
              }),
          new Plotted(
              "classic",
              (n, e) -> {
                try {
                  RedisBloomChain.Sizing s = RedisBloomChain.linkSizing(n, e, 2, true, 0);
                  return new Filter(s.bytes(), s.hashes(), s::rateAt);
                } catch (IllegalArgumentException | ArithmeticException ex) {
                  return null;
                }
              }),
          new Plotted(
              "cuckoo",
              (n, e) -> {
                try {
                  CuckooFilter.Sizing s =
                      CuckooFilter.sizing(
                          n,
                          e,
                          CuckooFilter.DEFAULT_BUCKET_SIZE,
                          CuckooFilter.DEFAULT_MAX_ITERATIONS);
                  return new Filter(s.bytes(), s.fingerprintBits(), s::rateAt);
                } catch (IllegalArgumentException ex) {
                  return null;
                }
              }));

  private static void series(
      StringBuilder b, String name, double[] xs, DoubleFunction<@Nullable Double> f) {
    b.append('"').append(name).append("\":[");
    for (int i = 0; i < xs.length; i++) {
      b.append(i == 0 ? "" : ",");
      Double v = f.apply(xs[i]);
      if (v == null) {
        b.append("null");
      } else {
        number(b, v);
      }
    }
    b.append(']');
  }

  private static void rates(
      StringBuilder b, String name, long[] items, @Nullable LongToDoubleFunction rate) {
    b.append('"').append(name).append("\":[");
    for (int i = 0; i < items.length; i++) {
      b.append(i == 0 ? "" : ",");
      if (rate == null) {
        b.append("null");
      } else {
        number(b, rate.applyAsDouble(items[i]));
      }
    }
    b.append(']');
  }

  private static void array(StringBuilder b, int n, java.util.function.IntToDoubleFunction f) {
    b.append('[');
    for (int i = 0; i < n; i++) {
      b.append(i == 0 ? "" : ",");
      number(b, f.applyAsDouble(i));
    }
    b.append(']');
  }

  private static void number(StringBuilder b, double v) {
    b.append(Double.isFinite(v) ? String.format(Locale.ROOT, "%.6g", v) : "null");
  }
}
