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
 * A cuckoo filter laid out, hashed and grown exactly as RedisBloom 2.6 does it, so that a filter
 * dumped there with CF.SCANDUMP loads here, answers (exists, count) as it did there, changes as it
 * would, and dumps back in chunks RedisBloom loads. Not thread-safe: the server calls it under the
 * key's lock.
 *
 * <p>RedisBloom's scheme: sub-filters of {@code buckets * expansion^i} buckets (a power of two) of
 * {@code bucketSize} one-byte fingerprints, 0 meaning empty. An item's hash is MurmurHash64A with
 * seed 0; its fingerprint {@code hash % 255 + 1}; its buckets {@code hash} and {@code hash ^ (fp *
 * 0x5bd1e995)}, each modulo the sub-filter's bucket count. An insert takes the first empty slot of
 * either bucket in the newest sub-filter first, then in older ones; failing that it kicks
 * fingerprints around the newest (undone if that fails too), and then grows.
 */
public final class RedisBloomCuckoo implements ScalableCuckoo {

  /** The largest data chunk CF.SCANDUMP replies, as RedisBloom cuts them. */
  public static final int MAX_CHUNK_BYTES = 16 << 20;

  static final int HEADER_BYTES = 38;

  /** The length of RedisBloom's header chunk (position 1). */
  public static final int HEADER_LENGTH = HEADER_BYTES;

  /** The most bytes one sub-filter may hold here: one Java array. */
  static final long MAX_FILTER_BYTES = Integer.MAX_VALUE - 8L;

  /** The most sub-filters a filter may have here (RedisBloom's CF.ADD stops growing at 32). */
  static final int MAX_FILTERS = 64;

  static final int FORMAT_VERSION = 1; // append-only; see RedisBloomCuckooTest

  private static final long ALT = 0x5bd1e995L;

  private final long numBuckets;
  private final int bucketSize;
  private final int maxIterations;
  private final int expansion;
  private final List<byte[]> filters;
  private long numItems;
  private long numDeletes;

  /** What an insert did. */
  private RedisBloomCuckoo(
      long numBuckets,
      int bucketSize,
      int maxIterations,
      int expansion,
      List<byte[]> filters,
      long numItems,
      long numDeletes) {
    this.numBuckets = numBuckets;
    this.bucketSize = bucketSize;
    this.maxIterations = maxIterations;
    this.expansion = expansion;
    this.filters = filters;
    this.numItems = numItems;
    this.numDeletes = numDeletes;
  }

  /**
   * A new filter as RedisBloom's CF.RESERVE makes it: {@code capacity / bucketSize} buckets rounded
   * up to a power of two, the expansion rounded up to one.
   */
  public static RedisBloomCuckoo create(
      long capacity, int bucketSize, int maxIterations, int expansion) {
    checkArgument(bucketSize >= 1 && bucketSize <= 255, "bucket size (%d)", bucketSize);
    checkArgument(capacity >= 2L * bucketSize, "capacity (%d)", capacity);
    checkArgument(maxIterations >= 1 && maxIterations <= 65535, "iterations (%d)", maxIterations);
    checkArgument(expansion >= 0 && expansion <= 32768, "expansion (%d)", expansion);
    long buckets = nextPow2(capacity / bucketSize);
    int exp = expansion == 0 ? 0 : (int) nextPow2(expansion);
    List<byte[]> filters = new ArrayList<>();
    filters.add(new byte[Math.toIntExact(filterBytes(buckets, bucketSize))]);
    return new RedisBloomCuckoo(buckets, bucketSize, maxIterations, exp, filters, 0, 0);
  }

  private static long nextPow2(long n) {
    return n <= 1 ? 1 : Long.highestOneBit(n - 1) << 1;
  }

  private static long filterBytes(long buckets, int bucketSize) {
    long bytes = buckets * bucketSize;
    if (buckets <= 0 || bytes / bucketSize != buckets || bytes > MAX_FILTER_BYTES) {
      throw new FilterFullException("a sub-filter of " + buckets + " buckets is too large");
    }
    return bytes;
  }

