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

/**
 * A HyperLogLog (Flajolet et al., 2007) of 2^p registers, estimated with Ertl's improved raw
 * estimator (2017), which needs no bias tables and is unbiased from 0 to far past 2^64 / m. Its
 * relative standard error is 1.04 / √m: 0.81 % at Redis's p = 14.
 *
 * <p>A register is a 6-bit rank. A sketch starts sparse, as a sorted array of its non-zero
 * registers, and turns dense (a byte a register) once they pass m / 16, so the many small sketches
 * of a windowed table stay small. {@link #add} says whether a register rose, which is what Redis's
 * PFADD replies. Not thread-safe: the caller holds the key's lock.
 *
 * <p>An item's 64-bit hash h gives its register, h mod m, and its rank, one more than the trailing
 * zeros of h / m (q + 1 when h / m is 0, with q = 64 - p).
 */
public final class HyperLogLog {

  static final int FORMAT_VERSION = 1; // append-only; see HyperLogLogTest

  public static final int MIN_PRECISION = 4;

  /** The largest precision: a sparse entry (register and rank) then fits 24 bits. */
  public static final int MAX_PRECISION = 18;

  /** Redis's precision, for PF* keys. */
  public static final int REDIS_PRECISION = 14;

  private static final int SPARSE = 1;
  private static final int DENSE = 2;
  private static final double ALPHA_INF = 0.5 / Math.log(2);

  private final int p;
  private final int m;
  private final int maxRank;
  private final int sparseLimit;

  /** Sparse: sorted by register, each {@code register << 6 | rank}; null once dense. */
  private int[] entries;

  private int size;

  /** Dense: a rank a register; null while sparse. */
  private byte[] registers;

  private HyperLogLog(int p) {
    this.p = p;
    this.m = 1 << p;
    this.maxRank = 64 - p + 1;
    this.sparseLimit = Math.max(1, m / 16);
  }

  /** An empty sketch of 2^precision registers. */
  public static HyperLogLog create(int precision) {
    checkArgument(
        precision >= MIN_PRECISION && precision <= MAX_PRECISION,
        "precision (%s) must be in [%s, %s]",
        precision,
        MIN_PRECISION,
        MAX_PRECISION);
    HyperLogLog h = new HyperLogLog(precision);
    h.entries = new int[4];
    return h;
  }

  public int precision() {
    return p;
  }

  /** 1.04 / √m. */
  public double relativeStandardError() {
    return 1.04 / Math.sqrt(m);
  }

  /** Whether the sketch is still sparse. */
  public boolean isSparse() {
    return registers == null;
  }

  /** Bytes the registers take in memory. */
  public long sizeInBytes() {
    return registers != null ? m : (long) entries.length * 4;
  }

  /** The register an item of this 64-bit hash falls in. */
  public int registerOf(long hash) {
    return (int) (hash & (m - 1));
  }

  /** The rank an item of this 64-bit hash offers its register. */
  public int rankOf(long hash) {
    return Math.min(Long.numberOfTrailingZeros(hash >>> p), 64 - p) + 1;
  }

  /** Adds an item by its 64-bit hash; returns whether a register rose. */
  public boolean add(long hash) {
    return raise(registerOf(hash), rankOf(hash));
  }

  /** The register's rank, 0 if nothing raised it. */
  public int rank(int register) {
    checkArgument(register >= 0 && register < m, "register (%s) out of range", register);
    if (registers != null) {
      return registers[register];
    }
    int at = find(register);
    return at >= 0 ? entries[at] & 63 : 0;
  }

  /**
   * Raises a register to at least {@code rank}: how adds replay and merges fold in.
   *
   * @return whether it rose
   */
  public boolean raise(int register, int rank) {
    checkArgument(register >= 0 && register < m, "register (%s) out of range", register);
    checkArgument(rank >= 1 && rank <= maxRank, "rank (%s) out of [1, %s]", rank, maxRank);
    if (registers != null) {
      if (registers[register] >= rank) {
        return false;
      }
      registers[register] = (byte) rank;
      return true;
    }
    int at = find(register);
    if (at >= 0) {
      if ((entries[at] & 63) >= rank) {
        return false;
      }
      entries[at] = register << 6 | rank;
      return true;
    }
    if (size == sparseLimit) {
      toDense();
      registers[register] = (byte) rank;
      return true;
    }
    int insert = -at - 1;
    if (size == entries.length) {
      entries = Arrays.copyOf(entries, Math.min(sparseLimit, size * 2));
    }
    System.arraycopy(entries, insert, entries, insert + 1, size - insert);
    entries[insert] = register << 6 | rank;
    size++;
    return true;
  }

