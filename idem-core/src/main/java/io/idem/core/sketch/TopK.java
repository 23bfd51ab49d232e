package io.idem.core.sketch;

import static io.idem.core.Checks.checkArgument;

import io.idem.core.format.FormatFamily;
import io.idem.core.format.FormatInput;
import io.idem.core.format.FormatOutput;
import io.idem.core.hash.Hash128;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The k heaviest items of a stream, with RedisBloom's TOPK semantics: HeavyKeeper (Yang et al.,
 * 2018) counts items in {@code depth} rows of {@code width} buckets, each a fingerprint and a
 * count, and a min-heap of k slots keeps the items whose counts are the largest seen.
 *
 * <p>An item's increment goes, in each row, to its bucket: an empty bucket (count 0) or one with
 * the item's fingerprint takes it whole; a bucket held by another fingerprint instead decays, each
 * unit of the increment taking one from its count with probability decay^count, and the item takes
 * the bucket with the units left when it reaches 0. So heavy items hold their buckets and light
 * ones wear each other out. The item's count is the largest of its buckets; if that reaches the
 * heap's least, the item enters the heap (or updates its count there), expelling the least.
 *
 * <p>The coin flips come from a SplitMix64 generator whose state is part of the sketch, so
 * replaying the same additions on the same state gives the same sketch, as a log needs. Counts are
 * unsigned 32-bit, as RedisBloom's, but saturate instead of wrapping. Not thread-safe: the caller
 * holds the key's lock.
 */
public final class TopK {

  static final int FORMAT_VERSION = 1; // append-only; see TopKTest

  /** The most buckets (width × depth) and heap slots: what one Java array holds, with room. */
  public static final long MAX_BUCKETS = 1L << 28;

  public static final long MAX_K = 1L << 24;

  private static final long MAX_COUNT = 0xFFFF_FFFFL;
  private static final int DECAY_TABLE = 256;

  private final int k;
  private final int width;
  private final int depth;
  private final double decay;
  private final double[] decayPowers = new double[DECAY_TABLE];

  /** Row-major buckets: fingerprint, and unsigned count. */
  private final int[] fingerprints;

  private final int[] counts;

  /** The heap: slot 0 is the least; an empty slot has a null item and count 0. */
  private final int[] heapFingerprints;

  private final long[] heapCounts;
  private final byte[][] heapItems;
  private long heapItemBytes;
  private int heapOccupied;
  private long random;

  private TopK(int k, int width, int depth, double decay, long seed) {
    this(
        k,
        width,
        depth,
        decay,
        seed,
        new int[width * depth],
        new int[width * depth],
        new int[k],
        new long[k],
        new byte[k][]);
  }

  private TopK(
      int k,
      int width,
      int depth,
      double decay,
      long seed,
      int[] fingerprints,
      int[] counts,
      int[] heapFingerprints,
      long[] heapCounts,
      byte[][] heapItems) {
    this.k = k;
    this.width = width;
    this.depth = depth;
    this.decay = decay;
    for (int i = 0; i < DECAY_TABLE; i++) {
      decayPowers[i] = StrictMath.pow(decay, i); // the same on every JVM: flips replay
    }
    this.fingerprints = fingerprints;
    this.counts = counts;
    this.heapFingerprints = heapFingerprints;
    this.heapCounts = heapCounts;
    this.heapItems = heapItems;
    this.random = seed;
    for (byte[] item : heapItems) {
      heapItemBytes += item == null ? 0 : item.length;
      heapOccupied += item == null ? 0 : 1;
    }
  }

  /**
   * An empty sketch.
   *
   * @param seed the coin flips' first state
   */
  public static TopK create(long k, long width, long depth, double decay, long seed) {
    checkArgument(k >= 1 && k <= MAX_K, "k (%s) must be in [1, %s]", k, MAX_K);
    checkArgument(width >= 1 && depth >= 1, "width (%s) and depth (%s) must be >= 1", width, depth);
    checkArgument(
        width <= MAX_BUCKETS / depth, "width x depth must be at most %s buckets", MAX_BUCKETS);
    checkArgument(decay > 0 && decay <= 1, "decay (%s) must be in (0, 1]", decay);
    return new TopK((int) k, (int) width, (int) depth, decay, seed);
  }

  /** Bytes a sketch of these dimensions holds before any item: buckets and heap slots. */
  public static long bytesFor(long k, long width, long depth) {
    return width * depth * 8 + k * 20;
  }

  public int k() {
    return k;
  }

  public int width() {
    return width;
  }

  public int depth() {
    return depth;
  }

  public double decay() {
    return decay;
  }

  /** Bytes of buckets, heap slots and the items the heap holds. */
  public long sizeInBytes() {
    return bytesFor(k, width, depth) + heapItemBytes + 16L * heapOccupied;
  }

  private static int fingerprint(Hash128 h) {
    return (int) (h.h1() >>> 32);
  }

  private int bucket(int row, Hash128 h) {
    long x = h.h2() + row * (h.h1() | 1);
    x = (x ^ (x >>> 33)) * 0xFF51AFD7ED558CCDL;
    x = (x ^ (x >>> 33)) * 0xC4CEB9FE1A85EC53L;
    x ^= x >>> 33;
    return row * width + (int) Math.unsignedMultiplyHigh(x, width);
  }

