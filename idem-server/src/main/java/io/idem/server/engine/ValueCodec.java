package io.idem.server.engine;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * How the engine keeps one type of resident value durable: created from a small recipe, changed by
 * logged operations, snapshotted whole. Replaying a value's operations in log order on its snapshot
 * (or on its recipe) must give back the same value, so every logged operation must be
 * deterministic.
 *
 * @param <T> the value's class
 */
public interface ValueCodec<T> {

  /** The byte that names the type on disk; never reused for another type. */
  byte typeId();

  /** What TYPE replies for it, as the Redis module that defined the type does. */
  String typeName();

  Class<T> valueClass();

  /** Builds a new, empty value from the recipe its creation logged. */
  T create(byte[] recipe) throws IOException;

  /** Replays one logged operation. */
  void apply(T value, byte op, byte[] payload) throws IOException;

  /** Writes a snapshot of the value. */
  void write(T value, OutputStream out) throws IOException;

  /** Reads a snapshot, allocating at most {@code maxBytes} for it. */
  T read(InputStream in, long maxBytes) throws IOException;

  /**
   * Whether values of this type keep rows in the store ({@link Rows}): the store then deletes the
   * rows with the value.
   */
  default boolean hasRows() {
    return false;
  }

  /**
   * Writes what DEBUG DIGEST hashes of the value: its content in a form two nodes holding the same
   * data write alike, however they got it. By default its snapshot; a value with rows adds them
   * ({@code rows}, under {@code valueId}), and a value whose snapshot also holds work in progress
   * (claims not yet written as rows) writes its content in one form, written or not.
   */
  default void writeDigest(T value, long valueId, Rows rows, OutputStream out) throws IOException {
    write(value, out);
  }

  default boolean listed() {
    return false;
  }

  /**
   * Drops what the value's window left by {@code now} (an exact dedup table's old slices, a
   * counter's rows past their retention), logging the change in {@code tx}; true if it dropped
   * anything. What the background does on a server alone, and WINDOWDUE on a node with a log.
   */
  default boolean moveWindow(KeyTx tx, T value, long now) {
    return false;
  }

  /** Whether values of this type have background work: they are visited from creation on. */
  default boolean hasBackgroundWork() {
    return false;
  }

  /** {@link #background}'s answer for a value with no more background work. */
  long NEVER = Long.MAX_VALUE;

  /** {@link #background}'s answer for a value to visit again in the next round. */
  long NEXT_ROUND = Long.MIN_VALUE;

  /**
   * Background work on a live value, from the engine's background thread and outside any lock: take
   * the key's lock with {@link Engine#writeEntry} for each step that touches the value. A value is
   * first visited in the round after it is created or loaded.
   *
   * @return when to visit the value next, in the engine's milliseconds ({@link Engine#now}): only
   *     the values due are visited, so a round costs what is due, not what is held; {@link
   *     #NEXT_ROUND} or {@link #NEVER}
   */
  default long background(Engine engine, Entry entry) {
    return NEVER;
  }

  /** Bytes of memory the value holds: what MEMORY USAGE and maxmemory count. */
  long memoryUsage(T value);
}