  /** Buckets of sub-filter i, as RedisBloom computes them (through a double, as its pow does). */
  private long bucketsOf(int i) {
    return numBuckets * (long) Math.pow(expansion, i);
  }

  /** An item's hash as RedisBloom computes it. */
  public static long hash(byte[] item) {
    return MurmurHash64A.hash(item, 0);
  }

  private static int fingerprint(long hash) {
    return (int) Long.remainderUnsigned(hash, 255) + 1;
  }

  private static long alt(int fp, long index) {
    return index ^ (fp * ALT);
  }

  private int slot(byte[] data, long bucket, int fp) {
    int base = (int) (bucket * bucketSize);
    for (int i = 0; i < bucketSize; i++) {
      if ((data[base + i] & 0xff) == fp) {
        return base + i;
      }
    }
    return -1;
  }

  private long buckets(byte[] data) {
    return data.length / bucketSize;
  }

  /** RedisBloom's CF.ADD and CF.INSERT refuse to run on a filter with this many sub-filters. */
  public static final int MAX_EXPANSIONS = 32;

  /** RedisBloom's hash of the item in the pair's first half; the second is 0. */
  @Override
  public void hash(byte[] item, long[] pair) {
    pair[0] = hash(item);
    pair[1] = 0;
  }

  @Override
  public boolean mightContain(long a, long b) {
    return contains(a);
  }

  @Override
  public long count(long a, long b) {
    return count(a);
  }

  @Override
  public Insert insert(long a, long b, boolean unique, boolean mayGrow) {
    return unique ? insertUnique(a, mayGrow) : insert(a, mayGrow);
  }

  @Override
  public boolean atFilterLimit() {
    return filterCount() >= MAX_EXPANSIONS;
  }

  @Override
  public boolean delete(long a, long b) {
    return delete(a);
  }

  /** RedisBloom's CF.COMPACT, which goes on past a sub-filter it cannot empty; always true. */
  @Override
  public boolean compact() {
    compact(true);
    return true;
  }

  public boolean contains(long hash) {
    int fp = fingerprint(hash);
    long h2 = alt(fp, hash);
    for (byte[] data : filters) {
      long n = buckets(data);
      if (slot(data, Long.remainderUnsigned(hash, n), fp) >= 0
          || slot(data, Long.remainderUnsigned(h2, n), fp) >= 0) {
        return true;
      }
    }
    return false;
  }

  /**
   * CF.COUNT: equal fingerprints in both buckets of every sub-filter (one bucket twice if same).
   */
  public long count(long hash) {
    int fp = fingerprint(hash);
    long h2 = alt(fp, hash);
    long count = 0;
    for (byte[] data : filters) {
      long n = buckets(data);
      count += countIn(data, Long.remainderUnsigned(hash, n), fp);
      count += countIn(data, Long.remainderUnsigned(h2, n), fp);
    }
    return count;
  }

  private int countIn(byte[] data, long bucket, int fp) {
    int base = (int) (bucket * bucketSize);
    int c = 0;
    for (int i = 0; i < bucketSize; i++) {
      if ((data[base + i] & 0xff) == fp) {
        c++;
      }
    }
    return c;
  }

  /** CF.ADD. */
  public Insert insert(long hash) {
    return insert(hash, true);
  }

  /**
   * CF.ADD; when the item finds no room and {@code mayGrow} is false, TOO_LARGE and nothing changes
   * (a caller that cannot spend the next sub-filter's memory).
   */
  public Insert insert(long hash, boolean mayGrow) {
    int fp = fingerprint(hash);
    return insert(hash, alt(fp, hash), fp, mayGrow);
  }

  /** CF.ADDNX: EXISTS if some sub-filter has the item's fingerprint in one of its buckets. */
  public Insert insertUnique(long hash) {
    return insertUnique(hash, true);
  }

  public Insert insertUnique(long hash, boolean mayGrow) {
    return contains(hash) ? Insert.EXISTS : insert(hash, mayGrow);
  }

