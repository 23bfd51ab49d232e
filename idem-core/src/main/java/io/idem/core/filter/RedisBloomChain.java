package io.idem.core.filter;

import static io.idem.core.Checks.checkArgument;

import io.idem.core.format.FormatFamily;
import io.idem.core.format.FormatInput;
import io.idem.core.format.FormatOutput;
import io.idem.core.hash.MurmurHash64A;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * A scalable Bloom filter laid out, hashed and grown exactly as RedisBloom 2.6 does it, so that a
 * filter dumped there with BF.SCANDUMP loads here, answers every item as it did there, and dumps
 * back in chunks RedisBloom loads. Not thread-safe: the server calls it under the key's lock.
 *
 * <p>RedisBloom's scheme, as its dump shows it: a chain of classic Bloom filters ("links"). Link i
 * holds {@code capacity * expansion^i} items at {@code error * 0.5^(i+1)} (the first at {@code
 * error} when the chain does not scale); its bit count is {@code capacity * bpe} rounded up to a
 * multiple of 64, with {@code bpe = -ln(error) / ln(2)^2} and {@code ceil(ln(2) * bpe)} probes. An
 * item's probes are {@code (a + i*b) mod bits}, where {@code a} is MurmurHash64A of the item with
 * RedisBloom's seed and {@code b} the same hash seeded with {@code a}. An add that finds the item
 * in any link changes nothing; otherwise it goes into the newest link, and a new link is made first
 * once the newest is full.
 */
public final class RedisBloomChain implements ScalableBloom {

  /** RedisBloom's option bits, as its header stores them. */
  public static final int OPT_NOROUND = 1;

  public static final int OPT_ENTS_IS_BITS = 2;
  public static final int OPT_FORCE64 = 4;
  public static final int OPT_NO_SCALING = 8;

  /** The largest data chunk BF.SCANDUMP replies, as RedisBloom cuts them. */
  public static final int MAX_CHUNK_BYTES = 16 << 20;

  /** The seed of an item's first hash. */
  static final long SEED = 0xc6a4a7935bd1e995L;

  static final int HEADER_BYTES = 20;
  static final int LINK_BYTES = 53;

  /** The most links a chain may have: far past any that RedisBloom grows (each doubles or more). */
  static final int MAX_LINKS = 64;

  /** The most bytes one link may hold here: a long[] of words, 16 GiB. */
  static final long MAX_LINK_BYTES = (Integer.MAX_VALUE - 8L) * 8;

  static final int FORMAT_VERSION = 1; // append-only; see RedisBloomChainTest

  private static final double LN2 = 0.693147180559945;
  private static final double LN2_SQUARED = 0.480453013918201;

  private final int options;
  private final int growth;
  private final List<Link> links;
  private long size;

  /** One classic Bloom filter of the chain. */
  static final class Link {
    final long entries;
    final double error;
    final double bpe;
    final int hashes;
    final long bits;
    final int n2;
    final long[] words; // bit x of the dump's bytes is bit (x & 63) of word x >>> 6
    long size;

    Link(long entries, double error, double bpe, int hashes, long bits, int n2, long size) {
      this.entries = entries;
      this.error = error;
      this.bpe = bpe;
      this.hashes = hashes;
      this.bits = bits;
      this.n2 = n2;
      this.words = new long[Math.toIntExact(bits >>> 6)];
      this.size = size;
    }

    long bytes() {
      return bits >>> 3;
    }

    /** The modulus of the probes: the bit count, or 2^n2 for power-of-two links. */
    long modulus() {
      return n2 > 0 ? 1L << n2 : bits;
    }

    boolean contains(long a, long b) {
      long m = modulus();
      for (int i = 0; i < hashes; i++) {
        long x = Long.remainderUnsigned(a + i * b, m);
        if ((words[(int) (x >>> 6)] & (1L << x)) == 0) {
          return false;
        }
      }
      return true;
    }

