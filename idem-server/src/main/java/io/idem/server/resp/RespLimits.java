package io.idem.server.resp;

import io.idem.server.dispatch.Config;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The bounds on what one client may make the decoder hold. Immutable; the decoder reads the current
 * value at each decode, so CONFIG SET applies to connections already open.
 *
 * @param maxBulkLength the longest bulk string, in bytes (proto-max-bulk-len)
 * @param maxArrayLength the most elements in one request array (max-multibulk-len)
 * @param maxInlineLength the longest inline command line, and the longest {@code *n} or {@code $n}
 *     header line, in bytes (max-inline-len; Redis's fixed 64 KiB)
 * @param maxQueryBuffer the most bytes one connection may hold for a request not yet complete: the
 *     arguments read so far plus the one being read (client-query-buffer-limit)
 */
public record RespLimits(
    long maxBulkLength, long maxArrayLength, long maxInlineLength, long maxQueryBuffer) {

  /** Redis's defaults: 512 MiB bulks, 1 Mi elements, 64 KiB lines, 1 GiB buffered. */
  public static final RespLimits DEFAULTS = new RespLimits(512L << 20, 1 << 20, 64 << 10, 1L << 30);

  /** The settings a RespLimits is made from, by their Config names. */
  static final String[] SETTINGS = {
    "proto-max-bulk-len", "max-multibulk-len", "max-inline-len", "client-query-buffer-limit"
  };

  public RespLimits {
    checkPositive(maxBulkLength, "maxBulkLength");
    checkPositive(maxArrayLength, "maxArrayLength");
    checkPositive(maxInlineLength, "maxInlineLength");
    checkPositive(maxQueryBuffer, "maxQueryBuffer");
  }

  /** The limits as {@code config} holds them now. */
  public static RespLimits from(Config config) {
    return new RespLimits(
        config.getLong(SETTINGS[0]),
        config.getLong(SETTINGS[1]),
        config.getLong(SETTINGS[2]),
        config.getLong(SETTINGS[3]));
  }

  /**
   * The limits of {@code config}, kept current as its settings change. Call it once per server and
   * give the supplier to every connection's decoder: each call registers listeners on the config
   * for the server's lifetime. A get is one volatile read.
   */
  public static Supplier<RespLimits> tracking(Config config) {
    AtomicReference<RespLimits> current = new AtomicReference<>(from(config));
    Consumer<String> update = value -> current.set(from(config));
    for (String setting : SETTINGS) {
      config.onChange(setting, update);
    }
    return current::get;
  }

  private static void checkPositive(long value, String name) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " (" + value + ") must be > 0");
    }
  }
}
