package io.idem.server.store;

import io.idem.server.engine.Entry;
import io.idem.server.engine.Key;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The store's byte layout on disk (format version 2, all integers big-endian), by column family:
 *
 * <pre>
 * default  "format"                      -> u32 format version (2; 1 had single records only)
 *          "seq"                         -> u64 last sequence number written
 *          "m:" name                     -> the journal's named values (Journal.putMeta): a
 *                                           cluster node's applied offsets
 * names    'k' key bytes                 -> u64 value id | i64 expiry millis (Long.MAX_VALUE: none)
 * objects  u64 id                        -> u8 type | u64 snapshot seq | i64 snapshot version
 *                                           (-1: none, build from the recipe) | u32 n | n bytes recipe
 * chunks   u64 id | i64 version | u32 i  -> up to 4 MiB of the value's snapshot, chunk i
 * log      u64 seq | 0x01               -> a group: n x (u64 seq | u32 length | record), keyed by
 *                                           its last record's seq; one a commit group, at most
 *                                           GROUP_BYTES each
 *          u64 seq                       -> one record (format 1, read still)
 *          record: u64 id | u8 op | payload (ValueCodec.apply's bytes)
 * rows     u64 id | row key              -> row value (stored values' rows, see engine.Rows)
 * </pre>
 *
 * <p>Invariants: a value is its snapshot (or its recipe) plus the log records of its id with a
 * sequence number above its snapshot seq, applied in order. A value is live iff a name points at
 * it; objects and chunks no name or version points at are garbage, removed at start. The log is
 * truncated only below a sequence number every dirty value has been snapshotted past. Rows are
 * written in the same batch as the log record of the operation that changed them and are never
 * truncated; rows no live id owns are garbage, removed with their value or at start.
 */
final class Layout {

  static final int FORMAT_VERSION = 2;

  /** The format before log records were grouped: read, and upgraded in place. */
  static final int FORMAT_SINGLE_RECORDS = 1;

  /** A log group's records stop growing it past this many bytes: the next ones start another. */
  static final int GROUP_BYTES = 1 << 20;

  /** The byte after a group's seq in its key: it sorts after seq and before seq + 1. */
  static final byte GROUP_MARK = 1;

  static final int CHUNK_BYTES = 4 << 20;
  static final byte[] META_FORMAT = ascii("format");
  static final byte[] META_SEQ = ascii("seq");
  static final byte NAME_PREFIX = 'k';

  /** A snapshot bigger than this is refused on load as corrupt: no value is near it. */
  static final long MAX_SNAPSHOT_BYTES = 64L << 30;

  /** Bytes of an object record before its recipe. */
  static final int OBJECT_HEADER_BYTES = 21;

  private Layout() {}

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  static byte[] metaKey(String name) {
    return ("m:" + name).getBytes(StandardCharsets.UTF_8);
  }

  static byte[] nameKey(Key key) {
    byte[] k = key.bytes();
    byte[] out = new byte[k.length + 1];
    out[0] = NAME_PREFIX;
    System.arraycopy(k, 0, out, 1, k.length);
    return out;
  }

  static byte[] nameValue(Entry e) {
    return ByteBuffer.allocate(16).putLong(e.id()).putLong(e.expireAtMillis()).array();
  }

  static byte[] objectValue(byte type, long seq, long version, byte[] recipe) {
    return ByteBuffer.allocate(OBJECT_HEADER_BYTES + recipe.length)
        .put(type)
        .putLong(seq)
        .putLong(version)
        .putInt(recipe.length)
        .put(recipe)
        .array();
  }

  /** Ids order as unsigned big-endian bytes; idKey(-1) is past every id. */
  static byte[] idKey(long id) {
    return ByteBuffer.allocate(8).putLong(id).array();
  }

  static byte[] seqKey(long seq) {
    return ByteBuffer.allocate(8).putLong(seq).array();
  }

  /**
   * The key of a log group whose last record has {@code lastSeq}: a range delete below {@code
   * seqKey(s + 1)} takes it exactly when all its records are at or below s.
   */
  static byte[] groupKey(long lastSeq) {
    return ByteBuffer.allocate(9).putLong(lastSeq).put(GROUP_MARK).array();
  }

  static byte[] chunkKey(long id, long version, int index) {
    return ByteBuffer.allocate(20).putLong(id).putLong(version).putInt(index).array();
  }
}