    /**
     * Which of the items {@code idx[from, to)} (indexes into {@code a} and {@code b}, at most 64)
     * the link reports, as a mask of bit {@code j - from}. Probe i of every item is read before
     * probe i + 1 of any, so the items' cache misses overlap instead of following one another.
     */
    long containsGroup(long[] a, long[] b, int[] idx, int from, int to) {
      long m = modulus();
      long alive = to - from == 64 ? -1L : (1L << (to - from)) - 1;
      for (int i = 0; i < hashes && alive != 0; i++) {
        for (long left = alive; left != 0; left &= left - 1) {
          int j = Long.numberOfTrailingZeros(left);
          int item = idx[from + j];
          long x = Long.remainderUnsigned(a[item] + i * b[item], m);
          if ((words[(int) (x >>> 6)] & (1L << x)) == 0) {
            alive &= ~(1L << j);
          }
        }
      }
      return alive;
    }

    /** Sets the item's bits; whether one of them was clear. */
    boolean set(long a, long b) {
      long m = modulus();
      boolean changed = false;
      for (int i = 0; i < hashes; i++) {
        long x = Long.remainderUnsigned(a + i * b, m);
        int w = (int) (x >>> 6);
        long bit = 1L << x;
        if ((words[w] & bit) == 0) {
          words[w] |= bit;
          changed = true;
        }
      }
      return changed;
    }
  }

  private RedisBloomChain(int options, int growth, List<Link> links, long size) {
    this.options = options;
    this.growth = growth;
    this.links = links;
    this.size = size;
  }

  /**
   * A new chain as RedisBloom's BF.RESERVE makes it: options NOROUND and FORCE64 (and NO_SCALING),
   * a first link of {@code capacity} at {@code errorRate / 2} (at {@code errorRate} when it does
   * not scale).
   */
  public static RedisBloomChain create(
      long capacity, double errorRate, int expansion, boolean nonScaling) {
    checkArgument(capacity >= 1, "capacity (%d) must be >= 1", capacity);
    checkArgument(errorRate > 0 && errorRate < 1, "error rate (%s) must be in (0, 1)", errorRate);
    checkArgument(expansion >= 1, "expansion (%d) must be >= 1", expansion);
    int options = OPT_NOROUND | OPT_FORCE64 | (nonScaling ? OPT_NO_SCALING : 0);
    List<Link> links = new ArrayList<>();
    links.add(newLink(capacity, nonScaling ? errorRate : errorRate * 0.5));
    return new RedisBloomChain(options, expansion, links, 0);
  }

  /** Bytes the first link of such a chain takes: what a caller checks memory for first. */
  public static long firstLinkBytes(long capacity, double errorRate, boolean nonScaling) {
    return sizeLink(capacity, nonScaling ? errorRate : errorRate * 0.5)[1] >>> 3;
  }

  /** What one link holds and takes, as RedisBloom sizes it. */
  public record Sizing(long capacity, double errorRate, long bits, int hashes) {
    public long bytes() {
      return bits >>> 3;
    }

    public double bitsPerItem() {
      return (double) bits / capacity;
    }

    /** The false-positive rate this link has with {@code items} in it, as the chain estimates. */
    public double rateAt(long items) {
      return Math.pow(-Math.expm1(-(double) hashes * items / bits), hashes);
    }
  }

  /**
   * Link {@code i} (0-based) of a chain created as {@link #create} makes it: the capacity grows by
   * {@code expansion} and the rate halves with each link.
   *
   * @throws ArithmeticException if that link's capacity overflows a long
   */
  public static Sizing linkSizing(
      long capacity, double errorRate, int expansion, boolean nonScaling, int i) {
    checkArgument(!nonScaling || i == 0, "a non-scaling chain has only link 0, not %s", i);
    long entries = capacity;
    double error = nonScaling ? errorRate : errorRate * 0.5;
    for (int j = 0; j < i; j++) {
      entries = Math.multiplyExact(entries, (long) expansion);
      error *= 0.5;
    }
    long[] s = sizeLink(entries, error);
    return new Sizing(entries, error, s[1], (int) s[2]);
  }

  /** {bits before rounding, bits, hashes} of a NOROUND link; bpe is derived again by callers. */
  private static long[] sizeLink(long entries, double error) {
    double bpe = Math.abs(-(Math.log(error) / LN2_SQUARED));
    long bits = (long) (entries * bpe);
    if (bits == 0) {
      bits = 1;
    }
    long bytes = bits % 64 == 0 ? bits / 8 : (bits / 64 + 1) * 8;
    return new long[] {bits, bytes * 8, (long) Math.ceil(LN2 * bpe)};
  }

