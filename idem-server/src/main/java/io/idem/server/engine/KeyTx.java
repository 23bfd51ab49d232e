package io.idem.server.engine;

import io.idem.core.store.RowChange;
import org.jspecify.annotations.Nullable;

/**
 * A write to one key, under that key's lock: see the entry, create it, log operations on it, delete
 * it. Every change goes to the journal here, so nothing changes unlogged.
 */
public interface KeyTx {

  Key key();

  /** The live entry, or null if the key is free (an expired entry is already gone). */
  @Nullable Entry entry();

  /** The value if the key holds one of the codec's type, null if free, else WRONGTYPE. */
  default <T> @Nullable T value(ValueCodec<T> codec) {
    return Entry.valueOrNull(entry(), codec);
  }

  /**
   * Puts a new value at the free key. {@code recipe} is what {@link ValueCodec#create} needs to
   * build the same empty value again on restart.
   *
   * @throws IllegalStateException if the key is not free
   */
  <T> T create(ValueCodec<T> codec, T value, byte[] recipe);

  /** Logs an operation already applied to the entry's value (see {@link ValueCodec#apply}). */
  default void log(byte op, byte[] payload) {
    log(op, payload, java.util.List.of());
  }

  /**
   * Logs an operation already applied to the entry's resident value, with the changes it makes to
   * the entry's rows (in the store from now on, for every reader).
   */
  void log(byte op, byte[] payload, java.util.List<RowChange> rows);

  /** Changes the entry's rows alone (see {@link Journal#rowsChanged}). */
  void change(java.util.List<RowChange> rows);

  /**
   * Sets the key's expiry to {@code atMillis}, which must be in the future (a value that keeps
   * itself only until a time, as CL.THROTTLE's limiter). Logged as an expiry change.
   */
  void expireAt(long atMillis);

  /**
   * Removes the key's expiry, if it has one (a command that replaces the key's value in place, as
   * Redis replaces the key). Logged as an expiry change.
   */
  void persist();

  /** Removes the key; it is free afterwards. */
  void delete();

  /**
   * Visits the value's background work by {@code atMillis} (a command that gave it work, as a
   * queue's first schedule): an earlier visit already asked for stays, a later one is brought
   * forward. Not logged: the visit is the node's own, and what it does is logged.
   */
  void visitBy(long atMillis);
}