  private Insert insert(long h1, long h2, int fp, boolean mayGrow) {
    while (true) {
      for (int i = filters.size() - 1; i >= 0; i--) {
        byte[] data = filters.get(i);
        int s = empty(data, h1, h2);
        if (s >= 0) {
          data[s] = (byte) fp;
          numItems++;
          return Insert.INSERTED;
        }
      }
      if (kickOut(filters.getLast(), h1, fp)) {
        numItems++;
        return Insert.INSERTED;
      }
      if (expansion == 0) {
        return Insert.NO_SPACE;
      }
      if (!mayGrow || !grow()) {
        return Insert.TOO_LARGE;
      }
    }
  }

  private int empty(byte[] data, long h1, long h2) {
    long n = buckets(data);
    int s = emptyIn(data, Long.remainderUnsigned(h1, n));
    return s >= 0 ? s : emptyIn(data, Long.remainderUnsigned(h2, n));
  }

  private int emptyIn(byte[] data, long bucket) {
    int base = (int) (bucket * bucketSize);
    for (int i = 0; i < bucketSize; i++) {
      if (data[base + i] == 0) {
        return base + i;
      }
    }
    return -1;
  }

  /** RedisBloom's kick-out in one sub-filter; every swap is undone if it finds no room. */
  private boolean kickOut(byte[] data, long h1, int fp) {
    long n = buckets(data);
    int victim = 0;
    long bucket = Long.remainderUnsigned(h1, n);
    int carried = fp;
    for (int i = 0; i < maxIterations; i++) {
      int at = (int) (bucket * bucketSize) + victim;
      int evicted = data[at] & 0xff;
      data[at] = (byte) carried;
      carried = evicted;
      bucket = Long.remainderUnsigned(alt(carried, bucket), n);
      int s = emptyIn(data, bucket);
      if (s >= 0) {
        data[s] = (byte) carried;
        return true;
      }
      victim = (victim + 1) % bucketSize;
    }
    for (int i = 0; i < maxIterations; i++) {
      victim = (victim + bucketSize - 1) % bucketSize;
      bucket = Long.remainderUnsigned(alt(carried, bucket), n);
      int at = (int) (bucket * bucketSize) + victim;
      int held = data[at] & 0xff;
      data[at] = (byte) carried;
      carried = held;
    }
    return false;
  }

  /** Bytes the next sub-filter would take, or -1 if it may not be made. */
  @Override
  public long bytesOfNextFilter() {
    if (expansion == 0 || filters.size() >= MAX_FILTERS) {
      return -1;
    }
    double growth = Math.pow(expansion, filters.size());
    if (growth * numBuckets * bucketSize > MAX_FILTER_BYTES) {
      return -1;
    }
    return bucketsOf(filters.size()) * bucketSize;
  }

  private boolean grow() {
    long bytes = bytesOfNextFilter();
    if (bytes < 0) {
      return false;
    }
    filters.add(new byte[(int) bytes]);
    return true;
  }

  /** CF.DEL: clears one slot of the item's fingerprint, newest sub-filter first. */
  public boolean delete(long hash) {
    int fp = fingerprint(hash);
    long h2 = alt(fp, hash);
    for (int i = filters.size() - 1; i >= 0; i--) {
      byte[] data = filters.get(i);
      long n = buckets(data);
      int s = slot(data, Long.remainderUnsigned(hash, n), fp);
      if (s < 0) {
        s = slot(data, Long.remainderUnsigned(h2, n), fp);
      }
      if (s >= 0) {
        data[s] = 0;
        numItems--;
        numDeletes++;
        if (filters.size() > 1 && numDeletes > (double) numItems * 0.10) {
          compact(false);
        }
        return true;
      }
    }
    return false;
  }

  /**
   * CF.COMPACT (and after deletes): moves fingerprints of newer sub-filters into empty slots of
   * older ones, dropping the newest once it is empty; {@code cont} goes on past one that is not.
   */
  public void compact(boolean cont) {
    for (int i = filters.size() - 1; i > 0; i--) {
      if (!compactOne(i) && !cont) {
        break;
      }
    }
    numDeletes = 0;
  }