  private static Link newLink(long entries, double error) {
    double bpe = Math.abs(-(Math.log(error) / LN2_SQUARED));
    long[] s = sizeLink(entries, error);
    if (s[1] >>> 3 > MAX_LINK_BYTES) {
      throw new FilterFullException(
          "a link of " + entries + " items at " + error + " exceeds " + MAX_LINK_BYTES + " bytes");
    }
    return new Link(entries, error, bpe, (int) s[2], s[1], 0, 0);
  }

  /** The item's (a, b) as RedisBloom hashes it: MurmurHash64A, then again seeded with a. */
  public static long[] hash(byte[] item) {
    long a = MurmurHash64A.hash(item, SEED);
    return new long[] {a, MurmurHash64A.hash(item, a)};
  }

  public boolean mightContain(byte[] item) {
    long[] h = hash(item);
    return mightContain(h[0], h[1]);
  }

  @Override
  public void hash(byte[] item, long[] pair) {
    long a = MurmurHash64A.hash(item, SEED);
    pair[0] = a;
    pair[1] = MurmurHash64A.hash(item, a);
  }

  /** Whether some link reports the item of hash pair (a, b) (see {@link #hash}). */
  @Override
  public boolean mightContain(long a, long b) {
    for (int i = links.size() - 1; i >= 0; i--) {
      if (links.get(i).contains(a, b)) {
        return true;
      }
    }
    return false;
  }

  /** Items a batched lookup probes together: enough misses in flight, few enough to stay cached. */
  private static final int GROUP = 16;

  /**
   * {@link #mightContain(long, long)} for the first {@code n} items of hash pairs {@code (a[i],
   * b[i])}, into {@code found[i]}: the same answers, with the items' memory reads overlapped.
   */
  @Override
  public void mightContainAll(long[] a, long[] b, int n, boolean[] found) {
    int[] pending = new int[n];
    for (int i = 0; i < n; i++) {
      pending[i] = i;
      found[i] = false;
    }
    int left = n;
    for (int l = links.size() - 1; l >= 0 && left > 0; l--) {
      Link link = links.get(l);
      int kept = 0;
      for (int g = 0; g < left; g += GROUP) {
        int end = Math.min(left, g + GROUP);
        long hit = link.containsGroup(a, b, pending, g, end);
        for (int j = g; j < end; j++) {
          if ((hit >>> (j - g) & 1) != 0) {
            found[pending[j]] = true;
          } else {
            pending[kept++] = pending[j]; // kept <= j: this group's reads are done
          }
        }
      }
      left = kept;
    }
  }

  /**
   * Adds the item: true if it was new. An item some link already reports changes nothing.
   *
   * @throws FilterFullException when the chain does not scale and its link is full, or the next
   *     link would be too large
   */
  public boolean add(byte[] item) {
    long[] h = hash(item);
    return add(h[0], h[1]);
  }

  /** As {@link #add(byte[])} for the item of hash pair (a, b): what a log replays. */
  @Override
  public boolean add(long a, long b) {
    for (int i = links.size() - 2; i >= 0; i--) {
      if (links.get(i).contains(a, b)) {
        return false;
      }
    }
    Link last = links.getLast();
    if (last.size >= last.entries) {
      if (last.contains(a, b)) {
        return false;
      }
      if (!isScaling()) {
        throw new FilterFullException("non scaling filter is full");
      }
      last = grow();
    }
    // Tests and sets the last link's bits in one pass, as RedisBloom does: an item whose bits
    // were all set already is reported present and changes nothing.
    if (!last.set(a, b)) {
      return false;
    }
    last.size++;
    size++;
    return true;
  }

  @Override
  public boolean needsNewLayer() {
    return needsNewLink();
  }

  @Override
  public long bytesOfNextLayer() {
    return bytesOfNextLink();
  }

  @Override
  public int layerCount() {
    return linkCount();
  }

  /** Whether an add of a new item would need a new link first. */
  public boolean needsNewLink() {
    Link last = links.getLast();
    return last.size >= last.entries;
  }

