package io.idem.core.store;

import org.jspecify.annotations.Nullable;

/**
 * A change to a stored value's rows, journaled in the same write as the operation that made it. Row
 * keys are the value's own: the store scopes them to the value's id, so rows survive RENAME and go
 * with the value when it is deleted.
 */
public sealed interface RowChange {

  /** Sets the row at {@code key} to a value that is not empty (an empty row is a delete). */
  record Put(byte[] key, byte[] value) implements RowChange {
    public Put {
      if (value.length == 0) {
        throw new IllegalArgumentException("an empty row: delete it instead");
      }
    }
  }

  /**
   * Appends {@code bytes} to the row at {@code key}, making it if absent: a row is the
   * concatenation of the appends since its last put or delete, in the order they reached the store.
   * A read that races with a journaled append's write may see its bytes twice at the row's end:
   * rows that are appended to must read the same with a record repeated.
   */
  record Append(byte[] key, byte[] bytes) implements RowChange {
    /** The row with these bytes after it. */
    public byte[] appliedTo(byte @Nullable [] row) {
      if (row == null) {
        return bytes.clone();
      }
      byte[] out = java.util.Arrays.copyOf(row, row.length + bytes.length);
      System.arraycopy(bytes, 0, out, row.length, bytes.length);
      return out;
    }
  }

  /** Removes the row at {@code key}, if any. */
  record Delete(byte[] key) implements RowChange {}

  /**
   * Removes every row in [{@code from}, {@code to}) in unsigned byte order. Reads must not look
   * into a range they deleted: a store may apply range deletes only when the change is written.
   */
  record DeleteRange(byte[] from, byte[] to) implements RowChange {}
}