  private double nextDouble() {
    long z = (random += 0x9E3779B97F4A7C15L);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    z ^= z >>> 31;
    return (z >>> 11) * 0x1.0p-53;
  }

  private double decayTo(long count) {
    return count < DECAY_TABLE ? decayPowers[(int) count] : StrictMath.pow(decay, count);
  }

  /**
   * Adds {@code increment} (0 to 2^32 - 1) to the item, whose 128-bit hash is {@code h}.
   *
   * @return the item this expelled from the heap, or null (none, or an empty slot)
   */
  public byte @Nullable [] add(byte[] item, Hash128 h, long increment) {
    checkArgument(increment >= 0 && increment <= MAX_COUNT, "increment (%s)", increment);
    long heapMin = heapCounts[0];
    int fp = fingerprint(h);
    long max = 0;
    for (int row = 0; row < depth; row++) {
      int b = bucket(row, h);
      long c = counts[b] & MAX_COUNT;
      if (c == 0 || fingerprints[b] == fp) {
        fingerprints[b] = fp;
        c = Math.min(MAX_COUNT, c + increment);
        counts[b] = (int) c;
        max = Math.max(max, c);
        continue;
      }
      for (long left = increment; left > 0; left--) {
        if (nextDouble() < decayTo(c)) {
          c--;
          if (c == 0) {
            fingerprints[b] = fp;
            c = left;
            max = Math.max(max, left);
            break;
          }
        }
      }
      counts[b] = (int) c;
    }
    if (max < heapMin) {
      return null;
    }
    int at = find(item, fp);
    if (at >= 0) {
      heapCounts[at] = max;
      siftDown(siftUp(at));
      return null;
    }
    byte[] expelled = heapItems[0];
    if (expelled != null) {
      heapItemBytes -= expelled.length;
    } else {
      heapOccupied++;
    }
    heapItems[0] = item.clone();
    heapItemBytes += item.length;
    heapFingerprints[0] = fp;
    heapCounts[0] = max;
    siftDown(0);
    return expelled;
  }

  private int find(byte[] item, int fp) {
    for (int i = k - 1; i >= 0; i--) { // RedisBloom's order, should an item be there twice
      if (heapFingerprints[i] == fp && heapItems[i] != null && Arrays.equals(heapItems[i], item)) {
        return i;
      }
    }
    return -1;
  }

  private int siftUp(int i) {
    while (i > 0 && heapCounts[(i - 1) / 2] > heapCounts[i]) {
      swap(i, (i - 1) / 2);
      i = (i - 1) / 2;
    }
    return i;
  }

  /**
   * Moves slot i down as RedisBloom's heap does, so the same adds expel the same items: the smaller
   * child is taken (the left one on a tie); the first step is taken when that child's count is at
   * most slot i's, later ones only while it is strictly less.
   */
  private void siftDown(int i) {
    boolean first = true;
    while (true) {
      int child = 2 * i + 1;
      if (child >= k) {
        return;
      }
      if (child + 1 < k && heapCounts[child + 1] < heapCounts[child]) {
        child++;
      }
      if (first ? heapCounts[child] > heapCounts[i] : heapCounts[child] >= heapCounts[i]) {
        return;
      }
      swap(i, child);
      i = child;
      first = false;
    }
  }

  private void swap(int a, int b) {
    int fp = heapFingerprints[a];
    heapFingerprints[a] = heapFingerprints[b];
    heapFingerprints[b] = fp;
    long c = heapCounts[a];
    heapCounts[a] = heapCounts[b];
    heapCounts[b] = c;
    byte[] item = heapItems[a];
    heapItems[a] = heapItems[b];
    heapItems[b] = item;
  }

  /** Whether the item is in the heap (with any count, even 0). */
  public boolean contains(byte[] item, Hash128 h) {
    return find(item, fingerprint(h)) >= 0;
  }

  /**
   * The item's count as RedisBloom's TOPK.COUNT gives it: the largest of its buckets that hold its
   * fingerprint (for an item in the heap, only those at least the heap's least count).
   */
  public long count(byte[] item, Hash128 h) {
    int fp = fingerprint(h);
    boolean inHeap = find(item, fp) >= 0;
    long heapMin = heapCounts[0];
    long max = 0;
    for (int row = 0; row < depth; row++) {
      int b = bucket(row, h);
      long c = counts[b] & MAX_COUNT;
      if (fingerprints[b] == fp && (!inHeap || c >= heapMin)) {
        max = Math.max(max, c);
      }
    }
    return max;
  }

  /** An item of the heap and its count there. */
  public record Entry(byte[] item, long count) {}

  /**
   * The heap's items with counts above 0, largest first; equal counts in the order of their heap
   * slots, as RedisBloom's TOPK.LIST gives them (glibc's qsort is stable).
   */
  public List<Entry> list() {
    List<Entry> out = new ArrayList<>();
    for (int i = 0; i < k; i++) {
      if (heapItems[i] != null && heapCounts[i] > 0) {
        out.add(new Entry(heapItems[i], heapCounts[i]));
      }
    }
    out.sort((a, b) -> Long.compare(b.count, a.count)); // stable
    return out;
  }