  /** Bytes of the link the next new item would need first (0 if it needs none). */
  public long bytesOfNextLink() {
    Link last = links.getLast();
    if (last.size < last.entries || !isScaling()) {
      return 0;
    }
    try {
      return sizeLink(nextEntries(last), last.error * 0.5)[1] >>> 3;
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE; // a capacity past 2^63: add() refuses it as full
    }
  }

  private long nextEntries(Link last) {
    return Math.multiplyExact(last.entries, (long) growth);
  }

  private Link grow() {
    if (links.size() >= MAX_LINKS) {
      throw new FilterFullException("the filter has " + MAX_LINKS + " links");
    }
    Link last = links.getLast();
    Link next;
    try {
      next = newLink(nextEntries(last), last.error * 0.5);
    } catch (ArithmeticException e) {
      throw new FilterFullException("the next link's capacity overflows");
    }
    links.add(next);
    return next;
  }

  // ---- what BF.INFO and BF.DEBUG show

  @Override
  public long itemCount() {
    return size;
  }

  /** Items the chain holds before it adds a link: the sum of its links' capacities. */
  @Override
  public long capacity() {
    long c = 0;
    for (Link l : links) {
      c += l.entries;
    }
    return c;
  }

  public int linkCount() {
    return links.size();
  }

  @Override
  public int expansion() {
    return growth;
  }

  @Override
  public boolean isScaling() {
    return (options & OPT_NO_SCALING) == 0;
  }

  public int options() {
    return options;
  }

  /** BF.INFO's Size as RedisBloom computes it: its structs (32 + 64 a link) and the bit arrays. */
  @Override
  public long sizeInBytes() {
    long s = 32;
    for (Link l : links) {
      s += 64 + l.bytes();
    }
    return s;
  }

  /** The capacity and error rate asked for at creation, as the first link keeps them. */
  public long initialCapacity() {
    return links.getFirst().entries;
  }

  @Override
  public double configuredErrorRate() {
    return isScaling() ? links.getFirst().error * 2 : links.getFirst().error;
  }

  /** The chance that an absent item is reported now: from each link's load, links independent. */
  @Override
  public double estimatedFalsePositiveRate() {
    double none = 1;
    for (Link l : links) {
      double filled = -Math.expm1(-(double) l.hashes * l.size / l.bits);
      none *= 1 - Math.pow(filled, l.hashes);
    }
    return 1 - none;
  }

  @Override
  public String layoutName() {
    return "classic";
  }

  /** Link i's bytes, bits, hashes, hash width, entries, size and error rate, as RedisBloom's. */
  @Override
  public String describeLayer(int i) {
    Link l = links.get(i);
    return "bytes:"
        + l.bytes()
        + " bits:"
        + l.bits
        + " hashes:"
        + l.hashes
        + " hashwidth:"
        + ((options & OPT_FORCE64) != 0 ? 64 : 32)
        + " capacity:"
        + l.entries
        + " size:"
        + l.size
        + " ratio:"
        + printfG(l.error);
  }

  /**
   * C's {@code %g}, as RedisBloom's BF.DEBUG prints rates: six significant digits, trailing zeros
   * dropped, e-notation below 1e-4 and from 1e6.
   */
  public static String printfG(double v) {
    if (v == 0 || !Double.isFinite(v)) {
      return v == 0 ? "0" : Double.toString(v);
    }
    java.math.BigDecimal d =
        new java.math.BigDecimal(v)
            .round(new java.math.MathContext(6, java.math.RoundingMode.HALF_EVEN));
    int exp = d.precision() - d.scale() - 1;
    if (exp < -4 || exp >= 6) {
      String mantissa = d.movePointLeft(exp).stripTrailingZeros().toPlainString();
      int e = Math.abs(exp);
      return mantissa + (exp < 0 ? "e-" : "e+") + (e < 10 ? "0" : "") + e;
    }
    return d.stripTrailingZeros().toPlainString();
  }

  // ---- BF.SCANDUMP and BF.LOADCHUNK, in RedisBloom's bytes

