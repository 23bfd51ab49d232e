package io.idem.core.sketch;

import static io.idem.core.Checks.checkArgument;

import io.idem.core.format.FormatFamily;
import io.idem.core.format.FormatInput;
import io.idem.core.format.FormatOutput;
import io.idem.core.hash.Hash128;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * A count-min sketch (Cormode and Muthukrishnan, 2005) with RedisBloom's semantics: {@code depth}
 * rows of {@code width} unsigned 32-bit counters that saturate at 2^32 - 1 instead of wrapping. An
 * item adds its increment to one counter a row and is estimated as the least of them, so an
 * estimate is never below the item's true count (until a counter saturates) and, with width ⌈e / ε⌉
 * and depth ⌈ln(1/δ)⌉, above it by at most ε times the total with probability at least 1 - δ. Not
 * thread-safe: the caller holds the key's lock.
 *
 * <p>Columns come from the item's 128-bit hash: row i mixes h1 + i * h2 (double hashing, then a
 * 64-bit finalizer so rows do not share columns when h2 is small modulo the width) and takes it to
 * [0, width) by multiply-high. Estimates therefore differ from RedisBloom's (MurmurHash2 with the
 * row as seed), not their guarantees.
 */
public final class CountMinSketch {

  static final int FORMAT_VERSION = 1; // append-only; see CountMinSketchTest

  /**
   * The most counters one sketch holds (2 GiB of them): its whole state, as a server logs it after
   * a merge, must fit one Java byte array.
   */
  public static final long MAX_CELLS = (Integer.MAX_VALUE - 64) / 4;

  /** A counter's largest value, where it saturates. */
  public static final long MAX_COUNTER = 0xFFFF_FFFFL;

  private final int width;
  private final int depth;

  /** Row-major, each an unsigned 32-bit counter. */
  private final int[] cells;

  /** The total of every increment, modulo 2^64 (RedisBloom's {@code count}). */
  private long count;

  private CountMinSketch(int width, int depth, int[] cells, long count) {
    this.width = width;
    this.depth = depth;
    this.cells = cells;
    this.count = count;
  }

  /** An empty sketch; width * depth must be at most {@link #MAX_CELLS}. */
  public static CountMinSketch create(long width, long depth) {
    checkArgument(width >= 1 && depth >= 1, "width (%s) and depth (%s) must be >= 1", width, depth);
    checkArgument(
        width <= MAX_CELLS / depth,
        "width (%s) times depth (%s) must be at most %s counters",
        width,
        depth,
        MAX_CELLS);
    return new CountMinSketch((int) width, (int) depth, new int[(int) (width * depth)], 0);
  }

  /** Bytes a sketch of these dimensions holds in counters. */
  public static long bytesFor(long width, long depth) {
    return width * depth * 4;
  }

  public int width() {
    return width;
  }

  public int depth() {
    return depth;
  }

  /** The total of every increment, modulo 2^64. */
  public long count() {
    return count;
  }

  public long sizeInBytes() {
    return (long) cells.length * 4;
  }

  private int cell(int row, long h1, long h2) {
    long x = h1 + row * h2;
    x = (x ^ (x >>> 33)) * 0xFF51AFD7ED558CCDL;
    x = (x ^ (x >>> 33)) * 0xC4CEB9FE1A85EC53L;
    x ^= x >>> 33;
    return row * width + (int) Math.unsignedMultiplyHigh(x, width);
  }

  /**
   * Adds {@code increment} (at least 0) to the item's counters, saturating each at {@link
   * #MAX_COUNTER}, and to the total; returns the item's estimate after it.
   */
  public long add(long h1, long h2, long increment) {
    checkArgument(increment >= 0, "increment (%s) must be >= 0", increment);
    long least = MAX_COUNTER;
    for (int row = 0; row < depth; row++) {
      int i = cell(row, h1, h2);
      long sum = (cells[i] & MAX_COUNTER) + increment;
      long v = sum < 0 || sum > MAX_COUNTER ? MAX_COUNTER : sum;
      cells[i] = (int) v;
      least = Math.min(least, v);
    }
    count += increment;
    return least;
  }

  /** The item's estimate: the least of its counters. */
  public long estimate(long h1, long h2) {
    long least = MAX_COUNTER;
    for (int row = 0; row < depth; row++) {
      least = Math.min(least, cells[cell(row, h1, h2)] & MAX_COUNTER);
    }
    return least;
  }

  /** Whether {@code other} has this sketch's width and depth. */
  public boolean sameShape(CountMinSketch other) {
    return width == other.width && depth == other.depth;
  }

