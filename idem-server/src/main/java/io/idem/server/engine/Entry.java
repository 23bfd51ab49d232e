package io.idem.server.engine;

import org.jspecify.annotations.Nullable;

/**
 * One live key's value. Its id names the value on disk and survives RENAME; its key may change.
 * Fields are guarded by the lock of the key's stripe; volatile ones are also read without it.
 */
public final class Entry {

  /** No expiry. */
  public static final long PERSISTENT = Long.MAX_VALUE;

  private final long id;
  private final ValueCodec<?> codec;
  private Object value;
  private volatile Key key;
  private volatile long expireAtMillis = PERSISTENT;
  long memory;

  /** Changes made to the value or its expiry, for WATCH: a watched key is touched when it moves. */
  long version;

  /**
   * Whether the value changed since its last snapshot: the store's mark, set under the key's lock,
   * so that a write to a value already marked costs a field read (see {@link #markChanged}).
   */
  private volatile boolean changed;

  /** Its next background visit, if it has background work (the engine's schedule). */
  volatile Engine.@Nullable Visit visit;

  Entry(long id, Key key, ValueCodec<?> codec, Object value) {
    this.id = id;
    this.key = key;
    this.codec = codec;
    this.value = value;
  }

  public long id() {
    return id;
  }

  public Key key() {
    return key;
  }

  void setKey(Key key) {
    this.key = key;
  }

  public ValueCodec<?> codec() {
    return codec;
  }

  public long expireAtMillis() {
    return expireAtMillis;
  }

  void setExpireAtMillis(long at) {
    this.expireAtMillis = at;
  }

  public Object value() {
    return value;
  }

  /** Marks the value changed since its last snapshot; false if it already was. */
  public boolean markChanged() {
    if (changed) {
      return false;
    }
    changed = true;
    return true;
  }

  /** The value's snapshot is taken (under the key's lock): later changes mark it again. */
  public void clearChanged() {
    changed = false;
  }

  /** The value's snapshot failed: it stays marked changed. */
  public void keepChanged() {
    changed = true;
  }

  /** The value if it is of the codec's type, else a WRONGTYPE error. */
  public <T> T valueAs(ValueCodec<T> expected) {
    if (codec != expected) {
      throw new WrongTypeException();
    }
    return expected.valueClass().cast(value);
  }

  /** The value if it is of the codec's type, null if the entry is null, else WRONGTYPE. */
  public static <T> @Nullable T valueOrNull(@Nullable Entry e, ValueCodec<T> expected) {
    return e == null ? null : e.valueAs(expected);
  }

  @SuppressWarnings("unchecked")
  long measure() {
    return ((ValueCodec<Object>) codec).memoryUsage(value) + key.bytes().length + 64;
  }
}