  /** The header chunk BF.SCANDUMP replies at iterator 0: packed, little-endian. */
  @Override
  public byte[] dumpHeader() {
    ByteBuffer b =
        ByteBuffer.allocate(HEADER_BYTES + LINK_BYTES * links.size())
            .order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(size).putInt(links.size()).putInt(options).putInt(growth);
    for (Link l : links) {
      b.putLong(l.bytes())
          .putLong(l.bits)
          .putLong(l.size)
          .putDouble(l.error)
          .putDouble(l.bpe)
          .putInt(l.hashes)
          .putLong(l.entries)
          .put((byte) l.n2);
    }
    return b.array();
  }

  /**
   * BF.SCANDUMP at an iterator of 1 or more: 1 + a byte offset into the links' bit arrays one after
   * another; at most {@link #MAX_CHUNK_BYTES}, never across two links. Past the end (or below 1):
   * {@link DumpChunk#END}.
   */
  @Override
  public DumpChunk dumpChunk(long iterator) {
    if (iterator < 1) {
      return DumpChunk.END;
    }
    long offset = iterator - 1;
    for (Link l : links) {
      if (offset < l.bytes()) {
        int len = (int) Math.min(MAX_CHUNK_BYTES, l.bytes() - offset);
        return new DumpChunk(iterator + len, bytesOf(l, offset, len));
      }
      offset -= l.bytes();
    }
    return DumpChunk.END;
  }

  private static byte[] bytesOf(Link l, long offset, int len) {
    byte[] out = new byte[len];
    for (int i = 0; i < len; i++) {
      long x = offset + i;
      out[i] = (byte) (l.words[(int) (x >>> 3)] >>> ((x & 7) << 3));
    }
    return out;
  }

  /**
   * An empty chain of the shape a BF.SCANDUMP header gives (BF.LOADCHUNK at iterator 1 on a free
   * key), checked as RedisBloom checks it, and more: every size is bounded before anything is
   * allocated, and {@code memory} is asked for the whole chain first.
   *
   * @throws BadDumpException {@code received bad data} as RedisBloom replies it, or a memory text
   */
  public static RedisBloomChain fromHeader(byte[] data, LongPredicate memory)
      throws BadDumpException {
    if (data.length < HEADER_BYTES) {
      throw bad("a header of " + data.length + " bytes, under " + HEADER_BYTES);
    }
    ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
    long size = b.getLong();
    long nfilters = b.getInt() & 0xffffffffL;
    int options = b.getInt();
    long growth = b.getInt() & 0xffffffffL;
    if (nfilters == 0 || nfilters > MAX_LINKS) {
      throw bad("a header of " + nfilters + " links (1 to " + MAX_LINKS + " are read)");
    }
    if (data.length != HEADER_BYTES + LINK_BYTES * nfilters) {
      throw bad("a header of " + data.length + " bytes for " + nfilters + " links");
    }
    if ((options & ~(OPT_NOROUND | OPT_ENTS_IS_BITS | OPT_FORCE64 | OPT_NO_SCALING)) != 0) {
      throw bad("unknown option bits " + options);
    }
    if ((options & OPT_FORCE64) == 0) {
      throw new BadDumpException(
          "received bad data",
          "a filter with 32-bit hashing (RedisBloom before 2.0): not supported");
    }
    if (growth > Integer.MAX_VALUE) {
      throw bad("expansion " + growth);
    }
    long[] fields = new long[(int) nfilters * 5];
    double[] rates = new double[(int) nfilters * 2];
    int[] n2s = new int[(int) nfilters];
    long total = 0;
    long sum = 0;
    for (int i = 0; i < nfilters; i++) {
      long bytes = b.getLong();
      long bits = b.getLong();
      long linkSize = b.getLong();
      double error = b.getDouble();
      double bpe = b.getDouble();
      long hashes = b.getInt() & 0xffffffffL;
      long entries = b.getLong();
      int n2 = b.get() & 0xff;
      // RedisBloom's own checks (bloom_validate_integrity), then bounds of ours.
      if (!(error > 0 && error < 1)
          || n2 > 63
          || n2 != 0 && Long.compareUnsigned(bits, 1L << n2) < 0
          || bits == 0
          || bits != bytes * 8
          || hashes != (long) Math.ceil(LN2 * bpe)) {
        throw bad("link " + i + " is inconsistent");
      }
      if (bytes < 0 || bytes > MAX_LINK_BYTES || bytes % 8 != 0) {
        throw bad("link " + i + " of " + bytes + " bytes");
      }
      if (hashes < 1 || hashes > 64 || entries < 1 || linkSize < 0 || linkSize > entries) {
        throw bad("link " + i + " has " + hashes + " hashes, " + entries + " entries");
      }
      total += bytes;
      sum += linkSize;
      fields[i * 5] = bytes;
      fields[i * 5 + 1] = bits;
      fields[i * 5 + 2] = linkSize;
      fields[i * 5 + 3] = hashes;
      fields[i * 5 + 4] = entries;
      rates[i * 2] = error;
      rates[i * 2 + 1] = bpe;
      n2s[i] = n2;
    }
    if (size != sum || size < 0) {
      throw bad("a header whose size " + size + " is not its links' " + sum);
    }
    if (total < 0 || !memory.test(total)) {
      throw new BadDumpException(
          "Insufficient memory to create filter", "the header asks for " + total + " bytes");
    }
    List<Link> links = new ArrayList<>();
    for (int i = 0; i < nfilters; i++) {
      links.add(
          new Link(
              fields[i * 5 + 4],
              rates[i * 2],
              rates[i * 2 + 1],
              (int) fields[i * 5 + 3],
              fields[i * 5 + 1],
              n2s[i],
              fields[i * 5 + 2]));
    }
    return new RedisBloomChain(options, (int) growth, links, size);
  }

