package io.idem.core.filter;

import java.io.IOException;
import java.util.function.LongPredicate;

/**
 * A growing cuckoo filter in either layout, item by item: RedisBloom's ({@link RedisBloomCuckoo})
 * or Idem's ({@link CuckooFilter}). What CF.* asks of a filter goes through here, so a handler has
 * one path whichever layout a key holds.
 *
 * <p>An item is known by a hash pair of the layout's own function ({@link #hash}; RedisBloom's uses
 * the first half only), which is also what a log keeps of a change.
 *
 * <p>A dump (CF.SCANDUMP, CF.LOADCHUNK) is in the layout's own bytes: RedisBloom's for its layout,
 * so that RedisBloom loads it back, and {@link CuckooDump}'s for Idem's. Its positions follow
 * RedisBloom's convention either way: 0 asks for the header, which comes back under position 1, and
 * each chunk comes back under 1 + the byte offset just past it. A refusal is a {@link
 * BadDumpException} carrying RedisBloom's reply text.
 */
public sealed interface ScalableCuckoo permits RedisBloomCuckoo, CuckooFilter {

  /** What an insert did, as RedisBloom's CuckooInsertStatus. */
  enum Insert {
    INSERTED,
    /** An insert-if-absent found the item. */
    EXISTS,
    /** No room, and the filter does not grow (expansion 0). */
    NO_SPACE,
    /** No room, and the filter may not grow further (or the caller may not spend its memory). */
    TOO_LARGE
  }

  /** The item's hash pair, by this layout's function, into {@code pair[0]} and {@code pair[1]}. */
  void hash(byte[] item, long[] pair);

  /** False only if the item of this hash pair is certainly absent. */
  boolean mightContain(long a, long b);

  /** How many copies of the item's fingerprint the filter holds (CF.COUNT). */
  long count(long a, long b);

  /**
   * Inserts the item; nothing changes unless it answers {@link Insert#INSERTED}.
   *
   * @param unique insert only if the item may not be present (CF.ADDNX)
   * @param mayGrow whether a new sub-filter may be made (the caller can spend {@link
   *     #bytesOfNextFilter})
   */
  Insert insert(long a, long b, boolean unique, boolean mayGrow);

  /** Bytes the next sub-filter would take, or -1 if the filter cannot grow. */
  long bytesOfNextFilter();

  /** Whether the filter has as many sub-filters as an insert command accepts. */
  boolean atFilterLimit();

  /**
   * Removes one copy of the item, then compacts as RedisBloom's CF.DEL does once deletes pass a
   * tenth of the items in a grown filter.
   */
  boolean delete(long a, long b);

  /** CF.COMPACT: moves fingerprints into older sub-filters; whether anything may have changed. */
  boolean compact();

  long itemCount();

  long deleteCount();

  int filterCount();

  long bucketCount();

  int bucketSize();

  int maxIterations();

  int expansion();

  long sizeInBytes();

  /** As {@link #mightContain(long, long)}, for the item itself. */
  default boolean mightContainItem(byte[] item) {
    long[] pair = new long[2];
    hash(item, pair);
    return mightContain(pair[0], pair[1]);
  }

  // ---- CF.SCANDUMP and CF.LOADCHUNK

  /** The dump's header, which SCANDUMP replies for position 0: the filter's shape, O(1). */
  byte[] dumpHeader();

  /**
   * The chunk SCANDUMP replies for a position of 1 or more: part of one sub-filter, copied (never
   * the whole filter), and the position that asks for the next; {@link DumpChunk#END} past the last
   * (RedisBloom's layout, as RedisBloom, also for a filter without items).
   *
   * @throws BadDumpException {@code Invalid position} if Idem's layout cuts no chunk there
   *     (RedisBloom's layout answers from any offset, and END below 1)
   */
  DumpChunk dumpChunk(long position) throws BadDumpException;

  /**
   * Writes back a chunk SCANDUMP gave with this position, into a filter made from the same dump's
   * header ({@link #fromHeader}). A chunk refused changes nothing.
   *
   * @throws BadDumpException {@code Couldn't load chunk!} if the chunk does not fit there (Idem's
   *     layout: if it is not exactly one it cuts there)
   */
  void loadChunk(long position, byte[] data) throws BadDumpException;

  /**
   * The empty filter a dump's header declares (CF.LOADCHUNK at position 1 on a free key), in the
   * layout the header is from, told by its length: RedisBloom's 38 bytes or Idem's 49. The header
   * is checked whole, and {@code memory} asked for the filter, before anything sized by it is
   * allocated.
   *
   * @param memory whether the filter's bytes may be spent
   * @throws BadDumpException {@code Invalid header} for another length; {@code Couldn't create
   *     filter!} with what was wrong, also when {@code memory} refuses the bytes (for Idem's layout
   *     also when their allocation fails); {@code ERR Insufficient memory to create filter} when
   *     the allocation of RedisBloom's layout fails, as CF.RESERVE replies. Nothing is kept.
   */
  static ScalableCuckoo fromHeader(byte[] header, LongPredicate memory) throws BadDumpException {
    if (header.length == RedisBloomCuckoo.HEADER_LENGTH) {
      try {
        return RedisBloomCuckoo.fromHeader(header, memory);
      } catch (BadDumpException e) {
        throw new BadDumpException(CuckooDump.CANNOT_CREATE, e.getMessage());
      } catch (OutOfMemoryError e) {
        // One sub-filter's array failed: nothing else was touched.
        throw new BadDumpException(
            "ERR Insufficient memory to create filter", "the sub-filters could not be allocated");
      }
    }
    if (header.length != CuckooDump.HEADER_BYTES) {
      throw new BadDumpException(
          CuckooDump.INVALID_HEADER, "a header of " + header.length + " bytes");
    }
    CuckooDump.Header h;
    try {
      h = CuckooDump.parseHeader(header);
    } catch (IOException e) {
      throw new BadDumpException(CuckooDump.CANNOT_CREATE, e.getMessage());
    }
    long bytes = h.shape().bytes();
    if (!memory.test(bytes)) {
      throw new BadDumpException(CuckooDump.CANNOT_CREATE, "no memory for its " + bytes + " bytes");
    }
    try {
      return CuckooDump.build(h);
    } catch (OutOfMemoryError e) {
      // One sub-table's array failed: nothing else was touched.
      throw new BadDumpException(CuckooDump.CANNOT_CREATE, "no memory for its " + bytes + " bytes");
    }
  }
}
