package io.idem.server.engine;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.List;
import javax.management.NotificationEmitter;

/**
 * The heap bytes the last collection of each heap pool left in use, kept up to date by the
 * collectors' notifications (sent after each collection, on the JVM's service thread), so reading
 * it costs a volatile read. Were a collector to send none, each read asks the pools, as before.
 */
final class HeapAfterCollection {

  /** The heap's pools, found once: the lookup builds every pool's MXBean and its JMX name. */
  private static final List<MemoryPoolMXBean> HEAP_POOLS =
      ManagementFactory.getMemoryPoolMXBeans().stream()
          .filter(p -> p.getType() == MemoryType.HEAP)
          .toList();

  private static volatile long live = read();

  private static final boolean NOTIFIED = listen();

  private HeapAfterCollection() {}

  static long live() {
    return NOTIFIED ? live : read();
  }

  private static long read() {
    long sum = 0;
    for (MemoryPoolMXBean pool : HEAP_POOLS) {
      MemoryUsage after = pool.getCollectionUsage();
      if (after != null) {
        sum += after.getUsed();
      }
    }
    return sum;
  }

  /** Whether every collector notifies: only then is the kept figure current. */
  private static boolean listen() {
    List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
    for (GarbageCollectorMXBean gc : collectors) {
      if (!(gc instanceof NotificationEmitter)) {
        return false;
      }
    }
    for (GarbageCollectorMXBean gc : collectors) {
      ((NotificationEmitter) gc)
          .addNotificationListener((n, handback) -> live = read(), null, null);
    }
    live = read(); // a collection may have ended before the listeners were in
    return true;
  }
}
