package io.idem.kafka;

import io.idem.core.store.RowChange;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One operation of a dedup table in its store's changelog: what {@link
 * io.idem.core.dedup.ClaimStore#record} was given, and the stream time it was made at.
 *
 * <pre>
 * u8 version (1) | u64 stream time | u8 op | u32 n | n bytes payload | u16 m | m row changes:
 *   u8 kind (1 put, 2 append, 3 delete, 4 delete range) | u16 n | key (or from) |
 *   put, append: u32 n | bytes; delete range: u16 n | to
 * </pre>
 *
 * @param now the stream time of the call that made the operation: restore moves the window to it
 *     first, so a changelog whose older records were deleted still replays
 */
record ChangelogRecord(long now, byte op, byte[] payload, List<RowChange> rows) {

  static final int VERSION = 1;

  /** A row key is the table's: at most a slice and a bucket. */
  private static final int MAX_KEY_BYTES = 64;

  /**
   * A row change's bytes: a release record at most (claims are written as rows by the store, not
   * logged), with room to spare.
   */
  private static final int MAX_ROW_BYTES = 1 << 20;

  byte[] encode() {
    int bytes = 1 + 8 + 1 + 4 + payload.length + 2;
    for (RowChange c : rows) {
      bytes += 1 + 2 + 4 + 2 * MAX_KEY_BYTES + rowBytes(c).length;
    }
    ByteBuffer b = ByteBuffer.allocate(bytes);
    b.put((byte) VERSION).putLong(now).put(op).putInt(payload.length).put(payload);
    b.putShort((short) rows.size());
    for (RowChange c : rows) {
      switch (c) {
        case RowChange.Put p ->
            key(b.put((byte) 1), p.key()).putInt(p.value().length).put(p.value());
        case RowChange.Append a ->
            key(b.put((byte) 2), a.key()).putInt(a.bytes().length).put(a.bytes());
        case RowChange.Delete d -> key(b.put((byte) 3), d.key());
        case RowChange.DeleteRange r -> key(key(b.put((byte) 4), r.from()), r.to());
      }
    }
    return java.util.Arrays.copyOf(b.array(), b.position());
  }

  private static byte[] rowBytes(RowChange c) {
    return switch (c) {
      case RowChange.Put p -> p.value();
      case RowChange.Append a -> a.bytes();
      default -> new byte[0];
    };
  }

  private static ByteBuffer key(ByteBuffer b, byte[] key) {
    return b.putShort((short) key.length).put(key);
  }

  /**
   * Reads a record {@link #encode} wrote.
   *
   * @throws IOException if the bytes are not such a record (a changelog someone else wrote to)
   */
  static ChangelogRecord decode(byte[] value) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(value);
    try {
      int version = b.get();
      if (version != VERSION) {
        throw new IOException("dedup changelog record version " + version + ", not " + VERSION);
      }
      long now = b.getLong();
      byte op = b.get();
      byte[] payload = bytes(b, b.getInt(), value.length);
      int n = b.getShort() & 0xffff;
      List<RowChange> rows = new ArrayList<>(Math.min(n, 16));
      for (int i = 0; i < n; i++) {
        int kind = b.get();
        byte[] key = bytes(b, b.getShort() & 0xffff, MAX_KEY_BYTES);
        rows.add(
            switch (kind) {
              case 1 -> new RowChange.Put(key, bytes(b, b.getInt(), MAX_ROW_BYTES));
              case 2 -> new RowChange.Append(key, bytes(b, b.getInt(), MAX_ROW_BYTES));
              case 3 -> new RowChange.Delete(key);
              case 4 ->
                  new RowChange.DeleteRange(key, bytes(b, b.getShort() & 0xffff, MAX_KEY_BYTES));
              default -> throw new IOException("dedup changelog row change of kind " + kind);
            });
      }
      if (b.hasRemaining()) {
        throw new IOException("dedup changelog record with " + b.remaining() + " bytes left over");
      }
      return new ChangelogRecord(now, op, payload, rows);
    } catch (BufferUnderflowException | IllegalArgumentException e) {
      throw new IOException("a short dedup changelog record of " + value.length + " bytes", e);
    }
  }

  private static byte[] bytes(ByteBuffer b, int n, int max) {
    if (n < 0 || n > max || n > b.remaining()) {
      throw new IllegalArgumentException("length " + n);
    }
    byte[] out = new byte[n];
    b.get(out);
    return out;
  }
}
