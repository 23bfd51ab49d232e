package io.idem.core.sketch;

import static io.idem.core.Checks.checkArgument;

import io.idem.core.format.FormatFamily;
import io.idem.core.format.FormatInput;
import io.idem.core.format.FormatOutput;
import io.idem.core.hash.Hash128;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A merging t-digest (Dunning and Ertl, 2019) with RedisBloom's TDIGEST semantics: the algorithm of
 * the t-digest-c library that RedisBloom builds on, at its commit daf1f4a, so that compression
 * points, centroids, quantiles, CDFs and ranks come out as RedisBloom's do. Not thread-safe: the
 * caller holds the key's lock.
 */
public final class TDigest {
  /*
   * State: compression δ and capacity 6δ + 10 node slots, each a mean and a weight. The first
   * `merged` slots are sorted centroids; the next `unmerged` a buffer of raw additions. An addition
   * compresses first when the slots are all but full; queries compress too, at the points
   * RedisBloom does, so a server that replays its log sees the same centroids.
   *
   * Compression sorts every node by mean and walks them, absorbing node i into the current
   * centroid while the centroid's weight p stays within 2π W ln W q (1 - q) / δ at both its edges
   * (q the fraction of the total weight W before and after it). The first and last nodes never
   * absorb anything, so with added values centroid 0 is (min, 1) and the last is (max, 1).
   *
   * Arithmetic is in doubles, in the library's operation order, so Java gives the same bits as C on
   * x86-64. Where this differs from the library:
   * - the sort is the library's introsort (RedisBloom's since PR #1049, August 2026; before, a
   *   quicksort that ordered equal means differently and went quadratic on them);
   * - a lone observation is a merged centroid, as in the library since 50edef3 (RedisBloom before
   *   PR #1035, July 2026, left it unmerged and answered nan);
   * - weights add as exact longs; the library rounds their total through a double, which differs
   *   only past 2^53;
   * - ln is StrictMath's, the same on every JVM (glibc's may differ by an ulp, which moves a
   *   centroid boundary only on an exact tie);
   * - node slots grow as nodes arrive, up to the capacity, instead of being allocated at once.
   */

  static final int FORMAT_VERSION = 1; // append-only; see TDigestTest

  /** RedisBloom's default compression. */
  public static final long DEFAULT_COMPRESSION = 100;

  /** The largest compression: 60,000,010 node slots, 960 MB once full. */
  public static final long MAX_COMPRESSION = 10_000_000;

  /** Ranges of at most this many elements past the first are insertion-sorted. */
  private static final int INSERTION_SORT_SPAN = 16;

  private static final int FIRST_SLOTS = 16;

  private long compression; // changes only by setTo
  private int capacity;
  private double[] means;
  private long[] weights;
  private int merged;
  private int unmerged;
  private long mergedWeight;
  private long unmergedWeight;
  private double min = Double.MAX_VALUE;
  private double max = -Double.MAX_VALUE;
  private long totalCompressions;

  private TDigest(long compression, double[] means, long[] weights) {
    this.compression = compression;
    this.capacity = capacityOf(compression);
    this.means = means;
    this.weights = weights;
  }

  private static int capacityOf(long compression) {
    return (int) (6 * compression + 10);
  }

  /** An empty digest; {@code compression} must be in [1, {@link #MAX_COMPRESSION}]. */
  public static TDigest create(long compression) {
    checkArgument(
        compression >= 1 && compression <= MAX_COMPRESSION,
        "compression (%s) must be in [1, %s]",
        compression,
        MAX_COMPRESSION);
    return new TDigest(compression, new double[0], new long[0]);
  }

  /** Bytes of node slots at this compression once they are all in use: 16 a slot. */
  public static long bytesFor(long compression) {
    return 16 * (6 * compression + 10);
  }

  public long compression() {
    return compression;
  }

  /** Node slots: 6 × compression + 10. */
  public int capacity() {
    return capacity;
  }

  public int mergedNodes() {
    return merged;
  }

  public int unmergedNodes() {
    return unmerged;
  }

  public long mergedWeight() {
    return mergedWeight;
  }