  // ---- format

  /**
   * Writes the sketch in its versioned format.
   *
   * <pre>
   * offset  size     field
   * 0       8        frame header: magic "IDEM", family 7 (top-k), version 1, hash id, 0
   * 8       4        u32 k (1 to 2^24)
   * 12      4        u32 width
   * 16      4        u32 depth (width × depth at most 2^28)
   * 20      8        f64 decay, in (0, 1]
   * 28      8        u64 the coin flips' generator state
   * 36      8 × w×d  the buckets row-major, each u32 fingerprint then u32 count
   * then    k ×      the heap slots in heap order, each u8 1 then u32 fingerprint, u32 count,
   *                  u32 item length and the item's bytes; or u8 0 for an empty slot
   * end     4        CRC32C of every byte before it
   * </pre>
   */
  public void writeTo(OutputStream out) throws IOException {
    FormatOutput f =
        FormatOutput.begin(out, FormatFamily.TOPK, FORMAT_VERSION, Hash128.FUNCTION_ID);
    f.writeInt(k);
    f.writeInt(width);
    f.writeInt(depth);
    f.writeDouble(decay);
    f.writeLong(random);
    for (int i = 0; i < counts.length; i++) {
      f.writeLong((long) fingerprints[i] << 32 | (counts[i] & MAX_COUNT));
    }
    for (int i = 0; i < k; i++) {
      if (heapItems[i] == null) {
        f.writeByte(0);
        continue;
      }
      f.writeByte(1);
      f.writeInt(heapFingerprints[i]);
      f.writeInt((int) heapCounts[i]);
      f.writeInt(heapItems[i].length);
      f.writeBytes(heapItems[i]);
    }
    f.finish();
  }

  /** Reads a sketch written by {@link #writeTo}, of at most {@code maxBytes} bytes. */
  public static TopK readFrom(InputStream in, long maxBytes) throws IOException {
    FormatInput f =
        FormatInput.begin(in, FormatFamily.TOPK, FORMAT_VERSION, Hash128.FUNCTION_ID, maxBytes);
    long k = f.readInt() & MAX_COUNT;
    long width = f.readInt() & MAX_COUNT;
    long depth = f.readInt() & MAX_COUNT;
    double decay = f.readDouble();
    long random = f.readLong();
    if (k < 1 || k > MAX_K || width < 1 || depth < 1 || width > MAX_BUCKETS / depth) {
      throw FormatInput.invalid(
          "top-k k, width x depth",
          k + ", " + width + " x " + depth,
          "must be 1 to " + MAX_K + " and 1 x 1 to " + MAX_BUCKETS + " buckets");
    }
    if (!(decay > 0 && decay <= 1)) {
      throw FormatInput.invalid("top-k decay", decay, "must be in (0, 1]");
    }
    // Every bucket is 8 bytes and every slot at least 1: the sizes must fit the limit, and the
    // arrays grow only as their bytes arrive.
    f.expect(width * depth * 8 + k, "top-k buckets and heap");
    long[] buckets = f.readLongs(width * depth, "top-k buckets");
    int[] fingerprints = new int[buckets.length];
    int[] counts = new int[buckets.length];
    for (int i = 0; i < buckets.length; i++) {
      fingerprints[i] = (int) (buckets[i] >>> 32);
      counts[i] = (int) buckets[i];
    }
    // The slots' arrays grow as slots arrive (each is at least a byte), to their final size.
    int capacity = (int) Math.min(k, 1024);
    int[] heapFingerprints = new int[capacity];
    long[] heapCounts = new long[capacity];
    byte[][] items = new byte[capacity][];
    for (int i = 0; i < k; i++) {
      if (i == capacity) {
        capacity = (int) Math.min(k, 2L * capacity);
        heapFingerprints = Arrays.copyOf(heapFingerprints, capacity);
        heapCounts = Arrays.copyOf(heapCounts, capacity);
        items = Arrays.copyOf(items, capacity);
      }
      int present = f.readUnsignedByte();
      if (present > 1) {
        throw FormatInput.invalid("top-k heap slot " + i + " marker", present, "must be 0 or 1");
      }
      if (present == 1) {
        heapFingerprints[i] = f.readInt();
        heapCounts[i] = f.readInt() & MAX_COUNT;
        items[i] = f.readBytes(f.readInt(), "top-k heap item");
      }
    }
    TopK t =
        new TopK(
            (int) k,
            (int) width,
            (int) depth,
            decay,
            random,
            fingerprints,
            counts,
            heapFingerprints,
            heapCounts,
            items);
    f.finish();
    for (int i = 1; i < k; i++) {
      if (t.heapCounts[(i - 1) / 2] > t.heapCounts[i]) {
        throw new IOException("top-k heap out of order at slot " + i);
      }
    }
    return t;
  }

  @Override
  public String toString() {
    return "TopK{k=" + k + ", width=" + width + ", depth=" + depth + ", decay=" + decay + "}";
  }
}
