package io.idem.server.net;

import io.idem.core.dedup.DedupSizing;
import io.idem.core.dedup.DedupTable;
import io.idem.core.filter.BloomFilter;
import io.idem.core.filter.CuckooFilter;
import io.idem.core.filter.RecentSet;
import io.idem.core.filter.RedisBloomChain;
import java.util.Locale;
import java.util.function.DoubleFunction;
import java.util.function.LongFunction;
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
    series(
        b,
        "bloom",
        errors,
        x -> {
          BloomFilter.Sizing s = bloom(n, x);
          return s == null ? null : (double) s.bytes();
        });
    b.append(',');
    series(
        b,
        "classic",
        errors,
        x -> {
          RedisBloomChain.Sizing s = classic(n, x);
          return s == null ? null : (double) s.bytes();
        });
    b.append(',');
    series(
        b,
        "cuckoo",
        errors,
        x -> {
          CuckooFilter.Sizing s = cuckoo(n, x);
          return s == null ? null : (double) s.bytes();
        });
    b.append(',');
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
    BloomFilter.Sizing bloom = bloom(n, e);
    RedisBloomChain.Sizing classic = classic(n, e);
    CuckooFilter.Sizing cuckoo = cuckoo(n, e);
    b.append(",\"rates\":{");
    rates(b, "bloom", items, bloom == null ? null : bloom::rateAt);
    b.append(',');
    rates(b, "classic", items, classic == null ? null : classic::rateAt);
    b.append(',');
    rates(b, "cuckoo", items, cuckoo == null ? null : cuckoo::rateAt);
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
    b.append("},\"chosen\":{\"bloom\":");
    chosen(b, bloom == null ? null : bloom.bytes(), bloom == null ? null : bloom.hashes());
    b.append(",\"classic\":");
    chosen(b, classic == null ? null : classic.bytes(), classic == null ? null : classic.hashes());
    b.append(",\"cuckoo\":");
    chosen(
        b,
        cuckoo == null ? null : cuckoo.bytes(),
        cuckoo == null ? null : cuckoo.fingerprintBits());
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

  private static BloomFilter.@Nullable Sizing bloom(long n, double e) {
    try {
      return BloomFilter.sizing(n, e);
    } catch (IllegalArgumentException ex) {
      return null; // past the largest filter: no point
    }
  }

  private static RedisBloomChain.@Nullable Sizing classic(long n, double e) {
    try {
      return RedisBloomChain.linkSizing(n, e, 2, true, 0);
    } catch (IllegalArgumentException | ArithmeticException ex) {
      return null;
    }
  }

  private static CuckooFilter.@Nullable Sizing cuckoo(long n, double e) {
    try {
      return CuckooFilter.sizing(
          n, e, CuckooFilter.DEFAULT_BUCKET_SIZE, CuckooFilter.DEFAULT_MAX_ITERATIONS);
    } catch (IllegalArgumentException ex) {
      return null;
    }
  }

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
      StringBuilder b, String name, long[] items, @Nullable LongFunction<Double> rate) {
    b.append('"').append(name).append("\":[");
    for (int i = 0; i < items.length; i++) {
      b.append(i == 0 ? "" : ",");
      if (rate == null) {
        b.append("null");
      } else {
        number(b, rate.apply(items[i]));
      }
    }
    b.append(']');
  }

  private static void chosen(StringBuilder b, @Nullable Long bytes, @Nullable Integer shape) {
    if (bytes == null) {
      b.append("null");
    } else {
      b.append("{\"bytes\":").append(bytes).append(",\"shape\":").append(shape).append('}');
    }
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