  private boolean compactOne(int index) {
    byte[] data = filters.get(index);
    long n = buckets(data);
    boolean all = true;
    for (long bucket = 0; bucket < n; bucket++) {
      for (int s = 0; s < bucketSize; s++) {
        int at = (int) (bucket * bucketSize) + s;
        int fp = data[at] & 0xff;
        if (fp == 0) {
          continue;
        }
        long h2 = alt(fp, bucket);
        boolean moved = false;
        for (int older = 0; older < index && !moved; older++) {
          byte[] target = filters.get(older);
          int free = empty(target, bucket, h2);
          if (free >= 0) {
            target[free] = (byte) fp;
            data[at] = 0;
            moved = true;
          }
        }
        all &= moved;
      }
    }
    if (all && index == filters.size() - 1) {
      filters.removeLast();
    }
    return all;
  }

  // ---- what CF.INFO shows

  @Override
  public long itemCount() {
    return numItems;
  }

  @Override
  public long deleteCount() {
    return numDeletes;
  }

  @Override
  public int filterCount() {
    return filters.size();
  }

  @Override
  public long bucketCount() {
    return numBuckets;
  }

  @Override
  public int bucketSize() {
    return bucketSize;
  }

  @Override
  public int maxIterations() {
    return maxIterations;
  }

  @Override
  public int expansion() {
    return expansion;
  }

  /** Fingerprint slots in every sub-filter together: what the filter holds at most. */
  public long slotCount() {
    long slots = 0;
    for (byte[] data : filters) {
      slots += data.length;
    }
    return slots;
  }

  /** CF.INFO's Size as RedisBloom computes it: its structs (40 + 16 a sub-filter) and the data. */
  @Override
  public long sizeInBytes() {
    long s = 40;
    for (byte[] data : filters) {
      s += 16 + data.length;
    }
    return s;
  }

  // ---- CF.SCANDUMP and CF.LOADCHUNK, in RedisBloom's bytes

  /** The header chunk CF.SCANDUMP replies at position 0: packed, little-endian. */
  @Override
  public byte[] dumpHeader() {
    return ByteBuffer.allocate(HEADER_BYTES)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putLong(numItems)
        .putLong(numBuckets)
        .putLong(numDeletes)
        .putLong(filters.size())
        .putShort((short) bucketSize)
        .putShort((short) maxIterations)
        .putShort((short) expansion)
        .array();
  }

  /**
   * CF.SCANDUMP at a position of 1 or more (1 + a byte offset into the sub-filters one after
   * another): a sub-filter of at most 16 MiB whole, a larger one in 16 MiB chunks; {@link
   * DumpChunk#END} past the end, or for a filter without items (RedisBloom dumps none).
   */
  @Override
  public DumpChunk dumpChunk(long position) {
    if (numItems == 0 || position < 1) {
      return DumpChunk.END;
    }
    long offset = position - 1;
    for (byte[] data : filters) {
      if (offset < data.length) {
        if (data.length <= MAX_CHUNK_BYTES) {
          return new DumpChunk(position + data.length, data.clone());
        }
        int len = (int) Math.min(MAX_CHUNK_BYTES, data.length - offset);
        byte[] out = new byte[len];
        System.arraycopy(data, (int) offset, out, 0, len);
        return new DumpChunk(position + len, out);
      }
      offset -= data.length;
    }
    return DumpChunk.END;
  }

