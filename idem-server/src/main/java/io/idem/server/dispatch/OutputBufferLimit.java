package io.idem.server.dispatch;

import java.util.Locale;

/**
 * Redis's {@code client-output-buffer-limit} for normal clients: a connection whose unsent replies
 * reach {@code hardBytes}, or stay at or above {@code softBytes} for {@code softSeconds}, is
 * closed. 0 turns a limit off. The setting's text names classes as Redis's does ({@code normal
 * 256mb 64mb 60 replica 0 0 0 pubsub 0 0 0}); Idem has normal clients only, and keeps the others'
 * values so CONFIG GET shows back what was set.
 */
public record OutputBufferLimit(long hardBytes, long softBytes, long softSeconds) {

  /** Idem's default: Redis leaves normal clients unbounded; one client must not take the heap. */
  public static final String DEFAULT = "normal 256mb 64mb 60 replica 0 0 0 pubsub 32mb 8mb 60";

  /** The normal class's limit in a setting's text; throws IllegalArgumentException if invalid. */
  public static OutputBufferLimit parse(String text) {
    return parseAll(text).normal;
  }

  /** How each class's hard and soft limits parse: Redis's byte units. */
  private static final Config.Setting BYTES =
      Config.bytes("client-output-buffer-limit", 0, 0, Long.MAX_VALUE, true, "");

  private record Parsed(OutputBufferLimit normal, String normalized) {}

  /** The text with each class's numbers in bytes and seconds, in the order given. */
  static String normalize(String text) {
    return parseAll(text).normalized;
  }

  private static Parsed parseAll(String text) {
    String[] words = text.trim().split("\\s+");
    if (words.length == 0 || words[0].isEmpty() || words.length % 4 != 0) {
      throw new IllegalArgumentException(
          "client-output-buffer-limit must be groups of <class> <hard> <soft> <seconds>, not '"
              + text.trim()
              + "'");
    }
    OutputBufferLimit normal = null;
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < words.length; i += 4) {
      String cls = words[i].toLowerCase(Locale.ROOT);
      if (cls.equals("slave")) {
        cls = "replica";
      }
      if (!cls.equals("normal") && !cls.equals("replica") && !cls.equals("pubsub")) {
        throw new IllegalArgumentException(
            "client-output-buffer-limit has an unknown class '"
                + words[i]
                + "' (use normal, replica or pubsub)");
      }
      long hard = Config.parseBytes(BYTES, words[i + 1]);
      long soft = Config.parseBytes(BYTES, words[i + 2]);
      long seconds;
      try {
        seconds = Long.parseLong(words[i + 3]);
      } catch (NumberFormatException e) {
        seconds = -1;
      }
      if (seconds < 0) {
        throw new IllegalArgumentException(
            "client-output-buffer-limit's seconds must be an integer >= 0, not '"
                + words[i + 3]
                + "'");
      }
      if (cls.equals("normal")) {
        normal = new OutputBufferLimit(hard, soft, seconds);
      }
      b.append(b.isEmpty() ? "" : " ")
          .append(cls)
          .append(' ')
          .append(hard)
          .append(' ')
          .append(soft)
          .append(' ')
          .append(seconds);
    }
    return new Parsed(normal == null ? new OutputBufferLimit(0, 0, 0) : normal, b.toString());
  }

  /**
   * Why a connection holding {@code bytes} of replies must close now, or null: over the hard limit,
   * or over the soft one since {@code softSinceMillis} (0: not over it before) for too long.
   */
  public String breach(long bytes, long softSinceMillis, long nowMillis) {
    if (hardBytes > 0 && bytes >= hardBytes) {
      return "output buffer of " + bytes + " bytes reached the hard limit of " + hardBytes;
    }
    if (softBytes > 0
        && bytes >= softBytes
        && softSinceMillis > 0
        && nowMillis - softSinceMillis >= softSeconds * 1000) {
      return "output buffer of "
          + bytes
          + " bytes stayed over the soft limit of "
          + softBytes
          + " for "
          + softSeconds
          + " s";
    }
    return null;
  }
}