  public long unmergedWeight() {
    return unmergedWeight;
  }

  /** Compressions since creation or the last reset. */
  public long totalCompressions() {
    return totalCompressions;
  }

  /** The total weight of every observation. */
  public long observations() {
    return mergedWeight + unmergedWeight;
  }

  /** The smallest observation, exactly; NaN when empty. */
  public double min() {
    return observations() > 0 ? min : Double.NaN;
  }

  /** The largest observation, exactly; NaN when empty. */
  public double max() {
    return observations() > 0 ? max : Double.NaN;
  }

  /** Bytes of node slots in use now (they grow as nodes arrive, up to {@link #bytesFor}). */
  public long sizeInBytes() {
    return 16L * means.length;
  }

  /** Forgets every observation; the compression and capacity stay. */
  public void reset() {
    means = new double[0];
    weights = new long[0];
    merged = 0;
    unmerged = 0;
    mergedWeight = 0;
    unmergedWeight = 0;
    min = Double.MAX_VALUE;
    max = -Double.MAX_VALUE;
    totalCompressions = 0;
  }

  /**
   * Makes this digest {@code other}'s state, compression included, taking over its arrays: {@code
   * other} must not be used after. It allocates nothing, so a server that has logged the new state
   * can always apply it (TDIGEST.MERGE sets a key's digest to its result in place).
   */
  public void become(TDigest other) {
    if (other == this) {
      return;
    }
    compression = other.compression;
    capacity = other.capacity;
    means = other.means;
    weights = other.weights;
    merged = other.merged;
    unmerged = other.unmerged;
    mergedWeight = other.mergedWeight;
    unmergedWeight = other.unmergedWeight;
    min = other.min;
    max = other.max;
    totalCompressions = other.totalCompressions;
  }

  /**
   * Grows the node slots now, if need be, so that the next {@code n} adds allocate nothing (a
   * server reserves before it logs, so an add it has logged cannot fail for memory).
   *
   * @throws OutOfMemoryError if the slots cannot grow; the digest is unchanged
   */
  public void reserve(int n) {
    long wanted = Math.min(capacity, (long) merged + unmerged + Math.max(0, n));
    if (wanted > means.length) {
      long grown = Math.min(capacity, Math.max(wanted, Math.max(FIRST_SLOTS, 2L * means.length)));
      double[] m = Arrays.copyOf(means, (int) grown);
      long[] w = Arrays.copyOf(weights, (int) grown);
      means = m;
      weights = w;
    }
  }

  /** {@link #add(double, long)} with weight 1. */
  public boolean add(double value) {
    return add(value, 1);
  }

  /**
   * Adds {@code value} with {@code weight} (at least 1), compressing first if the node slots are
   * all but full.
   *
   * @return false, adding nothing, if the value is not finite or the total weight would pass 2^63 -
   *     1 (the digest may have compressed first, as the library's does)
   */
  public boolean add(double value, long weight) {
    checkArgument(weight >= 1, "weight (%s) must be >= 1", weight);
    if (!Double.isFinite(value)) {
      return false;
    }
    if (merged + unmerged >= capacity - 1) {
      compress();
    }
    int at = merged + unmerged;
    if (at >= capacity
        || unmergedWeight > Long.MAX_VALUE - weight
        || unmergedWeight + weight > Long.MAX_VALUE - mergedWeight) {
      return false;
    }
    if (value < min) {
      min = value;
    }
    if (value > max) {
      max = value;
    }
    if (at == means.length) {
      int grown = (int) Math.min(capacity, Math.max(FIRST_SLOTS, 2L * means.length));
      means = Arrays.copyOf(means, grown);
      weights = Arrays.copyOf(weights, grown);
    }
    means[at] = value;
    weights[at] = weight;
    unmerged++;
    unmergedWeight += weight;
    return true;
  }

