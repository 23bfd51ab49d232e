package io.idem.server.commands.queue;

import io.idem.server.engine.Engine;
import io.idem.server.engine.Entry;
import java.util.ArrayList;
import java.util.List;

/**
 * Every queue's counts, for INFO's queues section and the metrics endpoint: the queues the engine
 * lists (no walk of the keyspace), each read under its lock, at most {@link #MAX_LISTED}.
 */
public final class QueueStats {

  /** The most queues listed: past it, the rest are counted but not shown one by one. */
  public static final int MAX_LISTED = 1000;

  /** One queue's jobs as of now. */
  public record Counts(byte[] key, long ready, long delayed, long leased, long dead) {}

  /**
   * The queues and their counts, at most {@link #MAX_LISTED}; {@code total[0]} gets how many there
   * are. O(listed): the engine keeps the queues' keys apart, and a queue's counts are its sets'
   * sizes.
   */
  public static List<Counts> list(Engine engine, long[] total) {
    total[0] = engine.countOf(QueueCodec.INSTANCE);
    List<Counts> out = new ArrayList<>();
    for (byte[] key : engine.keysOf(QueueCodec.INSTANCE, MAX_LISTED)) {
      Counts c =
          engine.peek(
              key,
              e -> {
                JobQueue q = e == null ? null : Entry.valueOrNull(e, QueueCodec.INSTANCE);
                if (q == null) {
                  return null; // gone since it was listed
                }
                long[] n = q.counts(engine.now());
                return new Counts(key, n[0], n[1], n[2], n[3]);
              });
      if (c != null) {
        out.add(c);
      }
    }
    out.sort((a, b) -> java.util.Arrays.compare(a.key(), b.key()));
    return out;
  }

  /** A key as INFO shows it: printable ASCII as is, other bytes, ',', '=' and '\' as \xHH. */
  public static String printable(byte[] key) {
    StringBuilder b = new StringBuilder();
    for (byte x : key) {
      int c = x & 0xFF;
      if (c > 0x20 && c < 0x7F && c != ',' && c != '=' && c != '\\') {
        b.append((char) c);
      } else {
        b.append(String.format("\\x%02x", c));
      }
    }
    return b.toString();
  }

  private QueueStats() {}
}
