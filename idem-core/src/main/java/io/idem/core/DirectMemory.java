package io.idem.core;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

/** The JVM's direct memory: off-heap structures (large Bloom filters, uniq's exact set). */
public final class DirectMemory {
  private DirectMemory() {}

  /**
   * Bytes of direct memory in use: every live off-heap allocation of this JVM, structures and
   * direct buffers alike; 0 if the JVM does not say.
   */
  public static long used() {
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        return Math.max(0, pool.getMemoryUsed());
      }
    }
    return 0;
  }
}
