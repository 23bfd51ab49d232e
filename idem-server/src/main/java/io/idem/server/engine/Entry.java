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