  /** Merges the buffer into the centroids; does nothing if the buffer is empty. */
  public void compress() {
    if (unmerged == 0) {
      return;
    }
    int n = merged + unmerged;
    sort(means, weights, n);
    long total = mergedWeight + unmergedWeight;
    double w = (double) mergedWeight + (double) unmergedWeight;
    if (w > 1) {
      double normalizer = compression / (2 * Math.PI * w * StrictMath.log(w));
      int cur = 0;
      double before = 0;
      for (int i = 1; i < n; i++) {
        double proposed = (double) weights[cur] + (double) weights[i];
        double z = proposed * normalizer;
        double q0 = before / w;
        double q2 = (before + proposed) / w;
        if (z <= q0 * (1 - q0) && z <= q2 * (1 - q2)) {
          weights[cur] += weights[i];
          means[cur] += (means[i] - means[cur]) * weights[i] / weights[cur];
        } else {
          before += weights[cur];
          cur++;
          weights[cur] = weights[i];
          means[cur] = means[i];
        }
      }
      n = cur + 1;
    }
    // else a lone observation of weight 1 becomes the one centroid (the library since 50edef3).
    merged = n;
    mergedWeight = total;
    unmerged = 0;
    unmergedWeight = 0;
    totalCompressions++;
  }

  // ---- queries: each compresses first, where RedisBloom's does

  /**
   * The estimated fraction of observations at most {@code x} (those equal to x counted half); NaN
   * when empty. Infinities give 0 and 1.
   */
  public double cdf(double x) {
    compress();
    int n = merged;
    if (n == 0) {
      return Double.NaN;
    }
    if (x < min) {
      return 0;
    }
    if (x > max) {
      return 1;
    }
    if (n == 1) {
      double width = max - min;
      return x - min <= width ? 0.5 : (x - min) / width;
    }
    double total = (double) mergedWeight;
    double first = means[0];
    if (x < first) {
      double width = first - min;
      if (width <= 0) {
        return 0;
      }
      if (x == min) {
        return 0.5 / total;
      }
      return (1 + (x - min) / width * ((double) weights[0] / 2 - 1)) / total;
    }
    double last = means[n - 1];
    if (x > last) {
      double width = max - last;
      if (width <= 0) {
        return 1;
      }
      if (x == max) {
        return 1 - 0.5 / total;
      }
      return 1 - (1 + (max - x) / width * ((double) weights[n - 1] / 2 - 1)) / total;
    }
    double before = 0;
    for (int i = 0; i < n - 1; i++) {
      if (means[i] == x) {
        // One or more centroids exactly at x count as one.
        double at = 0;
        for (; i < n && means[i] == x; i++) {
          at += weights[i];
        }
        return (before + at / 2) / total;
      }
      if (means[i] <= x && x < means[i + 1]) {
        double w = weights[i];
        double next = weights[i + 1];
        double dw = (w + next) / 2;
        double span = means[i + 1] - means[i];
        if (span <= 0) {
          return (before + dw) / total;
        }
        // A singleton's whole weight sits at its mean, so it takes no part in interpolation.
        double leftOut = 0;
        double rightOut = 0;
        if (w == 1) {
          if (next == 1) {
            return (before + 1) / total;
          }
          leftOut = 0.5;
        } else if (next == 1) {
          rightOut = 0.5;
        }
        double base = before + w / 2 + leftOut;
        return (base + (dw - leftOut - rightOut) * (x - means[i]) / span) / total;
      }
      before += weights[i];
    }
    return 1 - 0.5 / total;
  }

  /**
   * The estimated value at quantile {@code q}, as one TDIGEST.BYRANK asks it: NaN when empty or if
   * q is outside [0, 1]; the exact min below index 1.
   */
  public double quantile(double q) {
    compress();
    if (!(q >= 0 && q <= 1) || merged == 0) {
      return Double.NaN;
    }
    if (merged == 1) {
      return means[0];
    }
    double index = q * (double) mergedWeight;
    if (index < 1) {
      return min;
    }
    return walk(index, new Cursor(weights[0]));
  }

