package io.idem.core.filter;

import static io.idem.core.Checks.checkArgument;

import io.idem.core.format.FormatFamily;
import io.idem.core.format.FormatInput;
import io.idem.core.format.FormatOutput;
import io.idem.core.hash.Hash128;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/** A Bloom filter whose k probes for one item all land in one 64-byte block. Thread-safe. */
public final class BloomFilter implements MembershipFilter {
  /*
   * Design: a blocked Bloom filter [Putze, Sanders, Singler 2007]. The item's h1 picks one
   * 512-bit block (a cache line's size) by multiply-high, so the block count is whatever sizing
   * asks for, never a power of two; h2 times k fixed odd constants gives the k bit positions
   * inside the block, so each operation reads 64 adjacent bytes.
   *
   * Storage (Storage): by default a filter of at least OFF_HEAP_MIN_BYTES keeps its bits off the
   * heap, in memory aligned to 64 bytes, so that each block is exactly one cache line. In a long[]
   * the blocks start 16 bytes into an object the JVM aligns to 8 (G1 puts a large array at a
   * region's start), so nearly every block spans two lines and a lookup out of cache waits for
   * two; batched lookups took markedly less time aligned when the host's memory was slow, and as
   * long when it was quiet (BENCHMARKS.md). Smaller filters stay in a long[]: they mostly sit
   * in cache, where alignment matters little, and an off-heap allocation costs a cleaner and a
   * native allocation each.
   *
   * Sizing: a block's load is Poisson(n / blocks); the expected false-positive rate is the mean,
   * over that distribution, of a 512-bit Bloom filter's rate at that load. Sizing searches k and
   * the block count for the fewest blocks whose expected rate at capacity is within the
   * configured one, so the rate holds at capacity despite the uneven loads.
   *
   * Concurrency: bits only ever go from 0 to 1. An add ORs each missing bit in atomically
   * (getAndBitwiseOr) and skips bits already set, so adds never lock. Two threads adding the same
   * new item at once may both be told it was new; callers that need exactly one "new" lock the
   * key (the server does).
   */

  static final int FORMAT_VERSION = 1; // append-only; see FilterFormatTest
  static final int BLOCK_BITS = 512;
  static final int WORDS_PER_BLOCK = BLOCK_BITS / 64;
  static final int MAX_HASHES = 32;

  /** The most blocks: the format's and {@link #wordCount}'s int limit, 16 GiB. */
  static final long MAX_BLOCKS = (Integer.MAX_VALUE - 8) / WORDS_PER_BLOCK;

  /** The system property that chooses the lookup: {@code auto} (the default) or {@code scalar}. */
  public static final String PROBE_PROPERTY = "idem.bloom.probe";

  /**
   * Whether lookups use VectorProbe: when the JVM has the module jdk.incubator.vector ({@code
   * ./idem serve} adds it) and a C2 that compiles 512-bit vectors (AVX-512). {@code
   * -Didem.bloom.probe=scalar} forces the scalar loop; both give the same answers (tested). A value
   * that is neither is reported by {@link #probeModeError} (the CLI stops on it) and runs scalar.
   */
  static final boolean VECTOR = probeModeError() == null && usesVector(probeMode());

  /** Odd constants: probe i's bit is the top 9 bits of h2 * PROBE[i]. Append-only. */
  private static final long[] PROBE = ProbeMultipliers.all();

  static final int BLOCK_BYTES = BLOCK_BITS / 8;

  /** With {@link Storage#ALIGNED}, filters of at least this many bytes keep their bits off heap. */
  static final long OFF_HEAP_MIN_BYTES = 1 << 20;

  /** A word of the bit array: native byte order, as the vector lookup loads it. */
  private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG;

  /** Atomic access to a word: coordinates (segment, byte offset). */
  private static final VarHandle WORDS = WORD.varHandle();

  private static final VarHandle LONG_BE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private final long capacity;
  private final double errorRate;
  private final int hashes;
  private final int blocks;
  private final Storage storage;
  private final MemorySegment words;
  private final LongAdder items = new LongAdder();

  private BloomFilter(
      long capacity,
      double errorRate,
      int hashes,
      int blocks,
      Storage storage,
      MemorySegment words) {
    this.capacity = capacity;
    this.errorRate = errorRate;
    this.hashes = hashes;
    this.blocks = blocks;
    this.storage = storage;
    this.words = words;
  }

