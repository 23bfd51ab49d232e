package io.idem.core.seen;

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
}