  /**
   * The estimated values at quantiles {@code qs} (each in [0, 1]), as TDIGEST.QUANTILE gives them:
   * each maximal non-decreasing run of qs is walked with one cursor. All NaN when empty.
   */
  public double[] quantiles(double[] qs) {
    for (double q : qs) {
      checkArgument(q >= 0 && q <= 1, "quantile (%s) must be in [0, 1]", q);
    }
    double[] values = new double[qs.length];
    if (qs.length == 0) {
      return values;
    }
    compress();
    if (merged <= 1) {
      Arrays.fill(values, merged == 0 ? Double.NaN : means[0]);
      return values;
    }
    for (int start = 0; start < qs.length; ) {
      int end = start;
      while (end < qs.length - 1 && qs[end] <= qs[end + 1]) {
        end++;
      }
      Cursor cursor = new Cursor(weights[0]);
      for (int i = start; i <= end; i++) {
        values[i] = walk(qs[i] * (double) mergedWeight, cursor);
      }
      start = end + 1;
    }
    return values;
  }

  /** Where a walk over the centroids stands: the weight before it, and the centroid. */
  private static final class Cursor {
    double before;
    int at;

    Cursor(long firstWeight) {
      this.before = (double) firstWeight / 2;
    }
  }

  /** The value at {@code index} (a weight from the left), with at least two centroids. */
  private double walk(double index, Cursor cursor) {
    int n = merged;
    double firstWeight = weights[0];
    if (firstWeight > 1 && index < firstWeight / 2) {
      // One observation sits at min: interpolate from it with the rest of the first centroid.
      return min + (index - 1) / (firstWeight / 2 - 1) * (means[0] - min);
    }
    if (index > mergedWeight - 1) {
      return max;
    }
    double lastWeight = weights[n - 1];
    double lastMean = means[n - 1];
    if (lastWeight > 1 && (double) mergedWeight - index <= lastWeight / 2) {
      return max - ((double) mergedWeight - index - 1) / (lastWeight / 2 - 1) * (max - lastMean);
    }
    for (; cursor.at < n - 1; cursor.at++) {
      int i = cursor.at;
      double w = weights[i];
      double next = weights[i + 1];
      double dw = (w + next) / 2;
      if (cursor.before + dw > index) {
        // Centroids i and i + 1 bracket the index; a singleton's value is exact near it.
        double leftUnit = 0;
        if (w == 1) {
          if (index - cursor.before < 0.5) {
            return means[i];
          }
          leftUnit = 0.5;
        }
        double rightUnit = 0;
        if (next == 1) {
          if (cursor.before + dw - index <= 0.5) {
            return means[i + 1];
          }
          rightUnit = 0.5;
        }
        double z1 = index - cursor.before - leftUnit;
        double z2 = cursor.before + dw - index - rightUnit;
        return weightedAverage(means[i], z2, means[i + 1], z1);
      }
      cursor.before += dw;
    }
    double z1 = index - mergedWeight - lastWeight / 2.0;
    double z2 = lastWeight / 2 - z1;
    return weightedAverage(lastMean, z1, max, z2);
  }

  /** The weighted mean of x1 and x2, kept between them; C's comparisons, NaN and all. */
  private static double weightedAverage(double x1, double w1, double x2, double w2) {
    if (x1 <= x2) {
      return clampedAverage(x1, w1, x2, w2);
    }
    return clampedAverage(x2, w2, x1, w1);
  }

  private static double clampedAverage(double lo, double wLo, double hi, double wHi) {
    double x = (lo * wLo + hi * wHi) / (wLo + wHi);
    return cMax(lo, cMin(x, hi));
  }

  private static double cMin(double a, double b) {
    return a < b ? a : b;
  }

  private static double cMax(double a, double b) {
    return a > b ? a : b;
  }

  /**
   * The mean of the observations between quantiles {@code low} and {@code high} (0 ≤ low < high ≤
   * 1), counted from whole centroids; NaN when empty.
   */
  public double trimmedMean(double low, double high) {
    checkArgument(
        low >= 0 && high <= 1 && low < high,
        "low (%s) and high (%s) must be in [0, 1], low < high",
        low,
        high);
    compress();
    if (merged == 0) {
      return Double.NaN;
    }
    if (merged == 1) {
      return means[0];
    }
    double from = Math.floor((double) mergedWeight * low);
    double to = Math.ceil((double) mergedWeight * high);
    double done = 0;
    double sum = 0;
    double count = 0;
    for (int i = 0; i < merged; i++) {
      double w = weights[i];
      double take = w - cMin(cMax(0, from - done), w);
      take = cMin(cMax(0, to - done), take);
      done += w;
      sum += means[i] * take;
      count += take;
      if (done >= to) {
        break;
      }
    }
    return sum / count;
  }