  /** Where a filter keeps its bits. Both give the same answers and the same format. */
  public enum Storage {
    /**
     * From 1 MiB, off the heap with each 64-byte block on a cache line: one line a lookup, the
     * fastest out of cache. The memory is freed only when the filter is garbage-collected, and it
     * counts against {@code -XX:MaxDirectMemorySize} (by default the maximum heap), not the heap.
     * Smaller filters are as with HEAP.
     */
    ALIGNED,
    /**
     * A long[] on the heap: within -Xmx and freed with the rest of the heap, but nearly every block
     * spans two cache lines. For a process that budgets its memory by the heap and drops many large
     * filters (the server).
     */
    HEAP
  }

  /** A filter for {@code capacity} items at false-positive rate {@code errorRate}: ALIGNED. */
  public static BloomFilter create(long capacity, double errorRate) {
    return create(capacity, errorRate, Storage.ALIGNED);
  }

  /** A filter for {@code capacity} items at false-positive rate {@code errorRate} at capacity. */
  public static BloomFilter create(long capacity, double errorRate, Storage storage) {
    Objects.requireNonNull(storage, "storage");
    Sizing s = sizing(capacity, errorRate);
    return new BloomFilter(
        capacity, errorRate, s.hashes(), s.blocks(), storage, allocate(s.blocks(), storage));
  }

  /**
   * An empty filter of an explicit shape whose item count starts at {@code items}: what a loader
   * builds from a dump's header before the bits arrive in chunks ({@link #orWords}). The ranges are
   * those of the format; the caller decides whether the memory may be spent.
   */
  public static BloomFilter ofShape(
      long capacity, double errorRate, int hashes, int blocks, long items, Storage storage) {
    checkArgument(
        capacity >= 1 && capacity <= 1L << 62, "capacity (%s) must be in [1, 2^62]", capacity);
    checkArgument(errorRate > 0 && errorRate < 1, "error rate (%s) must be in (0, 1)", errorRate);
    checkArgument(
        hashes >= 1 && hashes <= MAX_HASHES, "hashes (%s) must be in [1, %s]", hashes, MAX_HASHES);
    checkArgument(
        blocks >= 1 && blocks <= MAX_BLOCKS, "blocks (%s) must be in [1, %s]", blocks, MAX_BLOCKS);
    checkArgument(items >= 0, "items (%s) must be >= 0", items);
    Objects.requireNonNull(storage, "storage");
    BloomFilter f =
        new BloomFilter(capacity, errorRate, hashes, blocks, storage, allocate(blocks, storage));
    f.items.add(items);
    return f;
  }

  /** The shape a filter for this capacity and rate gets, without building it. */
  public static Sizing sizing(long capacity, double errorRate) {
    checkArgument(capacity > 0, "capacity (%s) must be > 0", capacity);
    checkArgument(errorRate > 0 && errorRate < 1, "error rate (%s) must be in (0, 1)", errorRate);
    long bestBlocks = Long.MAX_VALUE;
    int bestHashes = 0;
    for (int k = 1; k <= MAX_HASHES; k++) {
      long b = minBlocks(capacity, errorRate, k, Math.min(bestBlocks, MAX_BLOCKS));
      if (b < bestBlocks) {
        bestBlocks = b;
        bestHashes = k;
      }
    }
    checkArgument(
        bestHashes > 0,
        "capacity (%s) at error rate (%s) needs more than %s bytes",
        capacity,
        errorRate,
        MAX_BLOCKS * 64);
    return new Sizing(
        capacity,
        errorRate,
        (int) bestBlocks,
        bestHashes,
        falsePositiveRate(capacity, bestBlocks, bestHashes));
  }

  /** The shape of a blocked Bloom filter: its blocks, hashes and expected rate at capacity. */
  public record Sizing(
      long capacity, double errorRate, int blocks, int hashes, double expectedRate) {
    public long bits() {
      return (long) blocks * BLOCK_BITS;
    }

    public long bytes() {
      return bits() / 8;
    }

    public double bitsPerItem() {
      return (double) bits() / capacity;
    }

    /** The false-positive rate a filter of this shape has with {@code items} in it. */
    public double rateAt(long items) {
      return falsePositiveRate(items, blocks, hashes);
    }
  }