  private int find(int register) {
    int lo = 0;
    int hi = size - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int r = entries[mid] >>> 6;
      if (r < register) {
        lo = mid + 1;
      } else if (r > register) {
        hi = mid - 1;
      } else {
        return mid;
      }
    }
    return -(lo + 1);
  }

  private void toDense() {
    byte[] r = new byte[m];
    for (int i = 0; i < size; i++) {
      r[entries[i] >>> 6] = (byte) (entries[i] & 63);
    }
    registers = r;
    entries = null;
    size = 0;
  }

  /** Whether {@code other} has this sketch's precision, so that they merge. */
  public boolean samePrecision(HyperLogLog other) {
    return p == other.p;
  }

  /**
   * Folds {@code other} in (register-wise maximum): this sketch then counts the union.
   *
   * @return whether a register rose
   */
  public boolean merge(HyperLogLog other) {
    checkArgument(samePrecision(other), "precision %s into %s", other.p, p);
    boolean rose = false;
    if (other.registers == null) {
      for (int i = 0; i < other.size; i++) {
        rose |= raise(other.entries[i] >>> 6, other.entries[i] & 63);
      }
      return rose;
    }
    if (registers == null) {
      toDense();
    }
    for (int i = 0; i < m; i++) {
      if (other.registers[i] > registers[i]) {
        registers[i] = other.registers[i];
        rose = true;
      }
    }
    return rose;
  }

  /** An independent copy. */
  public HyperLogLog copy() {
    HyperLogLog c = new HyperLogLog(p);
    c.entries = entries == null ? null : entries.clone();
    c.size = size;
    c.registers = registers == null ? null : registers.clone();
    return c;
  }

  /** The estimated number of distinct items added (and merged in). */
  public double estimate() {
    int q = 64 - p;
    int[] c = new int[q + 2]; // c[k]: the registers of rank k
    if (registers != null) {
      for (byte r : registers) {
        c[r]++;
      }
    } else {
      c[0] = m - size;
      for (int i = 0; i < size; i++) {
        c[entries[i] & 63]++;
      }
    }
    double z = m * tau((m - c[q + 1]) / (double) m);
    for (int k = q; k >= 1; k--) {
      z = 0.5 * (z + c[k]);
    }
    z += m * sigma(c[0] / (double) m);
    return ALPHA_INF * m * m / z;
  }

  /** The estimate rounded to a count, as PFCOUNT replies it. */
  public long count() {
    return Math.round(estimate());
  }

  // Ertl's series: sigma(x) = x + Σ_{k≥1} x^(2^k) 2^(k-1), tau(x) = (1 - x - Σ_{k≥1} (1 -
  // x^(2^-k))² 2^-k) / 3, each summed until the terms no longer change the sum.

  private static double sigma(double x) {
    if (x == 1) {
      return Double.POSITIVE_INFINITY;
    }
    double y = 1;
    double z = x;
    double before;
    do {
      x *= x;
      before = z;
      z += x * y;
      y += y;
    } while (z != before);
    return z;
  }

  private static double tau(double x) {
    if (x == 0 || x == 1) {
      return 0;
    }
    double y = 1;
    double z = 1 - x;
    double before;
    do {
      x = Math.sqrt(x);
      before = z;
      y *= 0.5;
      z -= (1 - x) * (1 - x) * y;
    } while (z != before);
    return z / 3;
  }

  // ---- encodings

  /** The most bytes {@link #toBytes} gives at any precision. */
  public static final int MAX_ENCODED_BYTES = 2 + (6 << MAX_PRECISION) / 8;

  /**
   * The registers, compact: the body of the snapshot format, and a windowed table's row.
   *
   * <pre>
   * offset  size          field
   * 0       1             u8 precision p, 4 to 18
   * 1       1             u8 encoding: 1 sparse, 2 dense
   * sparse:
   * 2       3 * n         n entries (0 &lt; n ≤ max(1, 2^p / 16), or n = 0 for an empty sketch),
   *                       each a big-endian u24 register &lt;&lt; 6 | rank, registers strictly
   *                       increasing, ranks 1 to 65 - p
   * dense:
   * 2       6 * 2^p / 8   the ranks (0 to 65 - p), 6 bits each: register i's bit j is bit
   *                       6i + j of the string, bit b being bit b mod 8 of byte b / 8
   * </pre>
   */
  public byte[] toBytes() {
    if (registers == null) {
      byte[] b = new byte[2 + 3 * size];
      b[0] = (byte) p;
      b[1] = SPARSE;
      for (int i = 0; i < size; i++) {
        int e = entries[i];
        b[2 + 3 * i] = (byte) (e >>> 16);
        b[3 + 3 * i] = (byte) (e >>> 8);
        b[4 + 3 * i] = (byte) e;
      }
      return b;
    }
    byte[] b = new byte[2 + 6 * m / 8];
    b[0] = (byte) p;
    b[1] = DENSE;
    for (int i = 0; i < m; i++) {
      int bit = 6 * i;
      int v = registers[i] << (bit & 7);
      b[2 + (bit >>> 3)] |= (byte) v;
      if ((bit & 7) > 2) {
        b[3 + (bit >>> 3)] |= (byte) (v >>> 8);
      }
    }
    return b;
  }

  /** Reads {@link #toBytes}'s encoding; anything else is an IOException saying what is wrong. */
  public static HyperLogLog fromBytes(byte[] b) throws IOException {
    if (b.length < 2) {
      throw new IOException("HyperLogLog of " + b.length + " bytes, shorter than its 2-byte head");
    }
    int p = b[0] & 0xff;
    if (p < MIN_PRECISION || p > MAX_PRECISION) {
      throw FormatInput.invalid(
          "HyperLogLog precision", p, "must be in [" + MIN_PRECISION + ", " + MAX_PRECISION + "]");
    }
    HyperLogLog h = new HyperLogLog(p);
    switch (b[1]) {
      case SPARSE -> {
        int n = (b.length - 2) / 3;
        if ((b.length - 2) % 3 != 0 || n > h.sparseLimit) {
          throw new IOException(
              "sparse HyperLogLog of "
                  + (b.length - 2)
                  + " bytes is not 0 to "
                  + h.sparseLimit
                  + " 3-byte entries");
        }
        h.entries = new int[Math.max(4, n)];
        int last = -1;
        for (int i = 0; i < n; i++) {
          int e = (b[2 + 3 * i] & 0xff) << 16 | (b[3 + 3 * i] & 0xff) << 8 | (b[4 + 3 * i] & 0xff);
          int register = e >>> 6;
          int rank = e & 63;
          if (register <= last || register >= h.m || rank < 1 || rank > h.maxRank) {
            throw new IOException(
                "sparse HyperLogLog entry "
                    + i
                    + " (register "
                    + register
                    + ", rank "
                    + rank
                    + ") out of order or range");
          }
          last = register;
          h.entries[i] = e;
        }
        h.size = n;
      }
      case DENSE -> {
        if (b.length != 2 + 6 * h.m / 8) {
          throw new IOException(
              "dense HyperLogLog of p = "
                  + p
                  + " has "
                  + (b.length - 2)
                  + " bytes of registers, not "
                  + 6 * h.m / 8);
        }
        h.registers = new byte[h.m];
        for (int i = 0; i < h.m; i++) {
          int bit = 6 * i;
          int v = (b[2 + (bit >>> 3)] & 0xff) >>> (bit & 7);
          if ((bit & 7) > 2) {
            v |= (b[3 + (bit >>> 3)] & 0xff) << (8 - (bit & 7));
          }
          v &= 63;
          if (v > h.maxRank) {
            throw new IOException(
                "HyperLogLog register " + i + " has rank " + v + " > " + h.maxRank);
          }
          h.registers[i] = (byte) v;
        }
      }
      default -> throw new IOException("unknown HyperLogLog encoding " + (b[1] & 0xff));
    }
    return h;
  }

  /**
   * Writes the sketch in its versioned format.
   *
   * <pre>
   * offset  size  field
   * 0       8     frame header: magic "IDEM", family 6 (HyperLogLog), version 1, hash id, 0
   * 8       4     u32 length L of the registers' encoding
   * 12      L     the registers, as {@link #toBytes} encodes them
   * end     4     CRC32C of every byte before it
   * </pre>
   */
  public void writeTo(OutputStream out) throws IOException {
    FormatOutput f =
        FormatOutput.begin(out, FormatFamily.HYPERLOGLOG, FORMAT_VERSION, Hash128.FUNCTION_ID);
    byte[] body = toBytes();
    f.writeInt(body.length);
    f.writeBytes(body);
    f.finish();
  }

  /** Reads a sketch written by {@link #writeTo}, of at most {@code maxBytes} bytes. */
  public static HyperLogLog readFrom(InputStream in, long maxBytes) throws IOException {
    FormatInput f =
        FormatInput.begin(
            in, FormatFamily.HYPERLOGLOG, FORMAT_VERSION, Hash128.FUNCTION_ID, maxBytes);
    int length = f.readInt();
    if (length < 2 || length > MAX_ENCODED_BYTES) {
      throw FormatInput.invalid(
          "HyperLogLog length", length & 0xFFFF_FFFFL, "must be 2 to " + MAX_ENCODED_BYTES);
    }
    byte[] body = f.readBytes(length, "HyperLogLog registers");
    f.finish();
    return fromBytes(body);
  }

  @Override
  public String toString() {
    return "HyperLogLog{p=" + p + (registers == null ? ", sparse " + size : ", dense") + "}";
  }
}