  /**
   * TDIGEST.RANK: -2 when empty, -1 below the min, the observation count above the max, else the
   * count at most v (equal ones half) from the CDF, a half rounded down. Compresses only between
   * min and max.
   */
  public long rank(double v) {
    return rank(v, false);
  }

  /**
   * TDIGEST.REVRANK: -2 when empty, the observation count below the min, -1 above the max, else the
   * count at least v (equal ones half) from the CDF, rounded half away from zero.
   */
  public long revRank(double v) {
    return rank(v, true);
  }

  private long rank(double v, boolean reverse) {
    checkArgument(!Double.isNaN(v), "value must not be NaN");
    double size = (double) observations();
    if (size == 0) {
      return -2;
    }
    if (v < min) {
      return reverse ? (long) size : -1;
    }
    if (v > max) {
      return reverse ? -1 : (long) size;
    }
    double below = cdf(v) * size;
    return (long) (reverse ? roundHalfAway(size - roundHalfAway(below)) : roundHalfDown(below));
  }

  /** C's round(): halves away from zero. (Math.round is wrong for these.) */
  static double roundHalfAway(double x) {
    double whole = x < 0 ? Math.ceil(x) : Math.floor(x);
    if (Math.abs(x - whole) >= 0.5) {
      return whole + (x < 0 ? -1 : 1);
    }
    return whole;
  }

  /** RedisBloom's rank rounding: a fraction up to a half drops, above it goes away from zero. */
  static double roundHalfDown(double x) {
    double whole = x < 0 ? Math.ceil(x) : Math.floor(x);
    if (Math.abs(x - whole) <= 0.5) {
      return whole;
    }
    return whole >= 0 ? whole + 1 : whole - 1;
  }

  /**
   * TDIGEST.BYRANK: the estimated value of rank {@code r} (at least 0). NaN when empty, the exact
   * min for 0, +inf from the observation count on, else {@link #quantile} of r / count.
   */
  public double byRank(long r) {
    return byRank(r, false);
  }

  /**
   * TDIGEST.BYREVRANK: NaN when empty, the exact max for 0, -inf from the observation count on,
   * else {@link #quantile} of (count - r - 1) / count.
   */
  public double byRevRank(long r) {
    return byRank(r, true);
  }

  private double byRank(long r, boolean reverse) {
    checkArgument(r >= 0, "rank (%s) must be >= 0", r);
    double size = (double) observations();
    double rank = (double) r;
    if (size == 0) {
      return Double.NaN;
    }
    if (rank == 0) {
      return reverse ? max : min;
    }
    if (rank >= size) {
      return reverse ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
    }
    return quantile((reverse ? size - rank - 1 : rank) / size);
  }

  // ---- merge

  /**
   * TDIGEST.MERGE's result: a new digest of {@code compression} holding {@code destContent}'s
   * observations (if not null), then each source's in order (a source listed twice counts twice).
   * As in RedisBloom, {@code destContent} and every source merged are compressed in place, and the
   * result's last nodes stay unmerged.
   *
   * @return the new digest, or null if its total weight would pass 2^63 - 1 (or a centroid mean is
   *     not finite); then nothing changed but those compressions: every source up to the one that
   *     failed
   */
  public static @Nullable TDigest merge(
      List<TDigest> sources, long compression, @Nullable TDigest destContent) {
    TDigest into = create(compression);
    if (destContent != null) {
      // RedisBloom ignores a failure here; it can only come from a mean that overflowed.
      into.mergeFrom(destContent);
    }
    for (TDigest source : sources) {
      if (!into.mergeFrom(source)) {
        return null;
      }
    }
    return into;
  }

  /** Compresses both, then adds each of {@code from}'s centroids. False if an add failed. */
  private boolean mergeFrom(TDigest from) {
    compress();
    from.compress();
    int n = from.merged + from.unmerged;
    for (int i = 0; i < n; i++) {
      if (!add(from.means[i], from.weights[i])) {
        return false;
      }
    }
    return true;
  }