  /** Returns true if the item was certainly not present before this call. */
  @Override
  public boolean add(long h1, long h2) {
    MemorySegment w = words;
    long base = blockOffset(h1);
    boolean added = false;
    for (int i = 0; i < hashes; i++) {
      int bit = (int) ((h2 * PROBE[i]) >>> 55);
      long offset = base + (bit >>> 6) * 8L;
      long mask = 1L << bit;
      if ((w.get(WORD, offset) & mask) == 0) {
        long before = (long) WORDS.getAndBitwiseOr(w, offset, mask);
        added |= (before & mask) == 0;
      }
    }
    if (added) {
      items.increment();
    }
    return added;
  }

  /**
   * As {@link #add}, for a caller that holds the filter exclusively: every other add and lookup
   * runs under the same lock (a server value under its key's lock). The bits are set with plain
   * stores instead of one atomic read-modify-write per probe, each a full fence.
   */
  public boolean addExclusive(long h1, long h2) {
    MemorySegment w = words;
    long base = blockOffset(h1);
    boolean added = false;
    for (int i = 0; i < hashes; i++) {
      int bit = (int) ((h2 * PROBE[i]) >>> 55);
      long offset = base + (bit >>> 6) * 8L;
      long word = w.get(WORD, offset);
      long set = word | (1L << bit);
      added |= set != word;
      w.set(WORD, offset, set);
    }
    if (added) {
      items.increment();
    }
    return added;
  }

  /** The lookup: the vector one where this JVM allows it ({@link #probeKind}), else scalar. */
  @Override
  public boolean mightContain(long h1, long h2) {
    long base = blockOffset(h1);
    return VECTOR
        ? VectorProbe.mightContain(words, base, h2, hashes)
        : scalarMightContain(words, base, h2, hashes);
  }

  /**
   * Branch-free on purpose: all k probes read the same block, so stopping at the first clear bit
   * saves little, while the data-dependent branch it needs mispredicts on absent items and stops
   * the CPU from overlapping the cache misses of consecutive lookups.
   */
  static boolean scalarMightContain(MemorySegment w, long base, long h2, int hashes) {
    long missing = 0;
    for (int i = 0; i < hashes; i++) {
      int bit = (int) ((h2 * PROBE[i]) >>> 55);
      missing |= ~w.get(WORD, base + (bit >>> 6) * 8L) & (1L << bit);
    }
    return missing == 0;
  }

  /**
   * Looks up {@code count} items at once: {@code out[i] = mightContain(h1[i], h2[i])}. Out of cache
   * this measured about twice as fast per item as one call at a time with the hash computed in the
   * same loop (several times with the scalar lookup), probably because the out-of-order core
   * overlaps the cache misses of as many lookups as fit in its window of instructions, and here a
   * lookup is only its own few instructions, or, where it helps, a first pass fetches the blocks
   * ({@link #fetchThenLookup}).
   */
  public void mightContainAll(long[] h1, long[] h2, int count, boolean[] out) {
    Objects.checkFromIndexSize(0, count, Math.min(Math.min(h1.length, h2.length), out.length));
    // At 100 M items (BENCHMARKS.md, "One call at a time", and BloomLayout): the first pass speeds
    // the scalar lookup up several times and the vector lookup a little on blocks that sit on
    // cache lines (off the heap), but slows the vector lookup on the heap, where a block spans two
    // lines and the pass fetches one.
    if (!VECTOR || offHeapAligned()) {
      fetchThenLookup(h1, h2, count, out);
      return;
    }
    for (int i = 0; i < count; i++) {
      out[i] = mightContain(h1[i], h2[i]);
    }
  }

  /**
   * mightContainAll with a first pass: it reads the first word of each item's block, and those
   * loads, independent of each other and a few instructions each, wait for memory together instead
   * of a few at a time; the second pass then finds the blocks in cache (one line each, for a filter
   * off the heap). Checked by the caller.
   */
  void fetchThenLookup(long[] h1, long[] h2, int count, boolean[] out) {
    MemorySegment w = words;
    long fetched = 0;
    for (int start = 0; start < count; start += BATCH) {
      int end = Math.min(count, start + BATCH);
      for (int i = start; i < end; i++) {
        fetched ^= w.get(WORD, blockOffset(h1[i]));
      }
      for (int i = start; i < end; i++) {
        out[i] = mightContain(h1[i], h2[i]);
      }
    }
    if (fetched == FETCH_SENTINEL) {
      fetchSink = fetched; // never read: only keeps the compiler from dropping the first pass
    }
  }

  /** Items whose blocks are fetched together (32 measured faster than 16: BENCHMARKS.md). */
  private static final int BATCH = 32;

