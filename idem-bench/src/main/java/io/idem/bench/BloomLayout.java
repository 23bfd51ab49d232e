package io.idem.bench;

import io.idem.core.filter.BloomFilter;
import io.idem.core.hash.Hash128;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * What the placement of a Bloom filter's blocks costs out of cache: the shipped filter (10 M items
 * at 1 % unless told otherwise, blocks on cache lines off the heap) against copies of its bits
 * placed 0, 8 and 16 bytes past a cache line, the last two where a {@code long[]} puts them under
 * ParallelGC and G1 (its elements start 16 bytes into an object aligned to 8; G1 puts a large array
 * at a region's start). Every variant hashes 64 keys with {@code hashLongs} and looks them up in
 * two passes, as {@code mightContainAll} does where blocks sit on cache lines, or, the "plain"
 * ones, in one, as it does on the heap; the copies use a lookup written here, checked to give the
 * filter's answers. Variants alternate in rounds of one second in one JVM, so a host that slows
 * affects them alike. Not a JMH benchmark: {@code scripts/bench-jmh.sh BloomLayout [-- rounds
 * [capacity]]}, or {@code java --add-modules jdk.incubator.vector -cp benchmarks.jar
 * io.idem.bench.BloomLayout [rounds [capacity]]}; 100 M items need about 3 GB of heap.
 */
public final class BloomLayout {
  private static final VectorSpecies<Long> SPECIES = LongVector.SPECIES_512;
  private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED;
  private static final int CALL = Rounds.CALL;
  private static final int FIRST_PASS = 32; // BloomFilter's batch
  private static final int PROBES = 1 << 20;

  private final long[] keys;
  private final long[] h1 = new long[CALL];
  private final long[] h2 = new long[CALL];
  private final boolean[] out = new boolean[CALL];
  private final long[] multipliers = probeMultipliers();
  private final int blocks;
  private final int hashes;
  private long sink;

  private BloomLayout(long[] keys, int blocks, int hashes) {
    this.keys = keys;
    this.blocks = blocks;
    this.hashes = hashes;
  }

  /** The format's probe multipliers: SplitMix64 from seed 0x1DE3, each forced odd. */
  private static long[] probeMultipliers() {
    long[] m = new long[32];
    long state = 0x1DE3L;
    for (int i = 0; i < m.length; i++) {
      state += 0x9E3779B97F4A7C15L;
      long z = state;
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      m[i] = (z ^ (z >>> 31)) | 1L;
    }
    return m;
  }

  /** Found keys among the 64 from {@code from}, with the shipped filter. */
  private int shipped(BloomFilter filter, int from) {
    Hash128.hashLongs(keys, from, CALL, h1, h2);
    filter.mightContainAll(h1, h2, CALL, out);
    return found();
  }

  /** The same with the lookup below, over {@code bits} whose block 0 starts at {@code shift}. */
  private int copy(MemorySegment bits, long shift, int from) {
    Hash128.hashLongs(keys, from, CALL, h1, h2);
    long fetched = 0;
    for (int start = 0; start < CALL; start += FIRST_PASS) {
      for (int i = start; i < start + FIRST_PASS; i++) {
        fetched ^= bits.get(WORD, shift + Math.unsignedMultiplyHigh(h1[i], blocks) * 64);
      }
      for (int i = start; i < start + FIRST_PASS; i++) {
        long offset = shift + Math.unsignedMultiplyHigh(h1[i], blocks) * 64;
        out[i] = mightContain(bits, offset, h2[i]);
      }
    }
    sink ^= fetched;
    return found();
  }

  /** {@link #copy} without the first pass: each block is read once, by the lookup. */
  private int copyPlain(MemorySegment bits, long shift, int from) {
    Hash128.hashLongs(keys, from, CALL, h1, h2);
    for (int i = 0; i < CALL; i++) {
      long offset = shift + Math.unsignedMultiplyHigh(h1[i], blocks) * 64;
      out[i] = mightContain(bits, offset, h2[i]);
    }
    return found();
  }

  /** VectorProbe's form: the first eight probes straight-line, the rest (none at 1 %) apart. */
  private boolean mightContain(MemorySegment bits, long offset, long h2) {
    LongVector block = LongVector.fromMemorySegment(SPECIES, bits, offset, ByteOrder.nativeOrder());
    LongVector h = LongVector.broadcast(SPECIES, h2);
    boolean missing = clear(block, h, 0).anyTrue();
    if (hashes > 8) {
      missing |= missingBeyondEight(block, h);
    }
    return !missing;
  }

  private boolean missingBeyondEight(LongVector block, LongVector h) {
    boolean missing = false;
    for (int first = 8; first < hashes; first += 8) {
      missing |= clear(block, h, first).anyTrue();
    }
    return missing;
  }

  private VectorMask<Long> clear(LongVector block, LongVector h, int first) {
    LongVector bit =
        h.mul(LongVector.fromArray(SPECIES, multipliers, first)).lanewise(VectorOperators.LSHR, 55);
    LongVector word = bit.lanewise(VectorOperators.LSHR, 6).selectFrom(block);
    return word.lanewise(VectorOperators.LSHR, bit)
        .and(1L)
        .compare(VectorOperators.EQ, 0L, SPECIES.indexInRange(first, hashes));
  }

  private int found() {
    int n = 0;
    for (boolean b : out) {
      n += b ? 1 : 0;
    }
    return n;
  }

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 12;
    if (rounds < 2) {
      throw new IllegalArgumentException("rounds (" + rounds + ") must be at least 2");
    }
    if (!BloomFilter.probeKind().equals("vector512")) {
      // Without AVX-512 the copies' vector lookup would run in Java, the filter's scalar.
      throw new IllegalStateException(
          "BloomLayout compares vector lookups: it needs AVX-512 and --add-modules"
              + " jdk.incubator.vector (this JVM's Bloom probe: "
              + BloomFilter.probeKind()
              + ")");
    }
    int n = args.length > 1 ? Integer.parseInt(args[1]) : BloomBenchmark.CAPACITY;
    if (n < PROBES) {
      throw new IllegalArgumentException("capacity (" + n + ") must be at least " + PROBES);
    }
    BloomFilter filter = BloomFilter.create(n, BloomBenchmark.ERROR_RATE);
    long[] present = Keys.longs(Keys.PRESENT_SEED, n);
    long[] h1s = new long[CALL];
    long[] h2s = new long[CALL];
    for (int from = 0; from < n; from += CALL) {
      int count = Math.min(CALL, n - from);
      Hash128.hashLongs(present, from, count, h1s, h2s);
      for (int i = 0; i < count; i++) {
        filter.add(h1s[i], h2s[i]);
      }
    }
    // Half present, half absent, interleaved by a fixed shuffle.
    long[] probes = new long[PROBES];
    System.arraycopy(present, 0, probes, 0, PROBES / 2);
    System.arraycopy(Keys.longs(Keys.ABSENT_SEED, PROBES / 2), 0, probes, PROBES / 2, PROBES / 2);
    java.util.SplittableRandom random = new java.util.SplittableRandom(Keys.ABSENT_SEED);
    for (int i = probes.length - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      long t = probes[i];
      probes[i] = probes[j];
      probes[j] = t;
    }
    BloomLayout b = new BloomLayout(probes, filter.blocks(), filter.hashes());

    byte[] bytes = new byte[filter.wordCount() * 8];
    filter.copyWords(0, filter.wordCount(), bytes, 0); // big-endian, the format's order
    List<String> names = new ArrayList<>(List.of("shipped"));
    List<Rounds.Variant> variants = new ArrayList<>(List.of(from -> b.shipped(filter, from)));
    for (int shift : new int[] {0, 8, 16}) {
      MemorySegment bits = Arena.ofAuto().allocate(bytes.length + 64L, 64);
      ByteBuffer words = ByteBuffer.wrap(bytes);
      for (int i = 0; i < filter.wordCount(); i++) {
        bits.set(WORD, shift + i * 8L, words.getLong());
      }
      names.add("line+" + shift);
      variants.add(from -> b.copy(bits, shift, from));
      if (shift != 8) {
        names.add("line+" + shift + "-plain");
        variants.add(from -> b.copyPlain(bits, shift, from));
      }
    }
    // Every variant must give every key the shipped filter's answer.
    boolean[] shipped = new boolean[PROBES];
    long expected = 0;
    for (int v = 0; v < variants.size(); v++) {
      for (int from = 0; from < PROBES; from += CALL) {
        int found = variants.get(v).run(from);
        for (int i = 0; i < CALL; i++) {
          if (v == 0) {
            shipped[from + i] = b.out[i];
          } else if (b.out[i] != shipped[from + i]) {
            throw new AssertionError(names.get(v) + " answers key " + (from + i) + " otherwise");
          }
        }
        expected += v == 0 ? found : 0;
      }
    }
    System.out.printf(
        Locale.ROOT,
        "%d blocks, %d hashes; %d probes, %d found by every variant; ns a key, batches of %d%n",
        filter.blocks(),
        filter.hashes(),
        PROBES,
        expected,
        CALL);

    Rounds r = new Rounds(names, variants, PROBES, 1);
    System.out.println(r.summary(r.run(rounds), b.sink));
  }
}