  // ---- sort: the library's introsort, step for step, as the order of equal means matters

  /** Sorts the first {@code n} nodes by mean, weights in lock-step. */
  static void sort(double[] means, long[] weights, int n) {
    if (n < 2) {
      return;
    }
    int depthLimit = 0;
    for (int t = n; t > 1; t >>= 1) {
      depthLimit += 2;
    }
    introsort(means, weights, 0, n - 1, depthLimit);
  }

  /**
   * Sorts [lo, hi]: a three-way partition around the median of three (equal means collapse in one
   * pass), recursing into the smaller side and looping on the larger; heapsort past the depth
   * limit, insertion sort for small ranges.
   */
  static void introsort(double[] means, long[] weights, int lo, int hi, int depthLimit) {
    while (hi - lo > INSERTION_SORT_SPAN) {
      if (depthLimit == 0) {
        heapSort(means, weights, lo, hi);
        return;
      }
      depthLimit--;
      int mid = lo + (hi - lo) / 2;
      if (means[mid] < means[lo]) {
        swap(means, weights, lo, mid);
      }
      if (means[hi] < means[lo]) {
        swap(means, weights, lo, hi);
      }
      if (means[hi] < means[mid]) {
        swap(means, weights, mid, hi);
      }
      double pivot = means[mid];
      // [lo, lt) below the pivot, [lt, i) equal, (gt, hi] above.
      int lt = lo;
      int i = lo;
      int gt = hi;
      while (i <= gt) {
        double v = means[i];
        if (v < pivot) {
          swap(means, weights, i++, lt++);
        } else if (pivot < v) {
          swap(means, weights, i, gt--);
        } else {
          i++;
        }
      }
      int below = lt - lo;
      int above = hi - gt;
      if (below < above) {
        if (below > 1) {
          introsort(means, weights, lo, lt - 1, depthLimit);
        }
        lo = gt + 1;
      } else {
        if (above > 1) {
          introsort(means, weights, gt + 1, hi, depthLimit);
        }
        hi = lt - 1;
      }
    }
    for (int i = lo + 1; i <= hi; i++) {
      double m = means[i];
      long w = weights[i];
      int j = i - 1;
      for (; j >= lo && m < means[j]; j--) {
        means[j + 1] = means[j];
        weights[j + 1] = weights[j];
      }
      means[j + 1] = m;
      weights[j + 1] = w;
    }
  }

  private static void heapSort(double[] means, long[] weights, int lo, int hi) {
    int n = hi - lo + 1;
    for (int i = n / 2 - 1; i >= 0; i--) {
      siftDown(means, weights, lo, i, n);
    }
    for (int end = n - 1; end > 0; end--) {
      swap(means, weights, lo, lo + end);
      siftDown(means, weights, lo, 0, end);
    }
  }

  /** A max-heap of n nodes from {@code lo}: sinks node i. */
  private static void siftDown(double[] means, long[] weights, int lo, int i, int n) {
    while (i < n / 2) {
      int child = 2 * i + 1;
      if (child + 1 < n && means[lo + child] < means[lo + child + 1]) {
        child++;
      }
      if (!(means[lo + i] < means[lo + child])) {
        return;
      }
      swap(means, weights, lo + i, lo + child);
      i = child;
    }
  }

  private static void swap(double[] means, long[] weights, int a, int b) {
    double m = means[a];
    means[a] = means[b];
    means[b] = m;
    long w = weights[a];
    weights[a] = weights[b];
    weights[b] = w;
  }

  // ---- format