  private static final long FETCH_SENTINEL = 0x1DE3_1DE3_1DE3_1DE3L;

  @SuppressWarnings("unused")
  private static long fetchSink;

  private static String probeMode() {
    return System.getProperty(PROBE_PROPERTY, "auto");
  }

  /** What is wrong with this JVM's {@code -Didem.bloom.probe}, or null if nothing is. */
  public static String probeModeError() {
    String mode = probeMode();
    return mode.equals("auto") || mode.equals("scalar")
        ? null
        : "system property " + PROBE_PROPERTY + " must be auto or scalar, not '" + mode + "'";
  }

  /** Whether a valid mode takes the vector lookup here. VectorProbe loads only with the module. */
  static boolean usesVector(String mode) {
    return mode.equals("auto")
        && ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()
        && VectorProbe.native512();
  }

  /** How lookups run in this JVM: "vector512" or "scalar" (for logs and INFO). */
  public static String probeKind() {
    return VECTOR ? "vector512" : "scalar";
  }

  /** The byte offset of h1's block: multiply-high maps h1 onto [0, blocks) evenly. */
  private long blockOffset(long h1) {
    return Math.unsignedMultiplyHigh(h1, blocks) * BLOCK_BYTES;
  }

  /**
   * Zeroed words for {@code blocks} blocks: off the heap and block-aligned if ALIGNED and large.
   */
  private static MemorySegment allocate(int blocks, Storage storage) {
    long bytes = (long) blocks * BLOCK_BYTES;
    return offHeap(bytes, storage)
        ? Arena.ofAuto().allocate(bytes, BLOCK_BYTES)
        : MemorySegment.ofArray(new long[blocks * WORDS_PER_BLOCK]);
  }

  private static boolean offHeap(long bytes, Storage storage) {
    return storage == Storage.ALIGNED && bytes >= OFF_HEAP_MIN_BYTES;
  }

  /** The storage this filter was made with (a small ALIGNED filter is on the heap all the same). */
  public Storage storage() {
    return storage;
  }

  /** Whether the bits live off the heap with every block on a 64-byte boundary (one line each). */
  boolean offHeapAligned() {
    return words.isNative() && words.address() % BLOCK_BYTES == 0;
  }

  @Override
  public boolean supports(Capability capability) {
    return capability == Capability.MERGE;
  }

  /**
   * ORs in every bit of {@code other}, which must have the same blocks and hashes. The item count
   * becomes the sum of both, an upper bound when the two sets overlap.
   */
  @Override
  public void mergeFrom(MembershipFilter other) {
    checkArgument(
        other instanceof BloomFilter b && b.blocks == blocks && b.hashes == hashes,
        "can only merge a BloomFilter of %s blocks and %s hashes, not %s",
        blocks,
        hashes,
        other);
    BloomFilter b = (BloomFilter) other;
    for (long offset = 0; offset < words.byteSize(); offset += 8) {
      long bits = b.words.get(WORD, offset);
      if (bits != 0) {
        WORDS.getAndBitwiseOr(words, offset, bits);
      }
    }
    items.add(b.itemCount());
  }

  @Override
  public long capacity() {
    return capacity;
  }

  @Override
  public long itemCount() {
    return items.sum();
  }

  /** Blocks of 64 bytes; exactly what sizing asked for. */
  public int blocks() {
    return blocks;
  }

  public int hashes() {
    return hashes;
  }

  public long bitSize() {
    return (long) blocks * BLOCK_BITS;
  }

  /** The bit array's length in 64-bit words, 8 per block. */
  public int wordCount() {
    return blocks * WORDS_PER_BLOCK;
  }

  /**
   * Copies words {@code [from, from + count)} of the bit array into {@code dst} at {@code offset},
   * each as 8 big-endian bytes: the order of the bit array in the format (see the table below).
   */
  public void copyWords(int from, int count, byte[] dst, int offset) {
    Objects.checkFromIndexSize(from, count, wordCount());
    Objects.checkFromIndexSize((long) offset, count * 8L, dst.length);
    for (int i = 0; i < count; i++) {
      LONG_BE.set(dst, offset + 8 * i, words.getAtIndex(WORD, from + i));
    }
  }

