package io.idem.core.window;

import java.io.IOException;
import java.util.Arrays;

/**
 * The bytes of one row of a windowed counter: the counts of one name in {@link
 * WindowedCounters#SLOTS} consecutive buckets of one resolution. Only buckets whose count is not
 * zero are written, so a name seen once costs two bytes; a row with no count is deleted, never
 * written empty.
 *
 * <p>Row format 1, repeated to the end of the row, slots strictly increasing:
 *
 * <pre>
 * u8      slot    the bucket's place in the row, 0 to 63
 * varint  count   zigzag, then LEB128 (7 bits a byte, low first): a non-zero signed 64-bit count
 * </pre>
 */
public final class CounterRow {

  /** The row format this class writes, recorded by each table so another may come later. */
  public static final int FORMAT = 1;

  /** The longest valid row: every slot with a ten-byte count. */
  public static final int MAX_BYTES = WindowedCounters.SLOTS * 11;

  private CounterRow() {}

  /** The row's counts, or null if every count is zero. */
  public static byte @org.jspecify.annotations.Nullable [] encode(long[] counts) {
    byte[] out = new byte[MAX_BYTES];
    int n = 0;
    for (int slot = 0; slot < WindowedCounters.SLOTS; slot++) {
      long c = counts[slot];
      if (c == 0) {
        continue;
      }
      out[n++] = (byte) slot;
      long z = (c << 1) ^ (c >> 63);
      while ((z & ~0x7FL) != 0) {
        out[n++] = (byte) ((z & 0x7F) | 0x80);
        z >>>= 7;
      }
      out[n++] = (byte) z;
    }
    return n == 0 ? null : Arrays.copyOf(out, n);
  }

  /**
   * Reads a row into {@code counts} (all {@link WindowedCounters#SLOTS} of them, zero where the row
   * has none).
   *
   * @throws IOException if the bytes are not a row
   */
  public static void decode(byte[] row, long[] counts) throws IOException {
    Arrays.fill(counts, 0);
    walk(row, counts, 0, -1, 0);
  }

  /**
   * {@code acc} plus the row's counts in slots {@code from} to {@code to}, added in slot order,
   * without decoding the row: what a window's sum needs of it.
   *
   * @throws ArithmeticException if a partial sum overflows 64 bits
   * @throws IOException if the bytes are not a row (checked whole, whatever the slots asked)
   */
  public static long sum(byte[] row, int from, int to, long acc) throws IOException {
    return walk(row, null, from, to, acc);
  }

  /**
   * Checks a whole row; puts its counts in {@code counts} if given; sums those in [from, to]. A row
   * that is not a row throws IOException even when a partial sum also overflows.
   */
  private static long walk(
      byte[] row, long @org.jspecify.annotations.Nullable [] counts, int from, int to, long acc)
      throws IOException {
    if (row.length == 0 || row.length > MAX_BYTES) {
      throw new IOException("a counter row of " + row.length + " bytes");
    }
    int last = -1;
    int i = 0;
    boolean overflow = false;
    while (i < row.length) {
      int slot = row[i++] & 0xFF;
      if (slot >= WindowedCounters.SLOTS || slot <= last) {
        throw new IOException("a counter row's slot " + slot + " after slot " + last);
      }
      last = slot;
      long z = 0;
      for (int shift = 0; ; shift += 7) {
        if (i == row.length) {
          throw new IOException("a counter row ends inside a count");
        }
        byte b = row[i++];
        if (shift == 63 && (b & 0xFE) != 0) {
          throw new IOException("a counter row's count is longer than 64 bits");
        }
        z |= (long) (b & 0x7F) << shift;
        if (b >= 0) {
          if (b == 0 && shift > 0) {
            throw new IOException("a counter row's count has a needless last byte");
          }
          break;
        }
      }
      long c = (z >>> 1) ^ -(z & 1);
      if (c == 0) {
        throw new IOException("a counter row holds a zero count at slot " + slot);
      }
      if (counts != null) {
        counts[slot] = c;
      }
      if (slot >= from && slot <= to) {
        long sum = acc + c;
        overflow |= ((acc ^ sum) & (c ^ sum)) < 0; // as Math.addExact, but checked after the row
        acc = sum;
      }
    }
    if (overflow) {
      throw new ArithmeticException("long overflow");
    }
    return acc;
  }
}