  /**
   * Writes the digest in its versioned format: every node, merged or not, so that it reads back to
   * the same state.
   *
   * <pre>
   * offset  size   field
   * 0       8      frame header: magic "IDEM", family 8 (t-digest), version 1, hash id, 0
   * 8       8      u64 compression (1 to 10^7); the capacity is 6 × compression + 10
   * 16      4      u32 merged nodes m
   * 20      4      u32 unmerged nodes u (m + u at most the capacity)
   * 24      8      f64 min (+DBL_MAX when empty)
   * 32      8      f64 max (-DBL_MAX when empty)
   * 40      8      u64 compressions since creation or reset
   * 48      8 × n  the n = m + u node means (f64): the centroids in order, then the buffer
   * then    8 × n  their weights (i64, each at least 1, their sum at most 2^63 - 1)
   * end     4      CRC32C of every byte before it
   * </pre>
   */
  public void writeTo(OutputStream out) throws IOException {
    FormatOutput f =
        FormatOutput.begin(out, FormatFamily.TDIGEST, FORMAT_VERSION, Hash128.FUNCTION_ID);
    f.writeLong(compression);
    f.writeInt(merged);
    f.writeInt(unmerged);
    f.writeDouble(min);
    f.writeDouble(max);
    f.writeLong(totalCompressions);
    int n = merged + unmerged;
    for (int i = 0; i < n; i++) {
      f.writeDouble(means[i]);
    }
    f.writeLongs(weights, 0, n);
    f.finish();
  }

  /** Reads a digest written by {@link #writeTo}, of at most {@code maxBytes} bytes. */
  public static TDigest readFrom(InputStream in, long maxBytes) throws IOException {
    FormatInput f =
        FormatInput.begin(in, FormatFamily.TDIGEST, FORMAT_VERSION, Hash128.FUNCTION_ID, maxBytes);
    long compression = f.readLong();
    if (compression < 1 || compression > MAX_COMPRESSION) {
      throw FormatInput.invalid(
          "t-digest compression", compression, "must be in [1, " + MAX_COMPRESSION + "]");
    }
    long merged = f.readInt() & 0xFFFF_FFFFL;
    long unmerged = f.readInt() & 0xFFFF_FFFFL;
    if (merged + unmerged > capacityOf(compression)) {
      throw FormatInput.invalid(
          "t-digest nodes",
          merged + " + " + unmerged,
          "must be at most the capacity, " + capacityOf(compression));
    }
    double min = f.readDouble();
    double max = f.readDouble();
    long compressions = f.readLong();
    int n = (int) (merged + unmerged);
    // The node arrays grow only as their bytes arrive; the digest keeps them as its slots.
    f.expect(16L * n, "t-digest nodes");
    long[] meanBits = f.readLongs(n, "t-digest node means");
    long[] weights = f.readLongs(n, "t-digest node weights");
    f.finish();
    double[] means = new double[n];
    for (int i = 0; i < n; i++) {
      means[i] = Double.longBitsToDouble(meanBits[i]);
    }
    TDigest t = new TDigest(compression, means, weights);
    t.merged = (int) merged;
    t.unmerged = (int) unmerged;
    t.mergedWeight = sum(weights, 0, t.merged);
    t.unmergedWeight = sum(weights, t.merged, n);
    if (t.mergedWeight > Long.MAX_VALUE - t.unmergedWeight) {
      throw new IOException("t-digest weights add up past 2^63 - 1");
    }
    boolean empty = n == 0;
    if (empty
        ? min != Double.MAX_VALUE || max != -Double.MAX_VALUE
        : !(Double.isFinite(min) && Double.isFinite(max) && min <= max)) {
      throw FormatInput.invalid(
          "t-digest min and max",
          min + ", " + max,
          empty ? "must be +-DBL_MAX when empty" : "must be finite, min <= max");
    }
    if (compressions < 0) {
      throw FormatInput.invalid("t-digest compressions", compressions, "must be >= 0");
    }
    t.min = min;
    t.max = max;
    t.totalCompressions = compressions;
    return t;
  }

  private static long sum(long[] weights, int from, int to) throws IOException {
    long sum = 0;
    for (int i = from; i < to; i++) {
      if (weights[i] < 1 || sum > Long.MAX_VALUE - weights[i]) {
        throw new IOException(
            "t-digest node " + i + " weight (" + weights[i] + ") must be >= 1, sums within 2^63");
      }
      sum += weights[i];
    }
    return sum;
  }

  @Override
  public String toString() {
    return "TDigest{compression="
        + compression
        + ", merged="
        + merged
        + ", unmerged="
        + unmerged
        + ", observations="
        + observations()
        + "}";
  }
}