  /**
   * ORs {@code count} big-endian words read from {@code src} at {@code offset} into words {@code
   * [from, from + count)}: bits only go from 0 to 1, so items already present stay present. The
   * item count is unchanged.
   */
  public void orWords(int from, int count, byte[] src, int offset) {
    Objects.checkFromIndexSize(from, count, wordCount());
    Objects.checkFromIndexSize((long) offset, count * 8L, src.length);
    MemorySegment w = words;
    for (int i = 0; i < count; i++) {
      long bits = (long) LONG_BE.get(src, offset + 8 * i);
      long at = (from + i) * 8L;
      if ((bits & ~w.get(WORD, at)) != 0) {
        WORDS.getAndBitwiseOr(w, at, bits);
      }
    }
  }

  @Override
  public long sizeInBytes() {
    return words.byteSize();
  }

  @Override
  public double configuredErrorRate() {
    return errorRate;
  }

  @Override
  public double estimatedFalsePositiveRate() {
    return falsePositiveRate(itemCount(), blocks, hashes);
  }

  /** Whether the item count reached the capacity. */
  public boolean isFull() {
    return itemCount() >= capacity;
  }

  @Override
  public FormatFamily family() {
    return FormatFamily.BLOOM;
  }

  /*
   * Bloom format, version 1: the frame of FormatInput, family 1, with this body (big-endian):
   *
   * offset  size        field
   * 0       8           capacity, items (1 .. 2^62)
   * 8       8           configured error rate, IEEE 754 double in (0, 1)
   * 16      1           hashes k (1 .. 32)
   * 17      4           blocks (1 .. 268435454)
   * 21      8           items inserted (>= 0)
   * 29      64*blocks   the bits: 8 words per block, word w bit b is block bit 64w + b
   *
   * Adds that complete before writeTo starts are in the bytes; concurrent ones may be.
   */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    FormatOutput f =
        FormatOutput.begin(out, FormatFamily.BLOOM, FORMAT_VERSION, Hash128.FUNCTION_ID);
    writeBody(f);
    f.finish();
  }

  /** Reads a filter written by {@link #writeTo}, of at most {@code maxBytes} bytes: ALIGNED. */
  public static BloomFilter readFrom(InputStream in, long maxBytes) throws IOException {
    return readFrom(in, maxBytes, Storage.ALIGNED);
  }

  /** Reads a filter written by {@link #writeTo}, of at most {@code maxBytes} bytes. */
  public static BloomFilter readFrom(InputStream in, long maxBytes, Storage storage)
      throws IOException {
    FormatInput f =
        FormatInput.begin(in, FormatFamily.BLOOM, FORMAT_VERSION, Hash128.FUNCTION_ID, maxBytes);
    BloomFilter filter = readBody(f, storage);
    f.finish();
    return filter;
  }

  void writeBody(FormatOutput f) throws IOException {
    f.writeLong(capacity);
    f.writeDouble(errorRate);
    f.writeByte(hashes);
    f.writeInt(blocks);
    f.writeLong(itemCount());
    for (long offset = 0; offset < words.byteSize(); offset += 8) {
      f.writeLong(words.get(WORD, offset));
    }
  }

  static BloomFilter readBody(FormatInput f, Storage storage) throws IOException {
    long capacity = f.readLong();
    if (capacity < 1 || capacity > 1L << 62) {
      throw FormatInput.invalid("bloom capacity", capacity, "must be in [1, 2^62]");
    }
    double errorRate = f.readDouble();
    if (!(errorRate > 0 && errorRate < 1)) {
      throw FormatInput.invalid("bloom error rate", errorRate, "must be in (0, 1)");
    }
    int hashes = f.readUnsignedByte();
    if (hashes < 1 || hashes > MAX_HASHES) {
      throw FormatInput.invalid("bloom hashes", hashes, "must be in [1, " + MAX_HASHES + "]");
    }
    long blocks = f.readInt() & 0xffffffffL;
    if (blocks < 1 || blocks > MAX_BLOCKS) {
      throw FormatInput.invalid("bloom blocks", blocks, "must be in [1, " + MAX_BLOCKS + "]");
    }
    long items = f.readLong();
    if (items < 0) {
      throw FormatInput.invalid("bloom items", items, "must be >= 0");
    }
    // readLongs grows its array only as the bytes arrive, so a header that lies about the blocks
    // costs little; a large ALIGNED filter is then copied off the heap (both exist for a moment).
    long[] read = f.readLongs(blocks * WORDS_PER_BLOCK, "bloom bit array");
    MemorySegment onHeap = MemorySegment.ofArray(read);
    MemorySegment words =
        offHeap(onHeap.byteSize(), storage)
            ? allocate((int) blocks, storage).copyFrom(onHeap)
            : onHeap;
    BloomFilter filter = new BloomFilter(capacity, errorRate, hashes, (int) blocks, storage, words);
    filter.items.add(items);
    return filter;
  }

  /** The fewest blocks, at most {@code limit}, for which k hashes meet the rate; else MAX. */
  static long minBlocks(long capacity, double errorRate, int k, long limit) {
    if (falsePositiveRate(capacity, limit, k) > errorRate) {
      return Long.MAX_VALUE;
    }
    long lo = 1;
    long hi = limit;
    while (lo < hi) {
      long mid = (lo + hi) >>> 1;
      if (falsePositiveRate(capacity, mid, k) <= errorRate) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  /**
   * The expected false-positive rate of {@code blocks} 512-bit blocks with k probes holding n
   * items: the mean over the Poisson(n / blocks) block load of (1 - (1 - 1/512)^(k*load))^k.
   */
  static double falsePositiveRate(long n, long blocks, int k) {
    if (n == 0) {
      return 0;
    }
    double lambda = (double) n / blocks;
    double missPerProbe = Math.log1p(-1.0 / BLOCK_BITS);
    if (lambda > 10_000) {
      // Every block is saturated: the spread of loads no longer matters (and would cost ~sqrt(n)).
      return blockRate((int) Math.min(lambda, Integer.MAX_VALUE), k, missPerProbe);
    }
    int mode = (int) lambda;
    // Poisson pmf at the mode in log space (no underflow for large lambda), then walk both ways.
    double logPmfMode = -lambda + mode * Math.log(lambda) - logFactorial(mode);
    double sum = 0;
    double pmf = Math.exp(logPmfMode);
    for (int load = mode; ; load++) {
      sum += pmf * blockRate(load, k, missPerProbe);
      if (pmf < 1e-20 && load > lambda) {
        break;
      }
      pmf *= lambda / (load + 1);
    }
    pmf = Math.exp(logPmfMode);
    for (int load = mode - 1; load >= 0; load--) {
      pmf *= (load + 1) / lambda;
      sum += pmf * blockRate(load, k, missPerProbe);
      if (pmf < 1e-20) {
        break;
      }
    }
    return Math.min(1.0, sum);
  }

  /**
   * A block's rate at a given load. Each of the load's items set k bits drawn with replacement, so
   * a bit is set with probability p = 1 - (1 - 1/512)^(k * load); the query's k probes are drawn
   * the same way and may repeat, so they test d distinct bits, with d distributed as below, and the
   * rate is the mean of p^d. (Taking p^k, as the textbook formula does, undercounts the rate by
   * about 4% at k = 12: measured.)
   */
  private static double blockRate(int load, int k, double missPerProbe) {
    double p = -Math.expm1(missPerProbe * k * load);
    double[] distinct = DISTINCT_PROBES[k];
    double rate = 0;
    double pd = p;
    for (int d = 1; d <= k; d++, pd *= p) {
      rate += distinct[d] * pd;
    }
    return rate;
  }

  /** DISTINCT_PROBES[k][d]: the probability that k probes into 512 bits hit d distinct bits. */
  private static final double[][] DISTINCT_PROBES = distinctProbes();

  private static double[][] distinctProbes() {
    double[][] table = new double[MAX_HASHES + 1][];
    double[] dist = {1}; // zero probes: zero distinct bits
    table[0] = dist;
    for (int k = 1; k <= MAX_HASHES; k++) {
      double[] next = new double[k + 1];
      for (int d = 0; d < dist.length; d++) {
        next[d] += dist[d] * d / BLOCK_BITS; // a bit already probed
        next[d + 1] += dist[d] * (BLOCK_BITS - d) / BLOCK_BITS; // a new bit
      }
      table[k] = dist = next;
    }
    return table;
  }

  private static double logFactorial(int m) {
    if (m < 256) {
      double s = 0;
      for (int i = 2; i <= m; i++) {
        s += Math.log(i);
      }
      return s;
    }
    // Stirling's series: exact to double precision for m >= 256.
    double x = m;
    return x * Math.log(x)
        - x
        + 0.5 * Math.log(2 * Math.PI * x)
        + 1 / (12 * x)
        - 1 / (360 * x * x * x);
  }

  @Override
  public String toString() {
    return "BloomFilter{blocks=" + blocks + ", hashes=" + hashes + ", items=" + itemCount() + "}";
  }
}