  private static BadDumpException bad(String detail) {
    return new BadDumpException("received bad data", detail);
  }

  /**
   * Loads one data chunk from BF.SCANDUMP: {@code iterator} is the one SCANDUMP replied with it
   * (the next), so the chunk starts at byte {@code iterator - length - 1}, inside one link.
   */
  @Override
  public void loadChunk(long iterator, byte[] data) throws BadDumpException {
    if (iterator <= 0 || iterator < data.length) {
      throw bad("iterator " + iterator + " for a chunk of " + data.length + " bytes");
    }
    long offset = iterator - data.length - 1;
    for (Link l : links) {
      if (offset < l.bytes()) {
        if (data.length > l.bytes() - offset) {
          throw new BadDumpException(
              "invalid chunk - Too big for current filter",
              "a chunk of " + data.length + " bytes at " + offset);
        }
        for (int i = 0; i < data.length; i++) {
          long x = offset + i;
          int w = (int) (x >>> 3);
          int shift = (int) ((x & 7) << 3);
          l.words[w] = l.words[w] & ~(0xffL << shift) | (data[i] & 0xffL) << shift;
        }
        return;
      }
      offset -= l.bytes();
    }
    throw new BadDumpException("invalid offset - no link found", "offset " + offset);
  }

  // ---- Idem's own format, for snapshots

  /** Writes the chain in Idem's framed format (family REDISBLOOM_CHAIN, big-endian, CRC32C). */
  public void writeTo(OutputStream out) throws IOException {
    FormatOutput f =
        FormatOutput.begin(
            out, FormatFamily.REDISBLOOM_CHAIN, FORMAT_VERSION, MurmurHash64A.FUNCTION_ID);
    byte[] header = dumpHeader();
    f.writeInt(header.length);
    f.writeBytes(header);
    for (Link l : links) {
      f.writeLongs(l.words, 0, l.words.length);
    }
    f.finish();
  }

  /** Reads what {@link #writeTo} wrote; any inconsistency is an IOException naming it. */
  public static RedisBloomChain readFrom(InputStream in, long maxBytes) throws IOException {
    FormatInput f =
        FormatInput.begin(
            in, FormatFamily.REDISBLOOM_CHAIN, FORMAT_VERSION, MurmurHash64A.FUNCTION_ID, maxBytes);
    int headerBytes = f.readInt();
    f.expect(headerBytes, "the header");
    RedisBloomChain chain;
    try {
      chain = fromHeader(f.readBytes(headerBytes, "the header"), bytes -> true);
    } catch (BadDumpException e) {
      throw new IOException("corrupt RedisBloom header: " + e.getMessage(), e);
    }
    for (Link l : chain.links) {
      f.expect(l.bytes(), "a link");
      long[] words = f.readLongs(l.words.length, "a link");
      System.arraycopy(words, 0, l.words, 0, words.length);
    }
    f.finish();
    return chain;
  }
}
