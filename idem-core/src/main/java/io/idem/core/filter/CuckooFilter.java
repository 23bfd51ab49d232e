package io.idem.core.filter;

import static io.idem.core.Checks.checkArgument;

import io.idem.core.format.FormatFamily;
import io.idem.core.format.FormatInput;
import io.idem.core.format.FormatOutput;
import io.idem.core.hash.Hash128;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A cuckoo filter with RedisBloom's semantics (bucket size 2, 20 kicks, expansion 1; add, add if
 * absent, delete, count), whose fingerprint width follows from the error rate asked for. Not
 * thread-safe: the caller holds the key's lock.
 *
 * <p><b>Delete contract.</b> {@link #remove} clears one stored copy of the item's fingerprint.
 * Deleting an item that was never added can clear the fingerprint of another item that shares its
 * buckets and fingerprint, which then reads as absent: a false negative. Delete only items you
 * added. Deleting an item whose fingerprint is not stored changes nothing and returns false.
 */
public final class CuckooFilter implements MembershipFilter, ScalableCuckoo {
  /*
   * Design: Fan et al., "Cuckoo Filter: Practically Better Than Bloom" (2014), with RedisBloom's
   * growth: when kicks fail, a new sub-table of buckets * expansion^n is added and the item goes
   * there; lookups check every sub-table.
   *
   * Sizes are exact, not powers of two. Bucket i1 = h1 mod n; the alternate bucket of fingerprint
   * f at i is (H(f) - i) mod n, an involution for any n. Because every sub-table's bucket count is
   * a multiple of the older ones', a fingerprint's pair of buckets in a newer table reduces to its
   * pair in an older one, which is what compact() relies on.
   *
   * Rate: a lookup compares its fingerprint with the occupied slots of two buckets per sub-table,
   * 2 * items / buckets of them on average, each matching with probability 1 / (2^f - 1)
   * (fingerprints are never 0, the empty slot). Sizing picks the smallest table (width and
   * buckets) that keeps this within the configured rate at capacity, at a load the kicks reach
   * reliably.
   *
   * Kicks: swap the incoming fingerprint with a victim slot of the bucket and move the victim to
   * its alternate bucket, at most maxIterations times; a failed chain is undone exactly, so no
   * stored fingerprint is ever lost. Unlike RedisBloom, which takes victims 0, 1, 0, 1, ..., the
   * victim is chosen at random: with bucket size 2 and 20 kicks the first failure then comes at
   * a load of about 0.62 instead of 0.48 (measured while choosing; loadTarget's margins are
   * pinned by CuckooFilterTest). The randomness is a pure function of the item's hash and the
   * item count, seeded afresh for each chain, so the same snapshot given the same operations
   * makes the same tables: a server replays its log on a snapshot and must get the filter back.
   */

  static final int FORMAT_VERSION = 1; // append-only; see FilterFormatTest
  public static final int DEFAULT_BUCKET_SIZE = 2;
  public static final int DEFAULT_MAX_ITERATIONS = 20;
  public static final int DEFAULT_EXPANSION = 1;

  /** RedisBloom's fingerprint width, for filters made without an error rate. */
  public static final int DEFAULT_FINGERPRINT_BITS = 8;

  public static final int MAX_BUCKET_SIZE = 255;
  public static final int MAX_ITERATIONS = 65535;
  public static final int MAX_EXPANSION = 32768;
  public static final int MAX_FINGERPRINT_BITS = 32;

  /** RedisBloom's cf-max-expansions: the most sub-tables a filter grows to. */
  public static final int MAX_TABLES = 32;

  /**
   * The largest capacity a dump's header carries: RedisBloom's largest for CF.RESERVE. A filter for
   * more is kept and snapshotted, but not dumped.
   */
  public static final long MAX_DUMP_CAPACITY = 1L << 30;

  /** The most bits one sub-table may hold: the longs a Java array can index. */
  static final long MAX_TABLE_BITS = (Integer.MAX_VALUE - 8) * 64L;

  private static final VarHandle LONG_BE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private final long capacity;
  private final double errorRate;
  private final int fingerprintBits;
  private final long fingerprintValues; // 2^f - 1: fingerprints are 1 .. this
  private final int bucketSize;
  private final int maxIterations;
  private final int expansion;
  private final List<Table> tables;
  private long items;
  private long deletes;
  private long[] kickBuckets = new long[0];
  private int[] kickSlots = new int[0];

  private CuckooFilter(
      long capacity,
      double errorRate,
      int fingerprintBits,
      int bucketSize,
      int maxIterations,
      int expansion,
      List<Table> tables) {
    this.capacity = capacity;
    this.errorRate = errorRate;
    this.fingerprintBits = fingerprintBits;
    this.fingerprintValues = (1L << fingerprintBits) - 1;
    this.bucketSize = bucketSize;
    this.maxIterations = maxIterations;
    this.expansion = expansion;
    this.tables = tables;
  }

  /** A filter for {@code capacity} items at {@code errorRate}, with RedisBloom's defaults. */
  public static CuckooFilter create(long capacity, double errorRate) {
    return create(
        capacity, errorRate, DEFAULT_BUCKET_SIZE, DEFAULT_MAX_ITERATIONS, DEFAULT_EXPANSION);
  }

  /** A filter whose fingerprint width follows from {@code errorRate} at capacity. */
  public static CuckooFilter create(
      long capacity, double errorRate, int bucketSize, int maxIterations, int expansion) {
    return of(
        sizing(capacity, errorRate, bucketSize, maxIterations),
        errorRate,
        maxIterations,
        expansion);
  }

  /** A filter with a given fingerprint width, as CF.RESERVE makes (8 bits, like RedisBloom). */
  public static CuckooFilter createWithFingerprintBits(
      long capacity, int fingerprintBits, int bucketSize, int maxIterations, int expansion) {
    return of(
        sizingWithFingerprintBits(capacity, fingerprintBits, bucketSize, maxIterations),
        Double.NaN,
        maxIterations,
        expansion);
  }

  /** Builds the first table; the configured rate is the one asked for, else the width's. */
  private static CuckooFilter of(Sizing s, double errorRate, int maxIterations, int expansion) {
    checkArgument(
        expansion >= 0 && expansion <= MAX_EXPANSION,
        "expansion (%s) must be in [0, %s]",
        expansion,
        MAX_EXPANSION);
    List<Table> tables = new ArrayList<>();
    tables.add(new Table(s.buckets(), s.bucketSize(), s.fingerprintBits()));
    return new CuckooFilter(
        s.capacity(),
        Double.isNaN(errorRate) ? s.expectedRate() : errorRate,
        s.fingerprintBits(),
        s.bucketSize(),
        maxIterations,
        expansion,
        tables);
  }

  /**
   * The shape of a cuckoo table: buckets, slots per bucket, fingerprint width, rate at capacity.
   */
  public record Sizing(
      long capacity, int bucketSize, long buckets, int fingerprintBits, double expectedRate) {
    /** The false-positive rate a filter of this shape has with {@code items} in it. */
    public double rateAt(long items) {
      return CuckooFilter.expectedRate(items, buckets, fingerprintBits);
    }

    public long bits() {
      return buckets * bucketSize * fingerprintBits;
    }

    public long bytes() {
      return (bits() + 63) / 64 * 8;
    }

    public double bitsPerItem() {
      return (double) bytes() * 8 / capacity;
    }

    /** Items per slot at capacity. */
    public double loadAtCapacity() {
      return (double) capacity / (buckets * bucketSize);
    }
  }

  /**
   * The shape {@link #create} gives: the fewest bits that meet the rate at capacity. Each width
   * needs enough buckets for the load the kicks reach, and as many more as keep the slots a lookup
   * compares few enough for the rate; the smallest of those tables wins. Rounding the width up to
   * the next whole bit costs a bit a slot, where a few more buckets often cost less. Tables below
   * half the kicks' load are not considered: a wider fingerprint is the better trade there.
   */
  public static Sizing sizing(long capacity, double errorRate, int bucketSize, int maxIterations) {
    checkArgument(errorRate > 0 && errorRate < 1, "error rate (%s) must be in (0, 1)", errorRate);
    long fewest = buckets(capacity, bucketSize, maxIterations);
    Sizing best = null;
    for (int f = minFingerprintBits(bucketSize); f <= MAX_FINGERPRINT_BITS; f++) {
      long buckets = bucketsForRate(capacity, errorRate, f, fewest);
      if (buckets > 0) {
        Sizing s = new Sizing(capacity, bucketSize, buckets, f, expectedRate(capacity, buckets, f));
        if (best == null || s.bits() < best.bits()) {
          best = s;
        }
      }
    }
    if (best == null) {
      throw new IllegalArgumentException(
          String.format(
              "error rate (%s) is below what %s-bit fingerprints reach (%s)",
              errorRate, MAX_FINGERPRINT_BITS, expectedRate(capacity, fewest, 32)));
    }
    return checked(best);
  }

  /** The fewest buckets, at least {@code fewest}, with which f-bit fingerprints meet the rate. */
  private static long bucketsForRate(long capacity, double errorRate, int f, long fewest) {
    if (expectedRate(capacity, fewest, f) <= errorRate) {
      return fewest;
    }
    // The rate grows with the slots compared, 2 * capacity / buckets: solve for buckets, then
    // step past rounding.
    double compared =
        f == 1 ? errorRate : Math.log1p(-errorRate) / Math.log1p(-1.0 / ((1L << f) - 1));
    double buckets = Math.ceil(2.0 * capacity / compared);
    if (!(buckets <= 2.0 * fewest)) {
      return -1; // below half the kicks' load: see sizing
    }
    long b = (long) buckets;
    while (expectedRate(capacity, b, f) > errorRate) {
      b++;
    }
    return b <= 2 * fewest ? b : -1;
  }

  public static Sizing sizingWithFingerprintBits(
      long capacity, int fingerprintBits, int bucketSize, int maxIterations) {
    checkArgument(
        fingerprintBits >= 1 && fingerprintBits <= MAX_FINGERPRINT_BITS,
        "fingerprint bits (%s) must be in [1, %s]",
        fingerprintBits,
        MAX_FINGERPRINT_BITS);
    long buckets = buckets(capacity, bucketSize, maxIterations);
    return checked(
        new Sizing(
            capacity,
            bucketSize,
            buckets,
            fingerprintBits,
            expectedRate(capacity, buckets, fingerprintBits)));
  }

  private static Sizing checked(Sizing s) {
    checkArgument(
        s.bits() <= MAX_TABLE_BITS,
        "capacity (%s) needs %s bits, over the limit of %s",
        s.capacity(),
        s.bits(),
        MAX_TABLE_BITS);
    return s;
  }

  /**
   * Everything that fixes a filter's layout apart from its fingerprints: what {@link #ofShape}
   * needs to build the same filter, empty. Sub-table t has {@code firstBuckets * expansion^t}
   * buckets.
   */
  public record Shape(
      long capacity,
      double errorRate,
      int fingerprintBits,
      int bucketSize,
      int maxIterations,
      int expansion,
      long firstBuckets,
      int tables) {

    /**
     * @throws IllegalArgumentException naming the first field out of the format's range
     */
    public Shape {
      checkArgument(
          capacity >= 1 && capacity <= 1L << 40, "capacity (%s) must be in [1, 2^40]", capacity);
      checkArgument(
          errorRate > 0 && errorRate <= 1, "error rate (%s) must be in (0, 1]", errorRate);
      checkArgument(
          fingerprintBits >= 1 && fingerprintBits <= MAX_FINGERPRINT_BITS,
          "fingerprint bits (%s) must be in [1, %s]",
          fingerprintBits,
          MAX_FINGERPRINT_BITS);
      checkArgument(
          bucketSize >= 1 && bucketSize <= MAX_BUCKET_SIZE,
          "bucket size (%s) must be in [1, %s]",
          bucketSize,
          MAX_BUCKET_SIZE);
      checkArgument(
          maxIterations >= 1 && maxIterations <= MAX_ITERATIONS,
          "max iterations (%s) must be in [1, %s]",
          maxIterations,
          MAX_ITERATIONS);
      checkArgument(
          expansion >= 0 && expansion <= MAX_EXPANSION,
          "expansion (%s) must be in [0, %s]",
          expansion,
          MAX_EXPANSION);
      checkArgument(
          tables >= 1 && tables <= MAX_TABLES && (expansion != 0 || tables == 1),
          "sub-tables (%s) must be in [1, %s], and 1 when expansion is 0",
          tables,
          MAX_TABLES);
      checkArgument(firstBuckets >= 1, "buckets (%s) must be >= 1", firstBuckets);
      // In doubles first: buckets * expansion^t * bucket size * bits must not overflow a long.
      for (int t = 0; t < tables; t++) {
        double bits = firstBuckets * Math.pow(expansion, t) * bucketSize * fingerprintBits;
        checkArgument(
            bits <= MAX_TABLE_BITS, "sub-table %s is over the limit of %s bits", t, MAX_TABLE_BITS);
      }
    }

    /** Buckets of sub-table t. */
    public long buckets(int t) {
      return t == 0 ? firstBuckets : (long) (firstBuckets * Math.pow(expansion, t));
    }

    /** The 64-bit words that hold sub-table t's slots. */
    public long words(int t) {
      return Table.wordsFor(buckets(t), bucketSize, fingerprintBits);
    }

    /** Bytes of every sub-table's words: the memory {@link #ofShape} allocates. */
    public long bytes() {
      long sum = 0;
      for (int t = 0; t < tables; t++) {
        sum += words(t) * 8;
      }
      return sum;
    }
  }

  /** This filter's shape. */
  public Shape shape() {
    return new Shape(
        capacity,
        errorRate,
        fingerprintBits,
        bucketSize,
        maxIterations,
        expansion,
        tables.getFirst().buckets,
        tables.size());
  }

  /**
   * An empty filter of an explicit shape, with {@code deletes} as its delete count: what a server
   * rebuilds from a creation recipe, or from a dump's header before the fingerprints arrive in
   * chunks ({@link #loadWords}). The shape's ranges are those of the format ({@link #readFrom});
   * the caller decides whether the memory, {@link Shape#bytes}, may be spent.
   */
  public static CuckooFilter ofShape(Shape shape, long deletes) {
    checkArgument(deletes >= 0, "deletes (%s) must be >= 0", deletes);
    List<Table> tables = new ArrayList<>();
    for (int t = 0; t < shape.tables(); t++) {
      tables.add(new Table(shape.buckets(t), shape.bucketSize(), shape.fingerprintBits()));
    }
    CuckooFilter filter =
        new CuckooFilter(
            shape.capacity(),
            shape.errorRate(),
            shape.fingerprintBits(),
            shape.bucketSize(),
            shape.maxIterations(),
            shape.expansion(),
            tables);
    filter.deletes = deletes;
    return filter;
  }

  /**
   * The load at capacity below which an insert practically never fails, so a filter filled to its
   * capacity does not grow. Measured on 1 M items, ten seeds, fingerprints of 9 and 14 bits: the
   * lowest load at the first failed insert, less a margin (CuckooFilterTest pins that filling to
   * capacity does not grow). One-slot buckets stall early with short fingerprints.
   */
  static double loadTarget(int bucketSize, int maxIterations) {
    boolean longKicks = maxIterations >= 100; // measured at 500
    return switch (bucketSize) {
      case 1 -> 0.25;
      case 2 -> longKicks ? 0.84 : 0.58;
      case 3 -> longKicks ? 0.92 : 0.65;
      case 4 -> longKicks ? 0.94 : 0.73;
      case 5, 6, 7 -> longKicks ? 0.95 : 0.78;
      default -> longKicks ? 0.97 : 0.82;
    };
  }

  /**
   * With one slot per bucket, few distinct fingerprints mean few distinct alternate-bucket offsets,
   * and inserts fail at loads of a few percent (measured: 8-bit fingerprints stall below 0.05); 14
   * bits restore a load of about 0.3.
   */
  static int minFingerprintBits(int bucketSize) {
    return bucketSize == 1 ? 14 : 1;
  }

  static long buckets(long capacity, int bucketSize, int maxIterations) {
    checkArgument(capacity > 0, "capacity (%s) must be > 0", capacity);
    checkArgument(
        bucketSize >= 1 && bucketSize <= MAX_BUCKET_SIZE,
        "bucket size (%s) must be in [1, %s]",
        bucketSize,
        MAX_BUCKET_SIZE);
    checkArgument(capacity <= 1L << 40, "capacity (%s) must be <= 2^40", capacity);
    checkArgument(
        maxIterations >= 1 && maxIterations <= MAX_ITERATIONS,
        "max iterations (%s) must be in [1, %s]",
        maxIterations,
        MAX_ITERATIONS);
    double load = loadTarget(bucketSize, maxIterations);
    return Math.max(1, (long) Math.ceil(capacity / (bucketSize * load)));
  }

  /** 1 - (1 - 1/(2^f - 1))^(2 * items / buckets): some compared slot matches by chance. */
  static double expectedRate(long items, long buckets, int fingerprintBits) {
    double compared = 2.0 * items / buckets;
    double miss = Math.log1p(-1.0 / ((1L << fingerprintBits) - 1));
    return fingerprintBits == 1 ? Math.min(1.0, compared) : -Math.expm1(compared * miss);
  }

  @Override
  public boolean add(long h1, long h2) {
    if (mightContain(h1, h2)) {
      return false;
    }
    insert(h1, h2);
    return true;
  }

  /**
   * Adds one more copy of the item, present or not (CF.ADD).
   *
   * @throws FilterFullException if kicks fail and the filter cannot grow
   */
  public void insert(long h1, long h2) {
    insert(h1, h2, true);
  }

  /**
   * Adds one more copy of the item, present or not, growing only if {@code mayGrow}: a server
   * passes false when the next sub-table ({@link #growthBytes}) would not fit its memory.
   *
   * @throws FilterFullException if kicks fail and the filter cannot or may not grow; the filter is
   *     then unchanged
   */
  public void insert(long h1, long h2, boolean mayGrow) {
    long fp = fingerprint(h2);
    long mixed = mix(fp);
    for (int t = tables.size() - 1; t >= 0; t--) {
      Table table = tables.get(t);
      long i1 = Long.remainderUnsigned(h1, table.buckets);
      if (table.place(i1, fp) || table.place(table.alternate(i1, mixed), fp)) {
        items++;
        return;
      }
    }
    Table newest = tables.getLast();
    if (kick(newest, Long.remainderUnsigned(h1, newest.buckets), fp, kickSeed(h1, h2, items))) {
      items++;
      return;
    }
    if (!mayGrow && expansion != 0 && tables.size() < MAX_TABLES) {
      throw new FilterFullException("Filter is full: growing was not allowed");
    }
    Table grown = grow();
    grown.place(Long.remainderUnsigned(h1, grown.buckets), fp);
    items++;
  }

  /** The victim sequence's seed: only what a snapshot holds and what the operation brings. */
  private static long kickSeed(long h1, long h2, long items) {
    long z = h1 ^ Long.rotateLeft(h2, 29) ^ items * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private boolean kick(Table table, long bucket, long fp, long seed) {
    if (kickBuckets.length < maxIterations) {
      kickBuckets = new long[maxIterations];
      kickSlots = new int[maxIterations];
    }
    long random = seed; // LCG state: victims are picked by its high bits
    long carried = fp;
    long at = bucket;
    for (int n = 0; n < maxIterations; n++) {
      random = random * 6364136223846793005L + 1442695040888963407L;
      int victim = (int) Math.unsignedMultiplyHigh(random, bucketSize);
      long slotIndex = at * bucketSize + victim;
      long evicted = table.get(slotIndex);
      table.set(slotIndex, carried);
      kickBuckets[n] = at;
      kickSlots[n] = victim;
      carried = evicted;
      at = table.alternate(at, mix(carried));
      if (table.place(at, carried)) {
        return true;
      }
    }
    // Undo: walk the chain back, putting each evicted fingerprint where it was.
    for (int n = maxIterations - 1; n >= 0; n--) {
      long slotIndex = kickBuckets[n] * bucketSize + kickSlots[n];
      long here = table.get(slotIndex);
      table.set(slotIndex, carried);
      carried = here;
    }
    return false;
  }

  /** Hashes the item with {@link Hash128}. */
  @Override
  public void hash(byte[] item, long[] pair) {
    new Hash128().hash(item).into(pair);
  }

  @Override
  public Insert insert(long h1, long h2, boolean unique, boolean mayGrow) {
    if (unique && mightContain(h1, h2)) {
      return Insert.EXISTS;
    }
    try {
      insert(h1, h2, mayGrow);
      return Insert.INSERTED;
    } catch (FilterFullException e) {
      return expansion == 0 ? Insert.NO_SPACE : Insert.TOO_LARGE;
    }
  }

  @Override
  public long bytesOfNextFilter() {
    return growthBytes();
  }

  @Override
  public boolean atFilterLimit() {
    return tables.size() >= MAX_TABLES;
  }

  @Override
  public int filterCount() {
    return tables.size();
  }

  /**
   * CF.DEL's change, also what a log replays: removes one copy, then compacts as RedisBloom does
   * once the filter has grown and deletes pass a tenth of the items (which resets the count).
   */
  @Override
  public boolean delete(long h1, long h2) {
    if (!remove(h1, h2)) {
      return false;
    }
    if (tables.size() > 1 && deleteCount() > itemCount() * 0.10) {
      compactNewest();
    }
    return true;
  }

  /**
   * Bytes the next sub-table would take, or -1 if the filter cannot grow: expansion 0, {@link
   * #MAX_TABLES} reached, or a table over the size limit.
   */
  public long growthBytes() {
    if (expansion == 0 || tables.size() >= MAX_TABLES) {
      return -1;
    }
    double buckets = tables.getFirst().buckets * Math.pow(expansion, tables.size());
    if (buckets * bucketSize * fingerprintBits > MAX_TABLE_BITS) {
      return -1;
    }
    return Table.wordsFor((long) buckets, bucketSize, fingerprintBits) * 8;
  }

  private Table grow() {
    if (expansion == 0) {
      throw new FilterFullException("Filter is full");
    }
    if (tables.size() >= MAX_TABLES) {
      throw new FilterFullException("Maximum expansions reached");
    }
    double buckets = tables.getFirst().buckets * Math.pow(expansion, tables.size());
    if (buckets * bucketSize * fingerprintBits > MAX_TABLE_BITS) {
      throw new FilterFullException("Filter is full: the next sub-table would be too large");
    }
    Table table = new Table((long) buckets, bucketSize, fingerprintBits);
    tables.add(table);
    return table;
  }

  @Override
  public boolean mightContain(long h1, long h2) {
    long fp = fingerprint(h2);
    long mixed = mix(fp);
    for (int t = tables.size() - 1; t >= 0; t--) {
      Table table = tables.get(t);
      long i1 = Long.remainderUnsigned(h1, table.buckets);
      if (table.find(i1, fp) >= 0 || table.find(table.alternate(i1, mixed), fp) >= 0) {
        return true;
      }
    }
    return false;
  }

  /** Clears one copy of the item's fingerprint, newest sub-table first. See the delete contract. */
  @Override
  public boolean remove(long h1, long h2) {
    long fp = fingerprint(h2);
    long mixed = mix(fp);
    for (int t = tables.size() - 1; t >= 0; t--) {
      Table table = tables.get(t);
      long i1 = Long.remainderUnsigned(h1, table.buckets);
      long slot = table.find(i1, fp);
      if (slot < 0) {
        slot = table.find(table.alternate(i1, mixed), fp);
      }
      if (slot >= 0) {
        table.clear(slot);
        items--;
        deletes++;
        return true;
      }
    }
    return false;
  }

  /** Copies of the item's fingerprint in its buckets (a bucket that is both is counted once). */
  @Override
  public long count(long h1, long h2) {
    long fp = fingerprint(h2);
    long mixed = mix(fp);
    long n = 0;
    for (Table table : tables) {
      long i1 = Long.remainderUnsigned(h1, table.buckets);
      long i2 = table.alternate(i1, mixed);
      n += table.countIn(i1, fp);
      if (i2 != i1) {
        n += table.countIn(i2, fp);
      }
    }
    return n;
  }

  /**
   * Moves fingerprints from newer sub-tables into free slots of older ones and drops newer
   * sub-tables that empty, as CF.COMPACT does. Resets the delete count.
   *
   * @return whether anything changed: a fingerprint moved, a sub-table went, or the delete count
   *     was reset
   */
  @Override
  public boolean compact() {
    return compact(false);
  }

  /**
   * Compacts as RedisBloom does after a delete: newest sub-table first, stopping at the first one
   * that cannot be emptied, since no older sub-table can be dropped while it stays. Resets the
   * delete count. Returns whether anything changed.
   */
  public boolean compactNewest() {
    return compact(true);
  }

  private boolean compact(boolean stopAtFirstKept) {
    boolean changed = deletes != 0;
    for (int t = tables.size() - 1; t >= 1; t--) {
      Table table = tables.get(t);
      boolean empty = true;
      for (long slot = 0; slot < table.buckets * bucketSize; slot++) {
        long fp = table.get(slot);
        if (fp != 0) {
          if (relocate(slot / bucketSize, fp, t)) {
            table.clear(slot);
            changed = true;
          } else {
            empty = false;
          }
        }
      }
      if (empty && t == tables.size() - 1) {
        tables.removeLast();
        changed = true;
      } else if (!empty && stopAtFirstKept) {
        break;
      }
    }
    deletes = 0;
    return changed;
  }

  private boolean relocate(long bucket, long fp, int below) {
    long mixed = mix(fp);
    for (int t = 0; t < below; t++) {
      Table older = tables.get(t);
      long i1 = bucket % older.buckets;
      if (older.place(i1, fp) || older.place(older.alternate(i1, mixed), fp)) {
        return true;
      }
    }
    return false;
  }

  private long fingerprint(long h2) {
    return 1 + Math.unsignedMultiplyHigh(h2, fingerprintValues);
  }

  private static long mix(long fp) {
    long z = fp * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 32)) * 0xD6E8FEB86659FD93L;
    return z ^ (z >>> 32);
  }

  @Override
  public boolean supports(Capability capability) {
    return capability == Capability.REMOVE || capability == Capability.COUNT;
  }

  /** The capacity asked for; sub-tables added by growth are not counted. */
  @Override
  public long capacity() {
    return capacity;
  }

  @Override
  public long itemCount() {
    return items;
  }

  @Override
  public long deleteCount() {
    return deletes;
  }

  public int tableCount() {
    return tables.size();
  }

  /** Buckets of the first sub-table, as CF.INFO reports them. */
  @Override
  public long bucketCount() {
    return tables.getFirst().buckets;
  }

  @Override
  public int bucketSize() {
    return bucketSize;
  }

  public int fingerprintBits() {
    return fingerprintBits;
  }

  @Override
  public int maxIterations() {
    return maxIterations;
  }

  public int expansion() {
    return expansion;
  }

  /** The 64-bit words that hold sub-table t's slots. */
  public long wordCount(int table) {
    return tables.get(table).words.length;
  }

  /**
   * Copies words {@code [from, from + count)} of sub-table t into {@code dst} at {@code offset},
   * each as 8 big-endian bytes, the order of the format (see the table below).
   */
  public void copyWords(int table, long from, int count, byte[] dst, int offset) {
    long[] words = tables.get(table).words;
    Objects.checkFromIndexSize(from, count, words.length);
    Objects.checkFromIndexSize((long) offset, count * 8L, dst.length);
    for (int i = 0; i < count; i++) {
      LONG_BE.set(dst, offset + 8 * i, words[(int) from + i]);
    }
  }

  /**
   * Overwrites words {@code [from, from + count)} of sub-table t with {@code count} big-endian
   * words read from {@code src} at {@code offset}: a chunk of a dump. The item count follows the
   * fingerprints stored, so it stays true whatever arrives. Checks everything before changing
   * anything.
   *
   * @throws IllegalArgumentException if the range is outside the sub-table, or the chunk sets bits
   *     past the sub-table's last slot (which no filter writes)
   */
  public void loadWords(int table, long from, int count, byte[] src, int offset) {
    checkArgument(table >= 0 && table < tables.size(), "sub-table (%s) does not exist", table);
    Table t = tables.get(table);
    checkArgument(
        from >= 0 && count >= 0 && from + count <= t.words.length,
        "words [%s, %s) are outside sub-table %s of %s words",
        from,
        from + count,
        table,
        t.words.length);
    Objects.checkFromIndexSize((long) offset, count * 8L, src.length);
    long slotBits = t.buckets * bucketSize * fingerprintBits;
    if (count > 0 && from + count == t.words.length && slotBits % 64 != 0) {
      long last = (long) LONG_BE.get(src, offset + 8 * (count - 1));
      checkArgument(
          last >>> (slotBits % 64) == 0, "sub-table %s has bits set past its last slot", table);
    }
    // Slots the words touch, whole: with widths that do not divide 64 a slot may straddle two.
    long firstSlot = from * 64 / fingerprintBits;
    long endSlot =
        Math.min(
            t.buckets * bucketSize, ((from + count) * 64 + fingerprintBits - 1) / fingerprintBits);
    long before = t.countOccupied(firstSlot, endSlot);
    for (int i = 0; i < count; i++) {
      t.words[(int) from + i] = (long) LONG_BE.get(src, offset + 8 * i);
    }
    long after = t.countOccupied(firstSlot, endSlot);
    t.occupied += after - before;
    items += after - before;
  }

  @Override
  public long sizeInBytes() {
    long sum = 0;
    for (Table table : tables) {
      sum += (long) table.words.length * 8;
    }
    return sum;
  }

  @Override
  public double configuredErrorRate() {
    return errorRate;
  }

  /** 1 - product over sub-tables of (1 - that table's rate at its current load). */
  @Override
  public double estimatedFalsePositiveRate() {
    long stored = 0;
    double pass = 1;
    for (Table table : tables) {
      stored += table.occupied;
      pass *= 1 - expectedRate(table.occupied, table.buckets, fingerprintBits);
    }
    return stored == 0 ? 0 : 1 - pass;
  }

  // ---- CF.SCANDUMP and CF.LOADCHUNK, in CuckooDump's bytes

  @Override
  public byte[] dumpHeader() {
    return CuckooDump.header(this);
  }

  @Override
  public DumpChunk dumpChunk(long iterator) throws BadDumpException {
    try {
      return CuckooDump.chunk(this, iterator, CuckooDump.MAX_CHUNK_WORDS);
    } catch (IOException e) {
      throw new BadDumpException(CuckooDump.INVALID_POSITION, e.getMessage());
    }
  }

  @Override
  public void loadChunk(long iterator, byte[] data) throws BadDumpException {
    try {
      CuckooDump.load(this, iterator, data, CuckooDump.MAX_CHUNK_WORDS);
    } catch (IOException e) {
      throw new BadDumpException(CuckooDump.CANNOT_LOAD, e.getMessage());
    }
  }

  /**
   * The empty filter a header of {@link #dumpHeader} declares: a recipe the caller trusts, so it
   * asks no memory first (see {@link ScalableCuckoo#fromHeader} for a client's header).
   *
   * @throws IOException naming the first field that is wrong
   */
  public static CuckooFilter fromHeader(byte[] header) throws IOException {
    return CuckooDump.build(CuckooDump.parseHeader(header));
  }

  @Override
  public FormatFamily family() {
    return FormatFamily.CUCKOO;
  }

  /*
   * Cuckoo format, version 1: the frame of FormatInput, family 3, with this body:
   *
   * offset  size  field
   * 0       8     capacity asked for (1 .. 2^40)
   * 8       8     configured error rate, IEEE 754 double in (0, 1]
   * 16      1     fingerprint bits f (1 .. 32)
   * 17      1     bucket size b (1 .. 255)
   * 18      2     max iterations (1 .. 65535)
   * 20      2     expansion (0 .. 32768)
   * 22      1     sub-tables (1 .. 32)
   * 23      8     items stored (must equal the non-zero slots)
   * 31      8     deletes since the last compaction (>= 0)
   * 39      ...   each sub-table, oldest first: 8 bytes of buckets (sub-table t has
   *               buckets(0) * expansion^t), then ceil(buckets * b * f / 64) words; slot s
   *               occupies bits [s*f, s*f + f) of the words read as one little-endian bit string
   */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    FormatOutput f =
        FormatOutput.begin(out, FormatFamily.CUCKOO, FORMAT_VERSION, Hash128.FUNCTION_ID);
    f.writeLong(capacity);
    f.writeDouble(errorRate);
    f.writeByte(fingerprintBits);
    f.writeByte(bucketSize);
    f.writeShort(maxIterations);
    f.writeShort(expansion);
    f.writeByte(tables.size());
    f.writeLong(items);
    f.writeLong(deletes);
    for (Table table : tables) {
      f.writeLong(table.buckets);
      f.writeLongs(table.words, 0, table.words.length);
    }
    f.finish();
  }

  /** Reads a filter written by {@link #writeTo}, of at most {@code maxBytes} bytes. */
  public static CuckooFilter readFrom(InputStream in, long maxBytes) throws IOException {
    FormatInput f =
        FormatInput.begin(in, FormatFamily.CUCKOO, FORMAT_VERSION, Hash128.FUNCTION_ID, maxBytes);
    long capacity = f.readLong();
    if (capacity < 1 || capacity > 1L << 40) {
      throw FormatInput.invalid("cuckoo capacity", capacity, "must be in [1, 2^40]");
    }
    double errorRate = f.readDouble();
    if (!(errorRate > 0 && errorRate <= 1)) {
      throw FormatInput.invalid("cuckoo error rate", errorRate, "must be in (0, 1]");
    }
    int fpBits = f.readUnsignedByte();
    if (fpBits < 1 || fpBits > MAX_FINGERPRINT_BITS) {
      throw FormatInput.invalid("fingerprint bits", fpBits, "must be in [1, 32]");
    }
    int bucketSize = f.readUnsignedByte();
    if (bucketSize < 1) {
      throw FormatInput.invalid("bucket size", bucketSize, "must be in [1, 255]");
    }
    int maxIterations = f.readUnsignedShort();
    if (maxIterations < 1) {
      throw FormatInput.invalid("max iterations", maxIterations, "must be in [1, 65535]");
    }
    int expansion = f.readUnsignedShort();
    if (expansion > MAX_EXPANSION) {
      throw FormatInput.invalid("expansion", expansion, "must be in [0, " + MAX_EXPANSION + "]");
    }
    int tableCount = f.readUnsignedByte();
    if (tableCount < 1 || tableCount > MAX_TABLES || (expansion == 0 && tableCount != 1)) {
      throw FormatInput.invalid(
          "sub-table count", tableCount, "must be in [1, 32], and 1 when expansion is 0");
    }
    long items = f.readLong();
    long deletes = f.readLong();
    if (items < 0 || deletes < 0) {
      throw FormatInput.invalid("items/deletes", items + "/" + deletes, "must be >= 0");
    }
    List<Table> tables = new ArrayList<>();
    long firstBuckets = 0;
    for (int t = 0; t < tableCount; t++) {
      long buckets = f.readLong();
      double expected = t == 0 ? buckets : firstBuckets * Math.pow(expansion, t);
      if (buckets < 1 || buckets != expected) {
        throw FormatInput.invalid(
            "sub-table " + t + " buckets", buckets, "must be buckets(0) * expansion^" + t);
      }
      if ((double) buckets * bucketSize * fpBits > MAX_TABLE_BITS) {
        throw FormatInput.invalid("sub-table " + t + " buckets", buckets, "is too large");
      }
      if (t == 0) {
        firstBuckets = buckets;
      }
      long words = Table.wordsFor(buckets, bucketSize, fpBits);
      tables.add(new Table(buckets, bucketSize, fpBits, f.readLongs(words, "sub-table " + t)));
    }
    f.finish();
    long stored = 0;
    for (Table table : tables) {
      stored += table.occupied;
    }
    if (stored != items) {
      throw new IOException(
          "cuckoo items (" + items + ") does not match the " + stored + " fingerprints stored");
    }
    CuckooFilter filter =
        new CuckooFilter(capacity, errorRate, fpBits, bucketSize, maxIterations, expansion, tables);
    filter.items = items;
    filter.deletes = deletes;
    return filter;
  }

  @Override
  public String toString() {
    return "CuckooFilter{tables="
        + tables.size()
        + ", buckets="
        + bucketCount()
        + "x"
        + bucketSize
        + ", fingerprintBits="
        + fingerprintBits
        + ", items="
        + items
        + "}";
  }

  /** One sub-table: buckets of bucketSize slots of f bits, packed into longs. */
  private static final class Table {
    final long buckets;
    final int bucketSize;
    final int bits;
    final long mask;
    final long[] words;

    /** Non-zero slots. */
    long occupied;

    Table(long buckets, int bucketSize, int bits) {
      this(buckets, bucketSize, bits, new long[(int) wordsFor(buckets, bucketSize, bits)]);
    }

    Table(long buckets, int bucketSize, int bits, long[] words) {
      this.buckets = buckets;
      this.bucketSize = bucketSize;
      this.bits = bits;
      this.mask = (1L << bits) - 1;
      this.words = words;
      this.occupied = countOccupied();
    }

    static long wordsFor(long buckets, int bucketSize, int bits) {
      return (buckets * bucketSize * bits + 63) / 64;
    }

    long alternate(long bucket, long mixedFingerprint) {
      long alt = Long.remainderUnsigned(mixedFingerprint, buckets) - bucket;
      return alt < 0 ? alt + buckets : alt;
    }

    long get(long slot) {
      long bit = slot * bits;
      int w = (int) (bit >>> 6);
      int off = (int) (bit & 63);
      long v = words[w] >>> off;
      if (off + bits > 64) {
        v |= words[w + 1] << (64 - off);
      }
      return v & mask;
    }

    void set(long slot, long value) {
      long bit = slot * bits;
      int w = (int) (bit >>> 6);
      int off = (int) (bit & 63);
      words[w] = (words[w] & ~(mask << off)) | (value << off);
      if (off + bits > 64) {
        int spill = 64 - off;
        words[w + 1] = (words[w + 1] & ~(mask >>> spill)) | (value >>> spill);
      }
    }

    /** The slot in {@code bucket} holding {@code fp}, or -1. */
    long find(long bucket, long fp) {
      long first = bucket * bucketSize;
      for (int j = 0; j < bucketSize; j++) {
        if (get(first + j) == fp) {
          return first + j;
        }
      }
      return -1;
    }

    int countIn(long bucket, long fp) {
      long first = bucket * bucketSize;
      int n = 0;
      for (int j = 0; j < bucketSize; j++) {
        if (get(first + j) == fp) {
          n++;
        }
      }
      return n;
    }

    /** Puts {@code fp} in a free slot of {@code bucket}; false if the bucket is full. */
    boolean place(long bucket, long fp) {
      long free = find(bucket, 0);
      if (free < 0) {
        return false;
      }
      set(free, fp);
      occupied++;
      return true;
    }

    void clear(long slot) {
      set(slot, 0);
      occupied--;
    }

    private long countOccupied() {
      return countOccupied(0, buckets * bucketSize);
    }

    /** Non-zero slots in {@code [from, to)}. */
    long countOccupied(long from, long to) {
      long n = 0;
      for (long slot = from; slot < to; slot++) {
        if (get(slot) != 0) {
          n++;
        }
      }
      return n;
    }
  }
}
