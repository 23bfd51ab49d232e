package io.idem.server.store;

import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.rocksdb.RocksDBException;

/**
 * Where the store may be made to fail on purpose, for the tests of its failure paths. The store
 * calls {@link #at} at each step below; {@link #NONE}, the default, does nothing. A fault is an
 * exception or Error thrown there, as RocksDB or the JVM would throw it, so it takes the same path
 * as a real one.
 */
@FunctionalInterface
public interface StoreFaults {

  /** The steps a fault can be injected at, in the order a change or a snapshot meets them. */
  enum Step {
    /** The committer, before it writes a group to the write-ahead log. */
    COMMIT_WRITE,
    /** The committer, after a group is written, before the changes' callbacks run. */
    COMMIT_WRITTEN,
    /** The fsync thread, before it syncs the write-ahead log. */
    FSYNC,
    /** A snapshot, after a value's image is built under its lock. */
    SNAPSHOT_IMAGE,
    /** A snapshot, after a value's chunks are written, before its pointer is queued. */
    SNAPSHOT_CHUNKS,
    /** A snapshot, after every pointer is queued, before the log's truncation is queued. */
    SNAPSHOT_POINTERS,
    /** A snapshot, after the truncation is queued. */
    SNAPSHOT_TRUNCATED,
    /** A background write of rows (a dedup table's pending claims), before it is written. */
    ROWS_WRITE,
    /** A durability waiter, after it found its change unwritten, before it takes the lock. */
    WAITER_REGISTER,
    /** A cluster node's tailer, after a record's commands ran, before its offset is stored. */
    APPLY_BEFORE_OFFSET
  }

  /** Called at {@code step}; throws to make it fail. */
  void at(Step step) throws RocksDBException;

  StoreFaults NONE = step -> {};

  /**
   * The fault a server process was started with: {@code -Didem.fault=STEP:ACTION}, where ACTION is
   * {@code pause} (print {@code fault: paused at STEP} on standard output and wait forever, for a
   * test to kill the process there), {@code error} (throw an Error), {@code oom} (allocate more
   * than the heap holds: a real OutOfMemoryError) or {@code fail} (a RocksDB error), each the first
   * time the step is reached, or the Nth with {@code STEP:ACTION:N}. For tests; none when the
   * property is absent.
   */
  static StoreFaults fromSystemProperty() {
    String spec = System.getProperty("idem.fault");
    return spec == null || spec.isBlank() ? NONE : parse(spec);
  }

  static StoreFaults parse(String spec) {
    String[] parts = spec.split(":", -1);
    if (parts.length < 2 || parts.length > 3) {
      throw new IllegalArgumentException("idem.fault (" + spec + ") must be STEP:ACTION[:N]");
    }
    Step target = Step.valueOf(parts[0].trim().toUpperCase(Locale.ROOT));
    String action = parts[1].trim().toLowerCase(Locale.ROOT);
    int nth = parts.length == 3 ? Integer.parseInt(parts[2].trim()) : 1;
    if (nth < 1) {
      throw new IllegalArgumentException("idem.fault's N (" + nth + ") must be at least 1");
    }
    if (!action.equals("pause")
        && !action.equals("error")
        && !action.equals("oom")
        && !action.equals("fail")) {
      throw new IllegalArgumentException(
          "idem.fault action (" + action + ") must be pause, error, oom or fail");
    }
    return new Once(target, action, nth);
  }

  /** Fires once, the Nth time its step is reached. */
  final class Once implements StoreFaults {
    private final Step target;
    private final String action;
    private int reached;
    private final int nth;
    private volatile boolean fired;
    private static volatile @Nullable Object sink;

    Once(Step target, String action, int nth) {
      this.target = target;
      this.action = action;
      this.nth = nth;
    }

    @Override
    public void at(Step step) throws RocksDBException {
      if (step != target || fired) {
        return;
      }
      synchronized (this) {
        if (fired || ++reached < nth) {
          return;
        }
        fired = true;
      }
      switch (action) {
        case "pause" -> {
          System.out.println("fault: paused at " + step);
          System.out.flush();
          while (true) {
            try {
              Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
              // a kill is what ends this pause
            }
          }
        }
        case "error" -> throw new AssertionError("fault injected at " + step);
        case "oom" -> sink = new long[Integer.MAX_VALUE - 16];
        default -> throw new RocksDBException("fault injected at " + step);
      }
    }
  }
}
