package io.idem.cli;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

/** The JVM's direct memory: off-heap structures (large Bloom filters, uniq's exact set). */
final class DirectMemory {
  private DirectMemory() {}

  /**
   * Bytes of direct memory in use: what the JVM counts as such, off-heap segments and direct
   * buffers (not what native libraries allocate themselves); 0 if the JVM does not say.
   */
  static long used() {
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        return Math.max(0, pool.getMemoryUsed());
      }
    }
    return 0;
  }
}