  /**
   * Sets this sketch to the weighted sum of {@code sources} (which may include this one): each
   * counter to Σ weight * source counter, the total to Σ weight * source total. All or nothing.
   *
   * @return false, changing nothing, if a counter would leave [0, {@link #MAX_COUNTER}] or the
   *     total [0, 2^63 - 1], or a sum would pass 64 bits on the way
   * @throws IllegalArgumentException if a source's shape differs, or the weights do not match
   */
  public boolean setToWeightedSum(CountMinSketch[] sources, long[] weights) {
    checkArgument(
        sources.length == weights.length && sources.length > 0,
        "%s sources for %s weights",
        sources.length,
        weights.length);
    for (CountMinSketch s : sources) {
      checkArgument(sameShape(s), "a source's shape differs");
    }
    try {
      long total = 0;
      for (int k = 0; k < sources.length; k++) {
        total = Math.addExact(total, Math.multiplyExact(sources[k].count, weights[k]));
      }
      if (total < 0) {
        return false;
      }
      // A first pass only checks, so that nothing changes unless every counter fits; each
      // counter depends only on the same counter of the sources, so the second pass may write
      // into a source.
      for (int i = 0; i < cells.length; i++) {
        long v = weighted(sources, weights, i);
        if (v < 0 || v > MAX_COUNTER) {
          return false;
        }
      }
      for (int i = 0; i < cells.length; i++) {
        cells[i] = (int) weighted(sources, weights, i);
      }
      count = total;
      return true;
    } catch (ArithmeticException overflow) {
      return false;
    }
  }

  private static long weighted(CountMinSketch[] sources, long[] weights, int i) {
    long v = 0;
    for (int k = 0; k < sources.length; k++) {
      v = Math.addExact(v, Math.multiplyExact(sources[k].cells[i] & MAX_COUNTER, weights[k]));
    }
    return v;
  }

  /**
   * Writes the sketch in its versioned format.
   *
   * <pre>
   * offset  size        field
   * 0       8           frame header: magic "IDEM", family 5 (count-min), version 1, hash id, 0
   * 8       4           u32 width (at least 1)
   * 12      4           u32 depth (at least 1; width * depth at most 2^31 - 9)
   * 16      8           u64 total of increments
   * 24      8 * ⌈c/2⌉   the c = width * depth counters row-major, two to a big-endian word (the
   *                     first in its high half), the last word's low half 0 if c is odd
   * end     4           CRC32C of every byte before it
   * </pre>
   */
  public void writeTo(OutputStream out) throws IOException {
    FormatOutput f =
        FormatOutput.begin(out, FormatFamily.COUNT_MIN, FORMAT_VERSION, Hash128.FUNCTION_ID);
    f.writeInt(width);
    f.writeInt(depth);
    f.writeLong(count);
    long[] words = new long[(cells.length + 1) / 2];
    for (int i = 0; i < cells.length; i++) {
      words[i / 2] |= (cells[i] & MAX_COUNTER) << (i % 2 == 0 ? 32 : 0);
    }
    f.writeLongs(words, 0, words.length);
    f.finish();
  }

  /** Reads a sketch written by {@link #writeTo}, of at most {@code maxBytes} bytes. */
  public static CountMinSketch readFrom(InputStream in, long maxBytes) throws IOException {
    FormatInput f =
        FormatInput.begin(
            in, FormatFamily.COUNT_MIN, FORMAT_VERSION, Hash128.FUNCTION_ID, maxBytes);
    long width = f.readInt() & MAX_COUNTER;
    long depth = f.readInt() & MAX_COUNTER;
    if (width < 1 || depth < 1 || width > MAX_CELLS / depth) {
      throw FormatInput.invalid(
          "count-min width x depth",
          width + " x " + depth,
          "must be at least 1 x 1 and at most " + MAX_CELLS + " counters");
    }
    long count = f.readLong();
    int cells = (int) (width * depth);
    long[] words = f.readLongs((cells + 1L) / 2, "count-min counters");
    f.finish();
    if (cells % 2 == 1 && (int) words[words.length - 1] != 0) {
      throw new IOException("count-min padding after the last counter is not 0");
    }
    int[] c = new int[cells];
    for (int i = 0; i < cells; i++) {
      c[i] = (int) (i % 2 == 0 ? words[i / 2] >>> 32 : words[i / 2]);
    }
    return new CountMinSketch((int) width, (int) depth, c, count);
  }

  @Override
  public String toString() {
    return "CountMinSketch{width=" + width + ", depth=" + depth + ", count=" + count + "}";
  }
}