  /**
   * An empty filter of the shape a CF.SCANDUMP header gives, checked as RedisBloom checks it, and
   * more: every sub-filter within one Java array, at most {@link #MAX_FILTERS}, and {@code memory}
   * asked for the whole before anything is allocated.
   */
  public static RedisBloomCuckoo fromHeader(byte[] data, LongPredicate memory)
      throws BadDumpException {
    if (data.length != HEADER_BYTES) {
      throw new BadDumpException("Invalid header", "a header of " + data.length + " bytes");
    }
    ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
    long items = b.getLong();
    long buckets = b.getLong();
    long deletes = b.getLong();
    int count = (int) (b.getLong() & 0xffff); // RedisBloom keeps 16 bits of it
    int bucketSize = b.getShort() & 0xffff;
    int iterations = b.getShort() & 0xffff;
    int expansion = b.getShort() & 0xffff;
    String refused = null;
    if (bucketSize == 0 || bucketSize > 255) {
      refused = "bucket size " + bucketSize;
    } else if (buckets <= 0 || Long.bitCount(buckets) != 1) {
      refused = buckets + " buckets";
    } else if (count == 0 || count > MAX_FILTERS) {
      refused = count + " sub-filters";
    } else if (iterations == 0) {
      refused = "0 iterations";
    } else if (expansion == 0 && count > 1) {
      refused = count + " sub-filters that cannot grow";
    } else if (items < 0 || deletes < 0) {
      refused = items + " items, " + deletes + " deletes";
    }
    long total = 0;
    for (int i = 0; refused == null && i < count; i++) {
      double growth = Math.pow(expansion, i);
      if (growth * buckets * bucketSize > MAX_FILTER_BYTES) {
        refused = "sub-filter " + i + " is too large";
      } else {
        total += buckets * (long) growth * bucketSize;
      }
    }
    if (refused != null) {
      throw new BadDumpException("Couldn't create filter!", refused);
    }
    if (!memory.test(total)) {
      throw new BadDumpException(
          "Insufficient memory to create filter", "the header asks for " + total + " bytes");
    }
    List<byte[]> filters = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      filters.add(new byte[(int) (buckets * (long) Math.pow(expansion, i) * bucketSize)]);
    }
    return new RedisBloomCuckoo(
        buckets, bucketSize, iterations, expansion, filters, items, deletes);
  }

  /** Loads one data chunk: {@code position} is the one CF.SCANDUMP replied with it (the next). */
  @Override
  public void loadChunk(long position, byte[] data) throws BadDumpException {
    if (data.length == 0 || position <= 0 || position - 1 < data.length) {
      throw new BadDumpException(
          "Couldn't load chunk!", "position " + position + " for " + data.length + " bytes");
    }
    long offset = position - data.length - 1;
    for (byte[] filter : filters) {
      if (offset < filter.length) {
        if (data.length > filter.length - offset) {
          throw new BadDumpException(
              "Couldn't load chunk!", "a chunk of " + data.length + " bytes at " + offset);
        }
        System.arraycopy(data, 0, filter, (int) offset, data.length);
        return;
      }
      offset -= filter.length;
    }
    throw new BadDumpException("Couldn't load chunk!", "no sub-filter at " + offset);
  }

  // ---- Idem's own format, for snapshots

  /** Writes the filter in Idem's framed format (family REDISBLOOM_CUCKOO). */
  public void writeTo(OutputStream out) throws IOException {
    FormatOutput f =
        FormatOutput.begin(
            out, FormatFamily.REDISBLOOM_CUCKOO, FORMAT_VERSION, MurmurHash64A.FUNCTION_ID);
    f.writeBytes(dumpHeader());
    for (byte[] data : filters) {
      f.writeBytes(data);
    }
    f.finish();
  }

  /** Reads what {@link #writeTo} wrote; any inconsistency is an IOException naming it. */
  public static RedisBloomCuckoo readFrom(InputStream in, long maxBytes) throws IOException {
    FormatInput f =
        FormatInput.begin(
            in,
            FormatFamily.REDISBLOOM_CUCKOO,
            FORMAT_VERSION,
            MurmurHash64A.FUNCTION_ID,
            maxBytes);
    RedisBloomCuckoo cf;
    try {
      cf = fromHeader(f.readBytes(HEADER_BYTES, "the header"), bytes -> true);
    } catch (BadDumpException e) {
      throw new IOException("corrupt RedisBloom cuckoo header: " + e.getMessage(), e);
    }
    for (byte[] data : cf.filters) {
      f.expect(data.length, "a sub-filter");
      byte[] read = f.readBytes(data.length, "a sub-filter");
      System.arraycopy(read, 0, data, 0, data.length);
    }
    f.finish();
    return cf;
  }
}
