package io.idem.server.reply;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A reply value, independent of the wire protocol: handlers return these and never touch a channel.
 * The encoder writes each shape in RESP2 or RESP3 as the connection negotiated (RESP2 has no map,
 * set, double, boolean or null types, so the encoder falls back as Redis does).
 */
public sealed interface Reply {

  /** {@code +text}: a status such as OK. Must not contain CR or LF. */
  record Simple(String text) implements Reply {}

  /**
   * {@code -text}: an error. The text starts with its code ({@code ERR}, {@code WRONGTYPE}, {@code
   * NOAUTH}, ...) exactly as Redis or RedisBloom print it. Must not contain CR or LF.
   */
  record Error(String text) implements Reply {}

  /** {@code :n}. */
  record Int(long value) implements Reply {}

  /** {@code $len\r\nbytes}: a binary-safe string. */
  record Bulk(byte[] bytes) implements Reply {}

  /** A missing value: RESP2 {@code $-1}, RESP3 {@code _}. */
  record Null() implements Reply {}

  /** A missing array: RESP2 {@code *-1}, RESP3 {@code _}. */
  record NullArray() implements Reply {}

  /** {@code *n}. */
  record Array(List<Reply> items) implements Reply {}

  /**
   * {@code *rows} of {@code *width} integers each, row after row from one array the reply now owns
   * ({@code values.length / width} rows): a windowed query's counts, a row per name, without an
   * object per count or per row. Encoded and shown as the {@link Array} of {@link Array}s of {@link
   * Int}s it stands for; equal to another {@code IntRows} of the same values and width.
   */
  record IntRows(long[] values, int width) implements Reply {
    public IntRows {
      if (width <= 0 || values.length % width != 0) {
        throw new IllegalArgumentException(values.length + " values do not make rows of " + width);
      }
    }

    public int rows() {
      return values.length / width;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof IntRows other
          && width == other.width
          && java.util.Arrays.equals(values, other.values);
    }

    @Override
    public int hashCode() {
      return 31 * width + java.util.Arrays.hashCode(values);
    }

    @Override
    public String toString() {
      return "IntRows[width=" + width + ", values=" + java.util.Arrays.toString(values) + "]";
    }
  }

  /** RESP3 {@code %n} of key-value pairs; RESP2 a flat array of 2n items. */
  record Map(List<Reply> keysAndValues) implements Reply {
    public Map {
      if (keysAndValues.size() % 2 != 0) {
        throw new IllegalArgumentException("a map needs an even number of items");
      }
    }
  }

  /** RESP3 {@code ~n}; RESP2 an array. */
  record Set(List<Reply> items) implements Reply {}

  /** RESP3 {@code ,d}; RESP2 a bulk string of the same text. */
  record Double(double value) implements Reply {}

  /** RESP3 {@code #t}/{@code #f}; RESP2 {@code :1}/{@code :0}. */
  record Bool(boolean value) implements Reply {}

  /** RESP3 {@code =len\r\nfmt:text} (INFO, CLIENT LIST); RESP2 a bulk string of the text. */
  record Verbatim(String format, String text) implements Reply {}

  /**
   * No reply at all: SHUTDOWN answers nothing when it succeeds, and clients expect the connection
   * to close instead (Jedis treats any reply as a failed shutdown). Only valid at the top level.
   */
  record None() implements Reply {}

  /**
   * A reply that is not known yet: a cluster node's write, answered once its record is applied.
   * Only valid at the top level; the connection holds it, and the replies after it, until the
   * future completes, then writes what it completed with.
   */
  record Deferred(java.util.concurrent.CompletableFuture<Reply> future) implements Reply {}

  Simple OK = new Simple("OK");
  None NONE = new None();
  Null NULL = new Null();
  NullArray NULL_ARRAY = new NullArray();
  Int ZERO = new Int(0);
  Int ONE = new Int(1);
  Array EMPTY_ARRAY = new Array(List.of());

  static Simple simple(String text) {
    return new Simple(text);
  }

  static Error error(String text) {
    return new Error(text);
  }

  /** An {@code ERR}-coded error: {@code err("not found")} is {@code -ERR not found}. */
  static Error err(String message) {
    return new Error("ERR " + message);
  }

  /**
   * Shared replies for 0 to 1023: counts and sums are mostly small, and one COUNTER.QUERY replies
   * with dozens of them.
   */
  final class SmallInts {
    private static final Int[] CACHE = new Int[1024];

    static {
      CACHE[0] = ZERO;
      CACHE[1] = ONE;
      for (int i = 2; i < CACHE.length; i++) {
        CACHE[i] = new Int(i);
      }
    }

    private SmallInts() {}
  }

  static Int integer(long value) {
    return value >= 0 && value < SmallInts.CACHE.length
        ? SmallInts.CACHE[(int) value]
        : new Int(value);
  }

  static Bulk bulk(byte[] bytes) {
    return new Bulk(bytes);
  }

  static Bulk bulk(String text) {
    return new Bulk(text.getBytes(StandardCharsets.UTF_8));
  }

  static Array array(List<Reply> items) {
    return new Array(items);
  }

  static Array array(Reply... items) {
    return new Array(List.of(items));
  }

  static Map map(List<Reply> keysAndValues) {
    return new Map(keysAndValues);
  }
}
