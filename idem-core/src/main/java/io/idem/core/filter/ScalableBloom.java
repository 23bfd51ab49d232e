package io.idem.core.filter;

import java.io.IOException;
import java.util.function.LongPredicate;

/**
 * A scalable Bloom filter in either layout, item by item: RedisBloom's chain of classic filters
 * ({@link RedisBloomChain}) or Idem's blocked layers ({@link ScalableBloomFilter}). What BF.* asks
 * of a filter goes through here, so a handler has one path whichever layout a key holds.
 *
 * <p>An item is known by a pair of 64-bit hashes of the layout's own function ({@link #hash}); the
 * pair is also what a log keeps of an add, so a replay needs no items. The answers are the layout's
 * own: no false negatives, and the false-positive rate it was sized for.
 *
 * <p>A dump (BF.SCANDUMP, BF.LOADCHUNK) is in the layout's own bytes: RedisBloom's for its layout,
 * so that RedisBloom loads it back, and {@link BloomDump}'s for Idem's. Its iterators follow
 * RedisBloom's convention either way: 0 asks for the header, which comes back under iterator 1, and
 * each chunk comes back under 1 + the byte offset just past it. A refusal is a {@link
 * BadDumpException} carrying RedisBloom's reply text.
 */
public sealed interface ScalableBloom permits RedisBloomChain, ScalableBloomFilter {

  /** The item's hash pair, by this layout's function, into {@code pair[0]} and {@code pair[1]}. */
  void hash(byte[] item, long[] pair);

  /** False only if the item of this hash pair was certainly never added. */
  boolean mightContain(long a, long b);

  /**
   * {@link #mightContain} for the first {@code n} pairs {@code (a[i], b[i])}, into {@code
   * found[i]}: the same answers, with the items' memory reads overlapped.
   */
  void mightContainAll(long[] a, long[] b, int n, boolean[] found);

  /**
   * Adds the item of this hash pair unless the filter may hold it already.
   *
   * @return true if the item was certainly new
   * @throws FilterFullException if it is new and the filter cannot take it: non-scaling and full,
   *     or at its limit of layers
   */
  boolean add(long a, long b);

  /** Whether a new item would need a new layer first (the only add that allocates). */
  boolean needsNewLayer();

  /**
   * Bytes the next layer would take, for a memory check before an add that needs it: 0 if an add
   * needs none, {@link Long#MAX_VALUE} if no array can hold it (the add would refuse it as well).
   */
  long bytesOfNextLayer();

  boolean isScaling();

  /** The items the filter is sized for, summed over its layers. */
  long capacity();

  /** The items added: those that were certainly new. */
  long itemCount();

  /** Bytes the filter holds. */
  long sizeInBytes();

  int layerCount();

  /** How much larger each new layer is than the one before. */
  int expansion();

  /** The false-positive rate asked for at creation. */
  double configuredErrorRate();

  /** The false-positive rate the filter has now, from its layers' fill. */
  double estimatedFalsePositiveRate();

  /**
   * The layout's name, as the setting bf-layout and BF.INFO's LAYOUT spell it: {@code classic} for
   * RedisBloom's chain of classic Bloom filters, {@code blocked} for Idem's blocked layers.
   */
  String layoutName();

  /**
   * Layer {@code i} (0 the oldest) as BF.DEBUG prints it: its bytes, bits, hashes, hash width,
   * capacity, items and error rate, in RedisBloom's words and number format.
   */
  String describeLayer(int i);

  /** As {@link #mightContain(long, long)}, for the item itself. */
  default boolean mightContainItem(byte[] item) {
    long[] pair = new long[2];
    hash(item, pair);
    return mightContain(pair[0], pair[1]);
  }

  // ---- BF.SCANDUMP and BF.LOADCHUNK

  /**
   * The dump's header, which SCANDUMP replies for iterator 0: the shape of every layer, O(layers).
   */
  byte[] dumpHeader();

  /**
   * The chunk SCANDUMP replies for an iterator of 1 or more: part of one layer's bits, copied
   * (never the whole filter), and the iterator that asks for the next; {@link DumpChunk#END} past
   * the last.
   *
   * @throws BadDumpException {@code invalid iterator} if Idem's layout cuts no chunk there
   *     (RedisBloom's layout, as RedisBloom, answers from any offset, and END below 1)
   */
  DumpChunk dumpChunk(long iterator) throws BadDumpException;

  /**
   * Writes back a chunk SCANDUMP gave with this iterator, into a filter made from the same dump's
   * header ({@link #fromHeader}). A chunk refused changes nothing.
   *
   * @throws BadDumpException with RedisBloom's reply: {@code received bad data} (Idem's layout: any
   *     chunk that is not exactly one it cuts there), or RedisBloom's layout's own texts for a
   *     chunk past its links or too large for one
   */
  void loadChunk(long iterator, byte[] data) throws BadDumpException;

  /**
   * The empty filter a dump's header declares (BF.LOADCHUNK at iterator 1 on a free key), in the
   * layout the header is from: Idem's, which starts with its magic, else RedisBloom's. The header
   * is checked whole, and {@code memory} asked for the bits, before anything sized by it is
   * allocated.
   *
   * @param memory whether the filter's bytes may be spent
   * @param storage how a filter in Idem's layout keeps its layers
   * @throws BadDumpException {@code received bad data} with what was wrong (for a header that is
   *     not Idem's, that it is neither layout's); {@code Insufficient memory to create filter} if
   *     {@code memory} refuses the bits or their allocation fails. Nothing is kept.
   */
  static ScalableBloom fromHeader(byte[] header, LongPredicate memory, BloomFilter.Storage storage)
      throws BadDumpException {
    if (!BloomDump.isIdemHeader(header)) {
      try {
        return RedisBloomChain.fromHeader(header, memory);
      } catch (BadDumpException e) {
        if (!e.reply().equals(BloomDump.BAD_DATA)) {
          throw e;
        }
        throw new BadDumpException(
            BloomDump.BAD_DATA, "neither Idem's header nor RedisBloom's: " + e.getMessage());
      } catch (OutOfMemoryError e) {
        // One link's array failed: nothing else was touched.
        throw new BadDumpException(BloomDump.NO_MEMORY, "the links could not be allocated");
      }
    }
    BloomDump.Header h;
    try {
      h = BloomDump.parseHeader(header);
    } catch (IOException e) {
      throw new BadDumpException(BloomDump.BAD_DATA, e.getMessage());
    }
    if (!memory.test(h.bytes())) {
      throw new BadDumpException(
          BloomDump.NO_MEMORY, "the header asks for " + h.bytes() + " bytes");
    }
    try {
      return BloomDump.build(h, storage);
    } catch (OutOfMemoryError e) {
      // One layer's array failed: nothing else was touched.
      throw new BadDumpException(
          BloomDump.NO_MEMORY, "the header's " + h.bytes() + " bytes could not be allocated");
    }
  }
}
