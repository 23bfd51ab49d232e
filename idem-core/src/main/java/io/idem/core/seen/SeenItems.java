package io.idem.core.seen;

import java.util.ArrayList;
import java.util.List;

/**
 * A per-user set of items already shown: answers "seen before?" with no false negatives while an
 * item is remembered. {@link SeenCache} keeps it in a cookie; idem-client's server-backed one keeps
 * it on an Idem server, so an application can switch between them by configuration.
 */
public interface SeenItems {
  /** False only if the item was certainly not added (or has been aged out). */
  boolean mightContain(byte[] item);

  /**
   * Records the item as seen.
   *
   * @return true if it was certainly not seen before; false if it may have been
   */
  boolean add(byte[] item);

  /** {@link #mightContain} for each item, in order; a server-backed one asks once for all. */
  default List<Boolean> mightContainAll(List<byte[]> items) {
    List<Boolean> out = new ArrayList<>(items.size());
    for (byte[] item : items) {
      out.add(mightContain(item));
    }
    return out;
  }

  /** {@link #add} for each item, in order; a server-backed one sends them together. */
  default void addAll(List<byte[]> items) {
    for (byte[] item : items) {
      add(item);
    }
  }
}
